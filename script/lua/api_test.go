package lua

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
)

// TestToolDefinition covers tool{} and every field.
func TestToolDefinition(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local function greet(args) return "Hello, " .. args.name end
tool{name = "greet", fn = greet, description = "Greets someone.",
     parameters = {type = "object", properties = {name = {type = "string"}},
                   required = {"name"}},
     concurrency_safe = true, idempotent = false}
tool{name = "unsafe", fn = greet, concurrency_safe = false, idempotent = true}
tool{name = "plain", fn = greet}
print(invoke_tool("greet", {name = "Ada"}).output)
`)
	wantLines(t, e.lines(), "Hello, Ada")
	reg := e.ex.Registry()
	g := reg.GetTool("greet")
	if g == nil || g.Description != "Greets someone." || g.ConcurrencySafe == nil || !*g.ConcurrencySafe || g.Idempotent {
		t.Fatalf("greet = %+v", g)
	}
	if got := string(g.Schema().JSON()); got != `{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}` {
		t.Errorf("schema = %s", got)
	}
	u := reg.GetTool("unsafe")
	if u.ConcurrencySafe == nil || *u.ConcurrencySafe || !u.Idempotent {
		t.Errorf("unsafe = %+v", u)
	}
	if p := reg.GetTool("plain"); p.ConcurrencySafe != nil || p.Idempotent || p.Description != "" {
		t.Errorf("plain: omitted fields must be undeclared/false/empty, got %+v", p)
	}

	// Duplicates are refused unless replace = true, and a replacement
	// takes effect.
	err := e.runErr(`tool{name = "greet", fn = function(args) return "again" end}`)
	wantContains(t, err.Error(), `tool "greet" is already registered`, "test.lua:1")
	e.out.Reset()
	e.run(`
tool{name = "greet", fn = function(args) return "Hi " .. args.name end, replace = true}
print(invoke_tool("greet", {name = "Bob"}).output)
print(get_tool("greet").description == "")
`)
	wantLines(t, e.lines(), "Hi Bob", "true")
}

// TestToolDefinitionErrors: every bad field is an error naming the field,
// and a failed tool{} registers nothing.
func TestToolDefinitionErrors(t *testing.T) {
	e := newEnv(t, Options{})
	const fn = `fn = function(a) return "" end`
	for _, tc := range []struct{ src, want string }{
		{`tool{name = "x", ` + fn + `, bogus = 1}`, `tool: unexpected argument "bogus"; the parameters are name, fn, description, parameters, concurrency_safe, idempotent, replace`},
		{`tool{"x", ` + fn + `}`, `tool: argument names are strings, got key 1`},
		{`tool{` + fn + `}`, "tool: missing argument \"name\""},
		{`tool{name = 5, ` + fn + `}`, "tool: name got an int, want a string"},
		{`tool{name = "x"}`, `tool: missing argument "fn"`},
		{`tool{name = "x", fn = "f"}`, `tool: fn got a string, want a function`},
		{`tool{name = "x", ` + fn + `, description = {}}`, `tool: description got a dict, want a string`},
		{`tool{name = "x", ` + fn + `, parameters = {type = "object", f = print}}`, `tool: parameters["f"]: cannot convert a function to JSON`},
		{`tool{name = "x", ` + fn + `, parameters = {type = "string"}}`, `"type": "object"`},
		{`tool{name = "x", ` + fn + `, concurrency_safe = "yes"}`, `tool: concurrency_safe got a string, want a bool or nothing`},
		{`tool{name = "x", ` + fn + `, idempotent = 1}`, "tool: idempotent got an int, want a bool"},
		{`tool{name = "x", ` + fn + `, replace = "no"}`, "tool: replace got a string, want a bool"},
		{`tool{name = "bad.name", ` + fn + `}`, `invalid tool name "bad.name"`},
		{`tool("x")`, "tool: missing argument \"fn\""},
	} {
		err := e.runErr(tc.src)
		wantContains(t, err.Error(), tc.want, "test.lua:1")
	}
	if e.ex.Registry().GetTool("x") != nil {
		t.Error("a failed tool{} registered something")
	}
}

// TestHookScopes: before, after and middleware apply globally, to the
// tools of {tools = {...}}, to a single name given as a string, and to a
// bare list of names.
func TestHookScopes(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
for _, n in ipairs({"a", "b", "c", "mcp__x"}) do
  tool{name = n, fn = function(args) return n end}
end
local function tag(label)
  return function(call) print(label .. " " .. call.name) end
end
before(tag("B*"))
before(tag("Bt"), {tools = {"a", "mcp__*"}})
before(tag("Bs"), "b")
before(tag("Bl"), {"c", "a"})
after(function(call, r) print("A* " .. call.name .. " " .. r.output) end)
after(function(call, r) print("At " .. call.name) end, {tools = "b"})
after(function(call, r) print("Al " .. call.name) end, {"c"})
middleware(function(call, next) print("M* " .. call.name) return next(call) end)
middleware(function(call, next) print("Mt " .. call.name) return next(call) end, {tools = {"c"}})
middleware(function(call, next) print("Ms " .. call.name) return next(call) end, "a")
middleware(function(call, next) print("Ml " .. call.name) return next(call) end, {"mcp__x"})
`)
	for _, name := range []string{"a", "b", "c", "mcp__x"} {
		if res := e.invoke(name, `{}`); !res.OK() || res.ForLLM != name {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	// Tool-specific before hooks run before global ones; middleware runs
	// first registered outermost; global after hooks before tool-specific.
	wantLines(t, e.lines(),
		"Bt a", "Bl a", "B* a", "M* a", "Ms a", "A* a a",
		"Bs b", "B* b", "M* b", "A* b b", "At b",
		"Bl c", "B* c", "M* c", "Mt c", "A* c c", "Al c",
		"Bt mcp__x", "B* mcp__x", "M* mcp__x", "Ml mcp__x", "A* mcp__x mcp__x",
	)

	for _, tc := range []struct{ src, want string }{
		{`before(5)`, "before: fn got an int, want a function"},
		{`after(nil)`, "after: fn got nothing, want a function"},
		{`before(function() end, {tools = 5})`, "before: tools got an int, want a tool name or glob, or a non-empty list of them"},
		{`before(function() end, {tools = {}})`, "before: tools got an empty list; omit it for a global hook"},
		{`before(function() end, {tools = {1}})`, "before: tools got a list holding an int, want names or globs (strings)"},
		{`after(function() end, {tool = "a"})`, `after: tools got a dict, want a tool name or glob, or a non-empty list of them`},
		{`middleware(function() end, 5)`, "middleware: tools got an int, want a tool name or glob, or a non-empty list of them"},
		{`middleware(5)`, "middleware: fn got an int, want a function(call, next) or timeout(...)/retry(...)"},
		{`before(function() end, {name = 5})`, "before: name got an int, want a string"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestHookNames: a rejection names the hook after the local or global it
// was bound to, the name option, or function@file:line.
func TestHookNames(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "loc", fn = function() return "" end}
tool{name = "glob", fn = function() return "" end}
tool{name = "anon", fn = function() return "" end}
tool{name = "named", fn = function() return "" end}
tool{name = "raises", fn = function() return "" end}
local function no_loc(call) return deny("local says no") end
before(no_loc, "loc")
function no_glob(call) return deny("global says no") end
before(no_glob, "glob")
before(function(call)
  return deny("anonymous says no")
end, "anon")
before(function(call) return deny("named says no") end, {tools = "named", name = "policy"})
local function boom(call) error("kaboom") end
before(boom, "raises")
`)
	for _, tc := range []struct{ tool, want string }{
		{"loc", `rejected by "no_loc": local says no`},
		{"glob", `rejected by "no_glob": global says no`},
		{"anon", `rejected by "function@test.lua:11": anonymous says no`},
		{"named", `rejected by "policy": named says no`},
		{"raises", `rejected by "boom": test.lua:15: kaboom`},
	} {
		res := e.invoke(tc.tool, `{}`)
		wantKind(t, res, core.KindRejected)
		if res.Err.Error() != tc.want {
			t.Errorf("%s: error %q, want %q", tc.tool, res.Err.Error(), tc.want)
		}
	}
}

// TestBeforeDenyRewrite: deny rejects (after hooks still see it), rewrite
// replaces the arguments for later hooks and the tool, a wrong return
// value rejects.
func TestBeforeDenyRewrite(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "echo", fn = function(args) return json.encode(args) end}
before(function(call)
  if call.args.path == ".env" then return deny("no secrets") end
end)
before(function(call)
  if call.args.n then return rewrite{n = call.args.n + 1, seen = call.raw} end
end)
before(function(call)
  if call.args.n == 2 then return rewrite{n = call.args.n * 10, seen = call.args.seen} end
end)
before(function(call) if call.args.bad then return 42 end end)
after(function(call, r) print(call.name, r.ok, r.error_kind) end)
`)
	res := e.invoke("echo", `{"path":".env"}`)
	wantKind(t, res, core.KindRejected)
	wantContains(t, res.Err.Error(), "no secrets")
	res = e.invoke("echo", `{"n":1}`)
	if !res.OK() || res.ForLLM != `{"n":20,"seen":"{\"n\":1}"}` {
		t.Fatalf("rewrite chain: %+v", res)
	}
	res = e.invoke("echo", `{"bad":true}`)
	wantKind(t, res, core.KindRejected)
	wantContains(t, res.Err.Error(), "returned an int; want None, allow(reason?), ask(reason), deny(reason) or rewrite(args)")
	wantLines(t, e.lines(), "echo\tfalse\trejected", "echo\ttrue\tnil", "echo\tfalse\trejected")

	for _, tc := range []struct{ src, want string }{
		{`rewrite({1, 2})`, "rewrite: args got a list, want a dict"},
		{`rewrite("x")`, "rewrite: args got a string, want a dict"},
		{`rewrite({f = print})`, `rewrite: args["f"]: cannot convert a function to JSON`},
		{`deny()`, "deny: missing argument \"reason\""},
		{`print(tostring(deny("r")), tostring(rewrite{a = 1}), tostring(dual("m", "u")), tostring(silent("s")))`, ""},
	} {
		if tc.want == "" {
			e.out.Reset()
			e.run(tc.src)
			wantLines(t, e.lines(), "deny(\"r\")\trewrite({\"a\":1})\tdual(\"m\", \"u\")\tsilent(\"s\")")
			continue
		}
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
}

// TestMiddleware: next(call), next(call, newargs), a plain value (a new
// successful result), deny, and nil (fails the call).
func TestMiddleware(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "echo", fn = function(args) return json.encode(args) end}
tool{name = "fails", fn = function(args) error("tool broke") end}
middleware(function(call, next)
  local r = next(call)
  return r
end, "echo")
middleware(function(call, next)
  if call.args.swap then return next(call, {swapped = call.args.swap}) end
  if call.args.plain then return "plain " .. call.args.plain end
  if call.args.table then return {n = call.args.table} end
  if call.args.dual then return dual("m", "u") end
  if call.args.deny then return deny("mw says no") end
  if call.args.forget then next(call) return nil end
  return next(call)
end, {tools = {"echo", "fails"}})
`)
	for _, tc := range []struct {
		args, out string
		kind      core.Kind
		err       string
	}{
		{`{"a":1}`, `{"a":1}`, "", ""},
		{`{"swap":"x"}`, `{"swapped":"x"}`, "", ""},
		{`{"plain":"p"}`, "plain p", "", ""},
		{`{"table":3}`, `{"n":3}`, "", ""},
		{`{"deny":true}`, "", core.KindRejected, `rejected by "function@test.lua:8": mw says no`},
		{`{"forget":true}`, "", core.KindFailed, "middleware function@test.lua:8 returned None; return next(call), a result or an output"},
	} {
		res := e.invoke("echo", tc.args)
		wantKind(t, res, tc.kind)
		if res.ForLLM != tc.out || (tc.err != "" && res.Err.Error() != tc.err) {
			t.Errorf("%s: got %q, %v", tc.args, res.ForLLM, res.Err)
		}
	}
	if res := e.invoke("echo", `{"dual":true}`); res.ForLLM != "m" || res.ForUser != "u" {
		t.Errorf("dual from middleware: %+v", res)
	}
	res := e.invoke("fails", `{}`)
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "test.lua:3: tool broke")

	for _, tc := range []struct{ src, want string }{
		{`tool{name = "n1", fn = print} middleware(function(call, next) return next() end, "n1") print(invoke_tool("n1").error)`, "next: missing argument \"call\""},
		{`tool{name = "n2", fn = print} middleware(function(call, next) return next(call, {1}) end, "n2") print(invoke_tool("n2").error)`, "next: args got a list, want a dict"},
		{`tool{name = "n3", fn = print} middleware(function(call, next) return next(call, {f = print}) end, "n3") print(invoke_tool("n3").error)`, `next: args["f"]: cannot convert a function to JSON`},
	} {
		e.out.Reset()
		e.run(tc.src)
		wantContains(t, e.out.String(), tc.want)
	}
}

// TestTimeoutMiddleware: timeout("50ms") gives the rest of the chain a
// deadline; a tool waiting on its context fails with timeout.
func TestTimeoutMiddleware(t *testing.T) {
	e := newEnv(t, Options{})
	e.goTool("wait", nil, func(ctx context.Context, _ map[string]any) (any, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(watchdog):
			return "never cancelled", nil
		}
	})
	e.goTool("quick", nil, func(ctx context.Context, _ map[string]any) (any, error) { return "quick", nil })
	e.runBounded("timeout", `
middleware(timeout("50ms"), {tools = {"wait", "quick"}})
local r = invoke_tool("wait")
print(r.ok, r.error_kind)
print(invoke_tool("quick").output)
print(tostring(timeout(0.25)), tostring(timeout(time.parse_duration("2s"))))
`)
	wantLines(t, e.lines(), "false\ttimeout", "quick", "<middleware timeout(250ms)>\t<middleware timeout(2s)>")
	for _, tc := range []struct{ src, want string }{
		{`timeout("soon")`, `timeout: duration got "soon", want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`timeout("-1s")`, "timeout: duration got \"-1s\", want a duration such as \"2s\" or a number of seconds, from 0 to about 292 years"},
		{`timeout({})`, `timeout: duration got a dict, want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`timeout(1e300)`, "timeout: duration got 1e+300, want a duration such as \"2s\" or a number of seconds, from 0 to about 292 years"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestRetryMiddleware: retry re-executes failed idempotent tools, up to
// attempts executions; a tool that is not idempotent runs once.
func TestRetryMiddleware(t *testing.T) {
	for _, form := range []string{`retry{attempts = 3, backoff = "1ms"}`, `retry(3, "1ms")`} {
		t.Run(form, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.runBounded("retry", `
local runs = {flaky = 0, once = 0, hopeless = 0}
local function flaky(name)
  return function(args)
    runs[name] = runs[name] + 1
    if runs[name] < 3 then error(name .. " failed run " .. runs[name]) end
    return name .. " ok after " .. runs[name]
  end
end
tool{name = "flaky", fn = flaky("flaky"), idempotent = true}
tool{name = "once", fn = flaky("once")}
tool{name = "hopeless", fn = function() runs.hopeless = runs.hopeless + 1 error("never") end, idempotent = true}
middleware(`+form+`)
print(invoke_tool("flaky").output, runs.flaky)
local r = invoke_tool("once")
print(r.ok, r.error_kind, runs.once)
r = invoke_tool("hopeless")
print(r.ok, runs.hopeless)
print(tostring(`+form+`))
`)
			wantLines(t, e.lines(), "flaky ok after 3\t3", "false\tfailed\t1", "false\t3", "<middleware retry(attempts=3, backoff=1ms)>")
		})
	}
	e := newEnv(t, Options{})
	e.run(`print(tostring(retry()), tostring(retry{attempts = 2}), tostring(retry(1, 0)))`)
	wantLines(t, e.lines(), "<middleware retry(attempts=3, backoff=100ms)>\t<middleware retry(attempts=2, backoff=100ms)>\t<middleware retry(attempts=1, backoff=-1ns)>")
	for _, tc := range []struct{ src, want string }{
		{`retry{attempts = 0}`, "retry: attempts got 0, want 1 or more"},
		{`retry{attempts = 1.5}`, "retry: attempts got 1.5, want an integer"},
		{`retry{attempts = "3"}`, "retry: attempts got a string, want an integer"},
		{`retry{tries = 3}`, `retry: unexpected argument "tries"; the parameters are attempts, backoff`},
		{`retry(3, "soon")`, `retry: backoff got "soon", want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`retry(3, {})`, "retry: backoff got a dict, want a duration such as \"2s\" or a number of seconds, from 0 to about 292 years"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestInvokeTool covers table args, raw JSON string args, invalid JSON,
// nil args, args that cannot be JSON, and dedup_key.
func TestInvokeTool(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "echo", fn = function(args) return json.encode(args) end}
print(invoke_tool("echo", {name = "Ada", n = 1}).output)
print(invoke_tool("echo", '{"raw": [1, 2.5, null]}').output)
print(invoke_tool("echo").output)
print(invoke_tool("echo", nil).output)
local r = invoke_tool("echo", "{not json")
print(r.ok, r.error_kind)
r = invoke_tool("echo", "[1, 2]")
print(r.ok, r.error_kind)
r = invoke_tool("echo", {1, 2})
print(r.ok, r.error_kind)
r = invoke_tool("nope", {})
print(r.ok, r.error_kind, r.tool)
`)
	wantLines(t, e.lines(),
		`{"n":1,"name":"Ada"}`,
		`{"raw":[1,2.5,null]}`,
		`{}`,
		`{}`,
		"false\tinvalid_arguments",
		"false\tinvalid_arguments",
		"false\tinvalid_arguments",
		"false\tunknown_tool\tnope",
	)
	for _, tc := range []struct{ src, want string }{
		{`invoke_tool("echo", {f = print})`, `invoke_tool: args["f"]: cannot convert a function to JSON`},
		{`invoke_tool("echo", print)`, "invoke_tool: args got a function, want a dict of arguments or a string of JSON"},
		{`invoke_tool("echo", {}, 5)`, `invoke_tool: dedup_key got an int, want a string`},
		{`invoke_tool("echo", {}, {key = "k"})`, `invoke_tool: unexpected argument "key"; the parameters are name, args, dedup_key`},
		{`invoke_tool()`, "invoke_tool: missing argument \"name\""},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
}

// TestDedupKey: with retry middleware, a dedup key that already succeeded
// returns the stored result without running the tool again; the key goes
// as an option table, a string, or in an invoke_all call.
func TestDedupKey(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local runs = 0
tool{name = "charge", fn = function(args) runs = runs + 1 return "charged " .. args.amount .. " #" .. runs end}
middleware(retry{attempts = 2, backoff = "1ms"})
print(invoke_tool("charge", {amount = 5}, {dedup_key = "order-1"}).output)
print(invoke_tool("charge", {amount = 5}, {dedup_key = "order-1"}).output)
print(invoke_tool("charge", {amount = 5}, "order-1").output)
print(invoke_tool("charge", {amount = 7}, "order-2").output)
local rs = invoke_all({{"charge", {amount = 5}, "order-1"}, {name = "charge", args = {amount = 9}, dedup_key = "order-3"}})
print(rs[1].output, rs[2].output)
print(invoke_tool("charge", {amount = 5}).output, runs)
`)
	wantLines(t, e.lines(), "charged 5 #1", "charged 5 #1", "charged 5 #1", "charged 7 #2", "charged 5 #1\tcharged 9 #3", "charged 5 #4\t4")
}

// TestInvokeAll covers both call forms, the modes, concurrency and bad
// specs.
func TestInvokeAll(t *testing.T) {
	e := newEnv(t, Options{})
	var maxInflight, cur atomic.Int32
	g := newGate(3)
	e.goTool("meet", core.Bool(true), func(ctx context.Context, args map[string]any) (any, error) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			m := maxInflight.Load()
			if n <= m || maxInflight.CompareAndSwap(m, n) {
				break
			}
		}
		if args["wait"] == true {
			return "met", g.Wait(ctx)
		}
		return "ran", nil
	})
	e.runBounded("invoke_all", `
tool{name = "echo", fn = function(args) return args.v end}
local rs = invoke_all({{"echo", {v = "a"}}, {name = "echo", args = {v = "b"}}, {"echo", '{"v": "c"}'}, {"nope"}})
for i, r in ipairs(rs) do print(i, r.ok, r.output, r.error_kind) end
print(#invoke_all({}))
rs = invoke_all({{"meet", {wait = true}}, {"meet", {wait = true}}, {"meet", {wait = true}}}, {mode = "parallel"})
print(rs[1].output, rs[2].output, rs[3].output)
`)
	wantLines(t, e.lines(),
		"1\ttrue\ta\tnil",
		"2\ttrue\tb\tnil",
		"3\ttrue\tc\tnil",
		"4\tfalse\t\tunknown_tool",
		"0",
		"met\tmet\tmet",
	)
	if m := maxInflight.Load(); m != 3 {
		t.Fatalf("parallel: %d calls overlapped, want 3", m)
	}
	for _, mode := range []string{`{mode = "serial"}`, `{mode = "parallel", concurrency = 1}`, `{mode = "mixed", concurrency = 1}`} {
		maxInflight.Store(0)
		e.out.Reset()
		e.runBounded(mode, `
local calls = {}
for i = 1, 6 do calls[i] = {"meet", {}} end
local rs = invoke_all(calls, `+mode+`)
print(#rs, rs[6].output)
`)
		wantLines(t, e.lines(), "6\tran")
		if m := maxInflight.Load(); m != 1 {
			t.Errorf("%s: %d calls overlapped, want 1", mode, m)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{`invoke_all({"echo"})`, "invoke_all: call 1 of 1: got a string, want (name, args[, dedup_key]) or {name, args, dedup_key}"},
		{`invoke_all({{5, {}}})`, "invoke_all: call 1 of 1: name got an int, want a string"},
		{`invoke_all({{"echo", {}}, {args = {}}})`, "invoke_all: call 2 of 2: missing \"name\""},
		{`invoke_all({{name = "echo", arg = {}}})`, `invoke_all: call 1 of 1: unexpected key "arg"; the keys are name, args, dedup_key`},
		{`invoke_all({{"echo", {f = print}}})`, `invoke_all: calls[1][2]["f"]: cannot convert a function to JSON`},
		{`invoke_all({{"echo", {}, 5}})`, "invoke_all: call 1 of 1: dedup_key got an int, want a string"},
		{`invoke_all({}, {mode = "sideways"})`, `invoke_all: `},
		{`invoke_all({}, {mode = 1})`, "invoke_all: mode got an int, want a string"},
		{`invoke_all({}, {concurrency = -1})`, "invoke_all: concurrency got -1, want 0 (the default, 64 at a time) or more"},
		{`invoke_all({}, {concurrency = 1.5})`, "invoke_all: concurrency got 1.5"},
		{`invoke_all({}, {modes = "serial"})`, `invoke_all: unexpected argument "modes"; the parameters are calls, mode, concurrency`},
		{`invoke_all({}, 5)`, "invoke_all: mode got an int, want a string"},
		{`invoke_all("echo")`, "invoke_all: calls got a string, want a list of calls"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
	}
	wantContains(t, e.runErr(`invoke_all({}, {mode = "sideways"})`).Error(), "sideways")
}

// TestRegistryFunctions covers tool_names, get_tool and unregister_tool.
func TestRegistryFunctions(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "b", fn = function() return "" end, description = "B.", concurrency_safe = true, idempotent = true,
     parameters = {type = "object", properties = {x = {type = "integer"}}}}
tool{name = "a", fn = function() return "" end}
print(json.encode(tool_names()))
local b = get_tool("b")
print(b.name, b.description, b.concurrency_safe, b.idempotent, json.encode(b.parameters))
local a = get_tool("a")
print(a.concurrency_safe == agentsh.null, a.idempotent)
print(get_tool("zzz"))
unregister_tool("a")
print(json.encode(tool_names()), get_tool("a"))
`)
	wantLines(t, e.lines(),
		`["a","b"]`,
		"b\tB.\ttrue\ttrue\t"+`{"properties":{"x":{"type":"integer"}},"type":"object"}`,
		"true\tfalse",
		"nil",
		`["b"]`+"\tnil",
	)
	wantContains(t, e.runErr(`unregister_tool("a")`).Error(), `"a"`, "test.lua:1")
	wantContains(t, e.runErr(`get_tool()`).Error(), "get_tool: missing argument \"name\"")
}

// TestConfig: config returns every setting; an update is all or nothing;
// an unknown setting's error lists the known ones.
func TestConfig(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local c = config()
print(c.mode, c.concurrency, c.validate_arguments, c.offload)
c = config{mode = "mixed", concurrency = 4, validate_arguments = true}
print(c.mode, c.concurrency, c.validate_arguments)
`)
	wantLines(t, e.lines(), "serial\t0\tfalse\t0", "mixed\t4\ttrue")
	if e.ex.Mode().String() != "mixed" || e.ex.Concurrency() != 4 || !e.ex.ValidateArguments() {
		t.Fatalf("executor not configured: %v %d %v", e.ex.Mode(), e.ex.Concurrency(), e.ex.ValidateArguments())
	}
	for _, tc := range []struct{ src, want string }{
		{`config{mode = "serial", concurrency = -1}`, "config: concurrency: got -1, want 0 (the default, 64 at a time) or more"},
		{`config{mode = "serial", concurrency = 1.5}`, "config: concurrency: got 1.5"},
		{`config{mode = "serial", validate_arguments = "yes"}`, "config: validate_arguments: want True or False"},
		{`config{mode = "sideways", concurrency = 2}`, "config: mode:"},
		{`config{mode = "serial", colour = "blue"}`, `config: unknown setting "colour"; the settings are concurrency, mode, offload, permissions, secret_files, validate_arguments`},
		{`config{mode = "serial", f = print}`, `config: f got a function, want a value`},
		{`config{"serial"}`, `config: argument names are strings, got key 1`},
		{`config("serial")`, `config: takes only named arguments, got 1 positional`},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want, "test.lua:1")
		if e.ex.Mode().String() != "mixed" || e.ex.Concurrency() != 4 || !e.ex.ValidateArguments() {
			t.Fatalf("%s changed settings: %v %d %v", tc.src, e.ex.Mode(), e.ex.Concurrency(), e.ex.ValidateArguments())
		}
	}
}

