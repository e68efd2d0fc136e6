package lua

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestValuesToJSON: how Lua values become JSON, through json.encode and
// through a tool's return value.
func TestValuesToJSON(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ lua, want string }{
		{`{}`, `{}`},
		{`agentsh.array{}`, `[]`},
		{`agentsh.array()`, `[]`},
		{`{1, 2, 3}`, `[1,2,3]`},
		{`agentsh.array{1, 2}`, `[1,2]`},
		{`{a = 1, b = {c = "d"}}`, `{"a":1,"b":{"c":"d"}}`},
		{`{1, agentsh.null, 3}`, `[1,null,3]`},
		{`{a = agentsh.null, b = json.null}`, `{"a":null,"b":null}`},
		{`{x = 3.0, y = 1.5, z = -0.25}`, `{"x":3,"y":1.5,"z":-0.25}`},
		{`{big = 2^53, neg = -2^53}`, `{"big":9007199254740992,"neg":-9007199254740992}`},
		{`{f = 2^53 + 2}`, `{"f":9007199254740994}`},
		{`{t = true, f = false, s = "é\n"}`, `{"f":false,"s":"é\n","t":true}`},
		{`json.decode("[]")`, `[]`},
		{`json.decode('{"a": [], "b": {}, "c": [[]]}')`, `{"a":[],"b":{},"c":[[]]}`},
		{`json.decode('[1, null, {"k": null}]')`, `[1,null,{"k":null}]`},
		{`{["1"] = "string key"}`, `{"1":"string key"}`},
	} {
		e.out.Reset()
		e.run(`print(json.encode(` + tc.lua + `))`)
		if got := strings.TrimSuffix(e.out.String(), "\n"); got != tc.want {
			t.Errorf("json.encode(%s) = %s, want %s", tc.lua, got, tc.want)
		}
	}

	// The same shapes as a tool's return value.
	e.run(`
tool{name = "ret", fn = function(args)
  local shapes = {
    empty = {}, arr = agentsh.array{}, list = {1, agentsh.null}, obj = {k = agentsh.null},
    decoded = json.decode('{"a": []}'), n = 2^53, f = 0.5,
  }
  return shapes[args.which]
end}
`)
	for which, want := range map[string]string{
		"empty": `{}`, "arr": `[]`, "list": `[1,null]`, "obj": `{"k":null}`,
		"decoded": `{"a":[]}`, "n": `9007199254740992`, "f": `0.5`, "missing": ``,
	} {
		res := e.invoke("ret", `{"which":"`+which+`"}`)
		if !res.OK() || res.ForLLM != want {
			t.Errorf("tool returned %s: %q, %v; want %q", which, res.ForLLM, res.Err, want)
		}
	}
}

