package lua

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
	lua "github.com/yuin/gopher-lua"
)

// cyclicValues defines tables that contain themselves.
const cyclicValues = `
local l = {}
l[1] = l
local d = {}
d.a = {b = d}
local deep = {}
for i = 1, 1200 do deep = {deep} end
`

// TestCyclesAndDepth: every conversion of a table that contains itself, or
// nests deeper than script.MaxDepth, fails with the path where it happens.
func TestCyclesAndDepth(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`tool{name = "t", fn = function() return "ok" end}`)
	const (
		self    = " contains itself, which JSON cannot represent"
		tooDeep = "[1][1][1][1][1][1][1][1]…[1][1][1][1] is nested deeper than 1000 levels"
	)
	for _, tc := range []struct{ src, want string }{
		{`json.encode(l)`, "json.encode: value at [1]" + self},
		{`json.encode(d)`, `json.encode: value at ["a"]["b"]` + self},
		{`json.encode_indent({k = l})`, `json.encode_indent: value at ["k"][1]` + self},
		{`json.encode(deep)`, "json.encode: value at " + tooDeep},
		{`json.decode(string.rep("[", 1001) .. string.rep("]", 1001))`, "json.decode: value at [0][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels"},
		{`json.decode(string.rep("[", 20000) .. string.rep("]", 20000))`, "json.decode: value is nested deeper than 1000 levels"},
		{`invoke_tool("t", d)`, `invoke_tool: value at args["a"]["b"]` + self},
		{`invoke_tool("t", {deep = deep})`, `invoke_tool: value at args["deep"][1][1][1][1][1][1][1]…[1][1][1][1] is nested deeper than 1000 levels`},
		{`invoke_all({{"t", {x = l}}})`, `invoke_all: value at calls[1][2]["x"][1]` + self},
		{`state.set("k", d)`, `state.set: value at ["a"]["b"]` + self},
		{`rewrite(d)`, `rewrite: value at args["a"]["b"]` + self},
		{`config{mode = l}`, `config: value at mode[1]` + self},
	} {
		err := e.runErr(cyclicValues + tc.src)
		wantContains(t, err.Error(), tc.want)
	}
}