// TestDualAndSilent: a tool's dual(...) and silent(...) reach the result
// fields.
func TestDualAndSilent(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "d", fn = function() return dual("for the model", "for the person") end}
tool{name = "s", fn = function() return silent("model only") end}
tool{name = "p", fn = function() return "plain" end}
for _, n in ipairs({"d", "s", "p"}) do
  local r = invoke_tool(n)
  print(n, r.output, r.for_user, r.silent, tostring(r))
end
`)
	wantLines(t, e.lines(),
		"d\tfor the model\tfor the person\tfalse\t"+`result{ok = true, output = "for the model", for_user = "for the person"}`,
		"s\tmodel only\tmodel only\ttrue\t"+`result{ok = true, output = "model only", silent = true}`,
		"p\tplain\tplain\tfalse\t"+`result{ok = true, output = "plain"}`,
	)
	for _, tc := range []struct{ src, want string }{
		{`dual("a")`, `dual: missing argument "for_user"`},
		{`silent()`, `silent: missing argument "for_llm"`},
		{`dual({}, "b")`, "dual: for_llm got a dict, want a string"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
}

// TestResultFields: every field of a result, success and failure, and a
// missing field is an error.
func TestResultFields(t *testing.T) {
	e := newEnv(t, Options{})
	e.goTool("img", nil, func(ctx context.Context, _ map[string]any) (any, error) {
		return core.BlockOutput{Text: "a picture", Blocks: []core.Block{
			{Type: "image", MIMEType: "image/png", Data: []byte{1, 2, 3}},
			{Type: "text", Text: "caption"},
		}}, nil
	})
	e.run(`