// TestValueErrors: every Lua value without a JSON form is an error naming
// its path.
func TestValueErrors(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ lua, want string }{
		{`{1, 2, a = 3}`, "args: table mixes string keys with array items"},
		{`{items = {1, {x = 1, 2}}}`, `args["items"][2]: table mixes string keys with array items`},
		{`agentsh.array{a = 1}`, "args: table mixes string keys with array items"},
		{`{1, nil, 3}`, "args: array has holes: keys are not exactly 1..2 (use agentsh.null for a JSON null)"},
		{`{[1] = "a", [3] = "c"}`, "args: array has holes"},
		{`{[0] = "zero"}`, "args: table key 0 is a number; JSON keys are strings (objects) or 1..n (arrays)"},
		{`{[1.5] = "x"}`, "args: table key 1.5 is a number"},
		{`{a = {[true] = 1}}`, `args["a"]: table key true is a boolean`},
		{`{items = {"ok", print}}`, `args["items"][2]: cannot convert a function to JSON`},
		{`{items = {"ok", function() end}}`, `args["items"][2]: cannot convert a function to JSON`},
		{`{co = coroutine.create(function() end)}`, `args["co"]: cannot convert a thread to JSON`},
		{`{n = 1/0}`, `args["n"]: number +Inf is not finite and has no JSON form`},
		{`{n = -1/0}`, `args["n"]: number -Inf is not finite`},
		{`{n = 0/0}`, `args["n"]: number NaN is not finite`},
		{`{t = time.now()}`, `sink: args["t"]: cannot convert a time.time to JSON`},
		{`{m = re.search("a", "a")}`, `sink: args["m"]: cannot convert a match to JSON`},
		{`(function() local t = {} t.self = t return t end)()`, `value at args["self"] contains itself`},
		{`(function() local t = {} t[1] = t return t end)()`, "value at args[1] contains itself"},
	} {
		err := e.runErr(`tool{name = "sink", fn = function() return "" end, replace = true} invoke_tool("sink", ` + tc.lua + `)`)
		want := "test.lua:1: invoke_tool: " + tc.want
		if strings.HasPrefix(tc.want, "sink: ") {
			// A host object converts; the pipeline refuses it.
			want = "test.lua:1: invoke_tool " + tc.want
		}
		wantContains(t, err.Error(), want)
	}

	// The same rules for a tool's return value, json.encode and state.set.
	for _, tc := range []struct{ src, want string }{
		{`json.encode({1, a = 2})`, "json.encode: table mixes string keys"},
		{`json.encode({x = {y = {1, print}}})`, `json.encode: ["x"]["y"][2]: cannot convert a function to JSON`},
		{`json.encode(0/0)`, "json.encode: NaN is not a finite number and cannot be JSON"},
		{`state.set("k", {f = print})`, `state.set: ["f"]: cannot convert a function to JSON`},
		{`agentsh.array(setmetatable({}, {}))`, "agentsh.array: the table already has a metatable"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
	e.run(`
tool{name = "bad_ret", fn = function(args) return {list = {1, print}} end}
tool{name = "inf_ret", fn = function(args) return 1/0 end}
tool{name = "loop_ret", fn = function(args) local t = {} t.t = t return t end}
tool{name = "result_ret", fn = function(args) return {r = invoke_tool("inf_ret")} end}
`)
	for name, want := range map[string]string{
		"bad_ret":    `bad_ret: return value["list"][2]: cannot convert a function to JSON`,
		"inf_ret":    "inf_ret: return value: number +Inf is not finite and has no JSON form",
		"loop_ret":   `loop_ret: value at return value["t"] contains itself, which JSON cannot represent`,
		"result_ret": `["r"]: cannot convert a result (use its fields, such as r.output) to JSON`,
	} {
		res := e.invokeBounded(name, `{}`)
		wantKind(t, res, core.KindFailed)
		wantContains(t, res.Err.Error(), want)
	}
}

// TestValuesFromGo: arguments from Go arrive as Lua values: arrays keep
// their mark (so they round-trip, even empty), null is agentsh.null
// inside tables, integers stay integral, objects iterate in sorted key
// order, and an integer beyond 2^53 is an error rather than a rounding.
func TestValuesFromGo(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "echo", fn = function(args) return args end}
tool{name = "describe", fn = function(args)
  local out = {}
  for k, v in pairs(args) do out[#out + 1] = k end
  local nulls = args.list[2] == agentsh.null and args.obj.k == json.null
  return table.concat(out, ",") .. " " .. tostring(nulls) .. " " .. tostring(args.n) .. " " .. type(args.n) ..
    " " .. tostring(args.f) .. " " .. #args.empty_list .. " " .. tostring(getmetatable(args.empty_list) ~= nil)
end}
tool{name = "keys", fn = function(args)
  local out = {}
  for k in pairs(args) do out[#out + 1] = k end
  return table.concat(out, " ")
end}
`)
	args := `{"obj":{"k":null},"list":[1,null],"n":42,"f":2.5,"empty_list":[],"empty_obj":{},"max":9007199254740992,"min":-9007199254740992}`
	res := e.invoke("echo", args)
	if !res.OK() || res.ForLLM != `{"empty_list":[],"empty_obj":{},"f":2.5,"list":[1,null],"max":9007199254740992,"min":-9007199254740992,"n":42,"obj":{"k":null}}` {
		t.Fatalf("round trip: %q, %v", res.ForLLM, res.Err)
	}
	res = e.invoke("describe", args)
	if !res.OK() || res.ForLLM != "empty_list,empty_obj,f,list,max,min,n,obj true 42 number 2.5 0 true" {
		t.Fatalf("describe: %q, %v", res.ForLLM, res.Err)
	}

	// Go maps have no order; pairs() over them is sorted, every time.
	var keys []string
	obj := map[string]int{}
	for _, k := range strings.Fields("zeta alpha mu beta omega gamma kappa delta iota epsilon lambda nu xi omicron pi rho sigma tau") {
		obj[k] = len(k)
		keys = append(keys, k)
	}
	raw, _ := json.Marshal(obj)
	want := strings.Join(sortedCopy(keys), " ")
	for i := 0; i < 20; i++ {
		if res := e.invoke("keys", string(raw)); res.ForLLM != want {
			t.Fatalf("pairs order %q, want %q", res.ForLLM, want)
		}
	}

	for _, n := range []string{"9007199254740993", "-9007199254740993", "9223372036854775807"} {
		res := e.invoke("echo", `{"a":[`+n+`]}`)
		wantKind(t, res, core.KindFailed)
		wantContains(t, res.Err.Error(), `echo: argument: ["a"][1]: integer `+n+` is beyond 2^53 and has no exact Lua number`)
	}
	// A float beyond 2^53 is fine: it was never exact.
	if res := e.invoke("echo", `{"a":1e300}`); !res.OK() || res.ForLLM != `{"a":1e+300}` {
		t.Errorf("1e300: %q, %v", res.ForLLM, res.Err)
	}

	// A call is its arguments when passed on as a value.
	e.run(`
before(function(call)
  if call.name == "echo" then print(invoke_tool("keys", call).output) end
end)
`)
	e.out.Reset()
	e.invoke("echo", `{"b":1,"a":2}`)
	wantLines(t, e.lines(), "a b")
}

// TestArgv: Options.Argv is the array argv.
func TestArgv(t *testing.T) {
	e := newEnv(t, Options{Argv: []string{"s.lua", "one", "two"}})
	e.run(`print(#argv, argv[1], argv[3], json.encode(argv))`)
	wantLines(t, e.lines(), "3\ts.lua\ttwo\t"+`["s.lua","one","two"]`)
	e = newEnv(t, Options{})
	e.run(`print(#argv, json.encode(argv))`)
	wantLines(t, e.lines(), "0\t[]")
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