// TestCyclicResults: a tool, hook or middleware that returns a table that
// contains itself fails the call, naming where.
func TestCyclicResults(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local function cyclic()
  local d = {}
  d.me = {d}
  return d
end
tool{name = "cyc", fn = function() return cyclic() end}
tool{name = "guarded", fn = function() return "ran" end}
tool{name = "wrapped", fn = function() return "ran" end}
before(function(call) return cyclic() end, {tools = {"guarded"}})
middleware(function(call, next) return cyclic() end, {tools = {"wrapped"}})
`)
	for _, tc := range []struct {
		tool string
		kind core.Kind
	}{{"cyc", core.KindFailed}, {"guarded", core.KindRejected}, {"wrapped", core.KindFailed}} {
		res := e.invokeBounded(tc.tool, `{}`)
		wantKind(t, res, tc.kind)
		wantContains(t, res.Err.Error(), `value at return value["me"][1] contains itself`)
		if res.ForLLM == "ran" {
			t.Errorf("%s ran", tc.tool)
		}
	}
}

// TestItemsBound: a table that appears many times over expands as it is
// converted; past script.MaxItems the conversion stops with an error.
func TestItemsBound(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`
local x, y = {}, {}
for i = 1, 4096 do x[i] = 0 end
for i = 1, 4096 do y[i] = x end
json.encode(y)
`)
	wantContains(t, err.Error(), "json.encode: value has more than 4194304 items in all")
}

// TestArgsThatDoNotConvert: a before hook must not see {} where the tool
// sees arguments.
func TestArgsThatDoNotConvert(t *testing.T) {
	e := newEnv(t, Options{})
	// A Go tool that reads only what it knows, as the built-in ones do.
	ran := false
	if err := e.ex.Registry().RegisterTools(core.Tool{Name: "read", Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a struct{ Path string }
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		ran = true
		return "read " + a.Path, nil
	}}); err != nil {
		t.Fatal(err)
	}
	e.run(`
before(function(call)
  local path = call.args.path or ""
  if path:sub(-4) == ".env" then return deny("no .env") end
end)
`)
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for _, args := range []string{`{"path": ".env", "pad": ` + deep + `}`, `{"path": ".env", "pad": 1e400}`} {
		res := e.invokeBounded("read", args)
		wantKind(t, res, core.KindRejected)
		if ran {
			t.Fatalf("the tool ran for %.40s…: %v", args, res.Err)
		}
	}
}

// TestCyclicGoValue: a value from Go that contains itself is an error in
// the script, not a hang.
func TestCyclicGoValue(t *testing.T) {
	e := newEnv(t, Options{})
	cyc := map[string]any{"k": "v"}
	cyc["self"] = []any{cyc}
	e.host.AddBuiltin(script.Builtin{Name: "cyclic", Fn: func(ctx context.Context, args script.Args) (any, error) {
		return cyc, nil
	}})
	e.in = New(e.host, Options{})
	err := e.runErr(`cyclic()`)
	wantContains(t, err.Error(), `cyclic: result: value at ["self"][1] contains itself`)
}

// TestDeepValueFailsFast: converting a table 200,000 levels deep stops at
// script.MaxDepth with a bounded amount of work.
func TestDeepValueFailsFast(t *testing.T) {
	e := newEnv(t, Options{})
	g, err := e.in.ExecSource(context.Background(), "deep.lua", []byte(`
deep = {}
for i = 1, 200000 do deep = {deep} end
`))
	if err != nil {
		t.Fatal(err)
	}
	deep := g.env.RawGetString("deep").(*lua.LTable)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	const runs = 5
	allocs := testing.AllocsPerRun(runs, func() {
		_, err := e.in.toGo(deep, "")
		if err == nil || !strings.Contains(err.Error(), "is nested deeper than 1000 levels") {
			t.Fatalf("converting a 200000-deep table: %v", err)
		}
	})
	runtime.ReadMemStats(&ms1)
	bytes := (ms1.TotalAlloc - ms0.TotalAlloc) / (runs + 1)
	if allocs > 3*script.MaxDepth || bytes > 1<<20 {
		t.Errorf("converting a 200000-deep table: %.0f allocations, %d bytes per call; want at most %d and 1 MiB", allocs, bytes, 3*script.MaxDepth)
	}
	// json.encode says the same.
	err = e.runErr(`
local deep = {}
for i = 1, 200000 do deep = {deep} end
json.encode(deep)`)
	wantContains(t, err.Error(), "json.encode: value at [1][1][1][1][1][1][1][1]…[1][1][1][1] is nested deeper than 1000 levels")
}

// TestCycleMessagesMatchStarlark: where the shapes are the same, the two
// languages say the same.
func TestCycleMessagesMatchStarlark(t *testing.T) {
	le := newEnv(t, Options{})
	sin := starlark.New(le.host, starlark.Options{})
	le.run(`tool{name = "t", fn = function() return "ok" end}`)
	for _, tc := range []struct{ lua, star, want string }{
		{`local d = {} d.a = {b = d} json.encode(d)`, "d = {}\nd[\"a\"] = {\"b\": d}\njson.encode(d)", `json.encode: value at ["a"]["b"] contains itself, which JSON cannot represent`},
		{`local d = {} d.x = d invoke_tool("t", {k = d})`, "d = {}\nd[\"x\"] = d\ninvoke_tool(\"t\", {\"k\": d})", `invoke_tool: value at args["k"]["x"] contains itself, which JSON cannot represent`},
		{`local d = {} d.x = d state.set("s", d)`, "d = {}\nd[\"x\"] = d\nstate.set(\"s\", d)", `state.set: value at ["x"] contains itself, which JSON cannot represent`},
		{`local d = {} for i = 1, 1001 do d = {k = d} end json.encode(d)`, "d = {}\nfor i in range(1001):\n    d = {\"k\": d}\njson.encode(d)",
			`json.encode: value at ["k"]["k"]["k"]["k"]["k"]["k"]["k"]["k"]…["k"]["k"]["k"]["k"] is nested deeper than 1000 levels`},
	} {
		lerr := le.runErr(tc.lua)
		_, serr := sin.ExecSource(context.Background(), "test.star", []byte(tc.star))
		if serr == nil {
			t.Fatalf("starlark %q succeeded", tc.star)
		}
		for _, err := range []error{lerr, serr} {
			msg := err.Error()
			if i := strings.Index(msg, ": "+strings.SplitN(tc.want, ":", 2)[0]); i >= 0 {
				msg = msg[i+2:] // past the position
			}
			if msg != tc.want {
				t.Errorf("got %q\nwant %q", msg, tc.want)
			}
		}
	}
}