tool{name = "ok", fn = function(args) return {got = args.x} end}
tool{name = "bad", fn = function() error("broken") end}
local r = invoke_tool("ok", {x = 1})
print(r.ok, r.output, r.for_user, r.silent, r.error, r.error_kind, json.encode(r.blocks), r.artifact, r.call_id, r.tool)
print(tostring(r))
r = invoke_tool("bad")
print(r.ok, r.output, r.error, r.error_kind, r.tool, r.call_id)
print(tostring(r))
r = invoke_tool("img")
print(r.output, json.encode(r.blocks), #r.blocks, r.blocks[1].size)
`)
	wantLines(t, e.lines(),
		"true\t"+`{"got":1}`+"\t"+`{"got":1}`+"\tfalse\tnil\tnil\t[]\tnil\tcall_1\tok",
		`result{ok = true, output = "{\"got\":1}"}`,
		"false\t\ttest.lua:3: broken\tfailed\tbad\tcall_2",
		`result{ok = false, error_kind = "failed", error = "test.lua:3: broken"}`,
		"a picture\t"+`[{"mime_type":"image/png","size":3,"type":"image"},{"mime_type":"","size":0,"text":"caption","type":"text"}]`+"\t2\t3",
	)
	err := e.runErr(`tool{name = "t", fn = function() return "" end} local r = invoke_tool("t") print(r.oops)`)
	wantContains(t, err.Error(), `result has no field "oops"`, "test.lua:1")
	err = e.runErr(`invoke_tool("t").ok = false`)
	wantContains(t, err.Error(), "test.lua:1")
}

// TestCallFields: .id .name .args .raw and tostring(call); a missing field
// is an error; a call passed on as arguments is its args.
func TestCallFields(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "t", fn = function(args) return json.encode(args) end}
before(function(call)
  print(call.id, call.name, call.args.path, call.args.list[2], call.raw)
  print(tostring(call))
  print(call.args == call.args)
end)
after(function(call, r)
  local ok, err = pcall(function() return call.nope end)
  print(ok, err)
end)
print(invoke_tool("t", {path = "a.txt", list = {"x", "y"}}).output)
`)
	wantLines(t, e.lines(),
		"call_1\tt\ta.txt\ty\t"+`{"list":["x","y"],"path":"a.txt"}`,
		`call{id = "call_1", name = "t", args = {"list":["x","y"],"path":"a.txt"}}`,
		"true",
		`false	test.lua:9: call has no field "nope"`,
		`{"list":["x","y"],"path":"a.txt"}`,
	)
}

// TestArtifactOffload: config{offload = N} offloads long outputs; the
// result carries the artifact, and artifact_read pages through it.
func TestArtifactOffload(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "big", fn = function() return string.rep("x", 50) .. string.rep("y", 50) end}
tool{name = "small", fn = function() return "tiny" end}
print(config{offload = 64}.offload)
local r = invoke_tool("big")
print(r.ok, r.artifact.size, string.sub(r.artifact.id, 1, 4), #r.artifact.id)
print(invoke_tool("small").artifact)
local page = invoke_tool("artifact_read", {id = r.artifact.id, offset = 45, limit = 10})
print(page.ok, page.output)
print(invoke_tool("artifact_read", {id = r.artifact.id, offset = 95}).output)
print(invoke_tool("artifact_read", {id = "art_0000000000000000"}).error_kind)
config{offload = 0}
print(get_tool("artifact_read"))
`)
	wantLines(t, e.lines(),
		"64",
		"true\t100\tart_\t20",
		"nil",
		"true\txxxxxyyyyy",
		"[bytes 45-55 of 100; continue with offset 55]",
		"yyyyy",
		"failed",
		"nil",
	)
}

// TestClose: after Close, a registered Lua function fails cleanly; Close
// twice is harmless.
func TestClose(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "t", fn = function() return "ran" end}
before(function(call) return nil end, "go")
`)
	e.goTool("go", nil, func(ctx context.Context, _ map[string]any) (any, error) { return "go ran", nil })
	if res := e.invoke("t", `{}`); res.ForLLM != "ran" {
		t.Fatalf("before Close: %+v", res)
	}
	e.in.Close()
	e.in.Close()
	res := e.invoke("t", `{}`)
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "the Lua interpreter is closed")
	res = e.invoke("go", `{}`)
	wantKind(t, res, core.KindRejected)
	wantContains(t, res.Err.Error(), "the Lua interpreter is closed")
}
