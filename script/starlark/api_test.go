package starlark

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestToolDefinition covers tool() and every keyword argument.
func TestToolDefinition(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def greet(args):
    return "Hello, " + args["name"]
tool(name = "greet", fn = greet, description = "Greets someone.",
     parameters = {"type": "object", "properties": {"name": {"type": "string"}},
                   "required": ["name"]},
     concurrency_safe = True, idempotent = False)
tool(name = "unsafe", fn = greet, concurrency_safe = False, idempotent = True)
tool(name = "plain", fn = greet)
print(invoke_tool("greet", {"name": "Ada"}).output)
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
		t.Errorf("plain: omitted kwargs must be undeclared/false/empty, got %+v", p)
	}

	// Duplicates are refused unless replace = True, and a replacement
	// takes effect.
	err := e.runErr(`tool(name = "greet", fn = lambda args: "again")`)
	wantContains(t, err.Error(), `tool "greet" is already registered`, "test.star:1:5")
	e.out.Reset()
	e.run(`
tool(name = "greet", fn = lambda args: "Hi " + args["name"], replace = True)
print(invoke_tool("greet", {"name": "Bob"}).output)
print(get_tool("greet")["description"] == "")
`)
	wantLines(t, e.lines(), "Hi Bob", "True")

	for _, tc := range []struct{ src, want string }{
		{`tool(name = "bad.name", fn = lambda a: "")`, `invalid tool name "bad.name"`},
		{`tool(name = "", fn = lambda a: "")`, "invalid tool name"},
		{`tool(name = "x", fn = 3)`, "fn"},
		{`tool(name = "x")`, "tool: missing argument \"fn\""},
		{`tool(name = "x", fn = lambda a: "", parameters = {"type": "string"})`, `"type": "object"`},
		{`tool(name = "x", fn = lambda a: "", parameters = {"type": "object", "properties": {"a": {"type": 5}}})`, "invalid parameters schema"},
		{`tool(name = "x", fn = lambda a: "", parameters = {"type": "object", "f": lambda: 1})`, `parameters["f"]`},
		{`tool(name = "x", fn = lambda a: "", concurrency_safe = "yes")`, "tool: concurrency_safe got a string, want a bool or nothing"},
		{`tool(name = "x", fn = lambda a: "", bogus = 1)`, "tool: unexpected argument \"bogus\"; the parameters are name, fn, description, parameters, concurrency_safe, idempotent, replace"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
	if reg.GetTool("x") != nil {
		t.Error("a failed tool() registered something")
	}
}

// TestInvokeTool covers dict args, raw JSON string args, None args and
// dedup_key.
func TestInvokeTool(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def echo(args):
    state.incr("runs")
    return json.encode(args)
tool(name = "echo", fn = echo)
middleware(retry(attempts = 2, backoff = "0s"))
print(invoke_tool("echo", {"a": [1, 2.5, None, True, "s"], "b": {"c": {}}}).output)
print(invoke_tool("echo", '{"raw": "json", "n": 9007199254740993}').output)
print(invoke_tool("echo").output)
print(invoke_tool("echo", None).output)
print(invoke_tool("echo", "").output)
print(invoke_tool(name = "echo", args = {"kw": 1}).output)
print(state.get("runs"))
a = invoke_tool("echo", {"k": 1}, dedup_key = "once")
b = invoke_tool("echo", {"k": 2}, dedup_key = "once")
print(a.output, b.output, a.call_id != b.call_id)
print(state.get("runs"))
`)
	wantLines(t, e.lines(),
		`{"a":[1,2.5,null,true,"s"],"b":{"c":{}}}`,
		`{"n":9007199254740993,"raw":"json"}`,
		"{}", "{}", "{}",
		`{"kw":1}`,
		"6",
		// The second call with the key returns the stored result.
		`{"k":1} {"k":1} True`,
		"7",
	)
	for _, tc := range []struct{ src, want string }{
		{`invoke_tool(3)`, "invoke_tool: name got an int, want a string"},
		{`invoke_tool("echo", dedup_key = 3)`, "dedup_key"},
		{`invoke_tool("echo", {"f": print})`, `invoke_tool: args["f"]: cannot convert a builtin_function_or_method to JSON`},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
}

// TestInvokeAll covers tuples and dicts, modes, concurrency and call order.
func TestInvokeAll(t *testing.T) {
	e := newEnv(t, Options{})
	// rev makes call i wait until call i+1 has finished, so in parallel
	// mode calls finish in reverse order; results must still come back in
	// call order.
	const n = 8
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	e.goTool("rev", core.Bool(true), func(ctx context.Context, args map[string]any) (any, error) {
		i := int(args["i"].(int64))
		select {
		case <-done[i+1]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		close(done[i])
		return "rev" + string(rune('0'+i)), nil
	})
	e.runBounded("invoke_all", `
rs = invoke_all([("rev", {"i": i}) for i in range(8)], mode = "parallel", concurrency = 0)
print(" ".join([r.output for r in rs]))
`)
	if out := e.out.String(); out != "rev0 rev1 rev2 rev3 rev4 rev5 rev6 rev7\n" {
		t.Fatalf("out = %q", out)
	}

	e.out.Reset()
	e.run(`
def echo(args):
    return json.encode(args)
tool(name = "echo", fn = echo, concurrency_safe = True)
calls = [
    ("echo", {"n": 1}),
    ("echo",),
    ["echo", '{"raw": 3}'],
    ("echo", {"n": 4}, "key4"),
    {"name": "echo", "args": {"n": 5}},
    {"name": "echo", "args": '{"n": 6}', "dedup_key": "k6"},
    {"name": "echo"},
    ("missing", {}),
]
for mode in ["serial", "parallel", "mixed"]:
    for conc in [0, 1, 3]:
        rs = invoke_all(calls, mode = mode, concurrency = conc)
        print(mode, conc, " ".join([r.output or r.error_kind for r in rs]))
rs = invoke_all(calls)
print("default", len(rs), rs[-1].tool, rs[-1].error_kind)
print(invoke_all([]))
`)
	var want []string
	for _, m := range []string{"serial", "parallel", "mixed"} {
		for _, c := range []string{"0", "1", "3"} {
			want = append(want, m+" "+c+` {"n":1} {} {"raw":3} {"n":4} {"n":5} {"n":6} {} unknown_tool`)
		}
	}
	want = append(want, "default 8 missing unknown_tool", "[]")
	wantLines(t, e.lines(), want...)

	for _, tc := range []struct{ src, want string }{
		{`invoke_all([("echo", {})], mode = "bogus")`, `invoke_all: unknown execution mode "bogus"`},
		{`invoke_all([("echo", {})], concurrency = -1)`, "invoke_all: concurrency got -1, want 0 (the default, 64 at a time) or more"},
		{`invoke_all([("echo", {})], concurrency = "2")`, "invoke_all: concurrency got a string, want an integer"},
		{`invoke_all([3])`, `invoke_all: call 1 of 1: got an int, want (name, args[, dedup_key]) or {name, args, dedup_key}`},
		{`invoke_all([()])`, `invoke_all: call 1 of 1: got a list of 0, want (name, args[, dedup_key])`},
		{`invoke_all([("echo", {}, "k", 4)])`, `invoke_all: call 1 of 1: got a list of 4, want (name, args[, dedup_key])`},
		{`invoke_all([(3, {})])`, "invoke_all: call 1 of 1: name got an int, want a string"},
		{`invoke_all([("echo", {}, 3)])`, "invoke_all: call 1 of 1: dedup_key got an int, want a string"},
		{`invoke_all([("echo", {}), ("echo", {"a": [lambda: 1]})])`, `calls[1][1]["a"][0]: cannot convert a function to JSON`},
		{`invoke_all([{"args": {}}])`, `invoke_all: call 1 of 1: missing "name"`},
		{`invoke_all([{"name": 3}])`, `invoke_all: call 1 of 1: name got an int, want a string`},
		{`invoke_all([{"name": "echo", "dedup_key": 1}])`, `invoke_all: call 1 of 1: dedup_key got an int, want a string`},
		{`invoke_all([{"name": "echo", "extra": 1}])`, `invoke_all: call 1 of 1: unexpected key "extra"; the keys are name, args, dedup_key`},
		{`invoke_all([{"name": "echo", "args": {"x": {1: 1}}}])`, `calls[0]["args"]["x"]: dict key 1 is an int`},
		{`invoke_all(3)`, "invoke_all: calls got an int, want a list of calls, each (name, args[, dedup_key]) or {name, args, dedup_key}"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
}

// TestInvokeAllModes checks the scheduling of each mode with overlap
// counters: parallel pools undeclared tools, mixed does not, serial never
// overlaps, and concurrency bounds the pool.
func TestInvokeAllModes(t *testing.T) {
	e := newEnv(t, Options{})
	var undeclared, alone inflight
	g := newGate(4)
	e.goTool("undeclared_wait", nil, func(ctx context.Context, args map[string]any) (any, error) {
		undeclared.enter()
		defer undeclared.leave()
		return "ok", g.Wait(ctx)
	})
	// linger keeps a call in flight for a moment, so that any call the
	// scheduler wrongly lets run alongside it is seen overlapping. A correct
	// scheduler never overlaps these calls, however long they take.
	linger := func(ctx context.Context, args map[string]any) (any, error) {
		alone.enter()
		defer alone.leave()
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
		}
		return "ok", nil
	}
	e.goTool("undeclared", nil, linger)
	e.goTool("unsafe", core.Bool(false), linger)

	// parallel: four undeclared calls overlap (the gate needs all four).
	e.runBounded("parallel", `
rs = invoke_all([("undeclared_wait", {})] * 4, mode = "parallel")
print([r.ok for r in rs])
`)
	wantLines(t, e.lines(), "[True, True, True, True]")
	if max, total := undeclared.stats(); max != 4 || total != 4 {
		t.Fatalf("parallel: max overlap %d of %d calls, want 4 of 4", max, total)
	}

	// mixed: undeclared and unsafe calls never overlap anything; serial
	// never overlaps; parallel does not pool explicitly unsafe calls.
	e.out.Reset()
	e.run(`
for mode in ["mixed", "serial"]:
    rs = invoke_all([("undeclared", {})] * 3 + [("unsafe", {})] * 3, mode = mode)
    print(mode, all([r.ok for r in rs]))
rs = invoke_all([("unsafe", {})] * 3, mode = "parallel")
print("parallel unsafe", all([r.ok for r in rs]))
`)
	wantLines(t, e.lines(), "mixed True", "serial True", "parallel unsafe True")
	if max, total := alone.stats(); max != 1 || total != 15 {
		t.Errorf("unpooled calls: max overlap %d of %d calls, want 1 of 15", max, total)
	}

	// concurrency = 2 bounds the pool: pairs meet at a gate of two, and no
	// more than two run at once.
	g2 := newGate(2)
	var bounded2 inflight
	e.goTool("pair", core.Bool(true), func(ctx context.Context, args map[string]any) (any, error) {
		bounded2.enter()
		defer bounded2.leave()
		return "ok", g2.Wait(ctx)
	})
	e.out.Reset()
	e.runBounded("bounded pool", `
rs = invoke_all([("pair", {})] * 6, mode = "mixed", concurrency = 2)
print(all([r.ok for r in rs]))
config(mode = "parallel", concurrency = 2)
rs = invoke_all([("pair", {})] * 6)
print(all([r.ok for r in rs]))
`)
	wantLines(t, e.lines(), "True", "True")
	if max, total := bounded2.stats(); max != 2 || total != 12 {
		t.Errorf("concurrency=2: max overlap %d of %d calls, want 2 of 12", max, total)
	}
}

// TestRegistryNames covers tool_names, get_tool and unregister_tool.
func TestRegistryNames(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print(tool_names())
for n in ["zeta", "Alpha", "beta", "_x", "b-2"]:
    tool(name = n, fn = lambda args: "")
print(tool_names())
tool(name = "described", fn = lambda args: "", description = "d",
     parameters = {"type": "object", "properties": {"p": {"type": "integer"}}},
     concurrency_safe = False, idempotent = True)
print(get_tool("described"))
print(get_tool("zeta"))
print(get_tool("nope"))
unregister_tool("zeta")
print(get_tool("zeta"), "zeta" in tool_names())
print(invoke_tool("zeta").error_kind)
`)
	wantLines(t, e.lines(),
		"[]",
		`["Alpha", "_x", "b-2", "beta", "zeta"]`,
		`{"concurrency_safe": False, "description": "d", "effects": {}, "idempotent": True, "name": "described", "parameters": {"properties": {"p": {"type": "integer"}}, "type": "object"}, "read_only": False}`,
		`{"concurrency_safe": None, "description": "", "effects": {}, "idempotent": False, "name": "zeta", "parameters": {"type": "object"}, "read_only": False}`,
		"None",
		"None False",
		"unknown_tool",
	)
	err := e.runErr(`unregister_tool("zeta")`)
	wantContains(t, err.Error(), `unregister tools: not registered: "zeta"`, "test.star:1:16")
	// tool_names returns a fresh list each time.
	e.out.Reset()
	e.run(`
l = tool_names()
l.append("mine")
print("mine" in tool_names())
`)
	wantLines(t, e.lines(), "False")
}

// TestConfig covers config(): it returns the settings and changes them.
func TestConfig(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print(config())
print(config(mode = "parallel", concurrency = 4, validate_arguments = True, offload = 1000))
print(config(mode = "MIXED"))
print(config(offload = 0, validate_arguments = False, concurrency = 0, mode = "serial"))
print(config(permissions = "deny-unlisted")["permissions"], config(permissions = "allow-all")["permissions"], config(permissions = "default")["permissions"])
`)
	wantLines(t, e.lines(),
		`{"concurrency": 0, "mode": "serial", "offload": 0, "permissions": "default", "secret_files": [], "validate_arguments": False}`,
		`{"concurrency": 4, "mode": "parallel", "offload": 1000, "permissions": "default", "secret_files": [], "validate_arguments": True}`,
		`{"concurrency": 4, "mode": "mixed", "offload": 1000, "permissions": "default", "secret_files": [], "validate_arguments": True}`,
		`{"concurrency": 0, "mode": "serial", "offload": 0, "permissions": "default", "secret_files": [], "validate_arguments": False}`,
		"deny-unlisted allow-all default",
	)
	e.run(`config(mode = "mixed", concurrency = 3, validate_arguments = True)`)
	if e.ex.Mode() != executor.ModeMixed || e.ex.Concurrency() != 3 || !e.ex.ValidateArguments() {
		t.Fatalf("executor settings: mode %v concurrency %d validate %v", e.ex.Mode(), e.ex.Concurrency(), e.ex.ValidateArguments())
	}
	for _, tc := range []struct{ src, want string }{
		{`config(mode = "bogus")`, `config: mode: unknown execution mode "bogus": want serial, parallel or mixed`},
		{`config(mode = 1)`, `config: mode: want "serial", "parallel" or "mixed", got an int`},
		{`config(concurrency = -1)`, "config: concurrency: got -1, want 0 (the default, 64 at a time) or more"},
		{`config(concurrency = "2")`, `config: concurrency: got "2", want 0 (the default, 64 at a time) or more`},
		{`config(concurrency = 1 << 40)`, "config: concurrency: got 1099511627776, want 0 (the default, 64 at a time) or more"},
		{`config(validate_arguments = 1)`, "config: validate_arguments: want True or False, got an int"},
		{`config(offload = -5)`, "config: offload: got -5, want 0 (off) or a size in bytes"},
		{`config(offload = 1.5)`, "config: offload: got 1.5, want 0 (off) or a size in bytes"},
		{`config(bogus = 1)`, `config: unknown setting "bogus"; the settings are concurrency, mode, offload, permissions, secret_files, validate_arguments`},
		{`config("mixed")`, "config: takes only named arguments, got 1 positional"},
		{`config(mode = lambda: 1)`, "config: mode got a function, want a value"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
	if e.ex.Mode() != executor.ModeMixed || e.ex.Concurrency() != 3 {
		t.Fatalf("failed config calls changed settings: mode %v concurrency %d", e.ex.Mode(), e.ex.Concurrency())
	}
}

// TestDualSilent: dual and silent map to for_user and silent.
func TestDualSilent(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool(name = "d", fn = lambda args: dual("for the model", "for the person"))
tool(name = "s", fn = lambda args: silent("model only"))
tool(name = "kw", fn = lambda args: dual(for_llm = "m", for_user = "p"))
tool(name = "skw", fn = lambda args: silent(for_llm = "q"))
for n in ["d", "s", "kw", "skw"]:
    r = invoke_tool(n)
    print(n, r.output, "|", r.for_user, "|", r.silent, "|", r)
print(dual("a", "b"), silent("c"))
`)
	wantLines(t, e.lines(),
		`d for the model | for the person | False | result(ok=True, output="for the model", for_user="for the person")`,
		`s model only | model only | True | result(ok=True, output="model only", silent=True)`,
		`kw m | p | False | result(ok=True, output="m", for_user="p")`,
		`skw q | q | True | result(ok=True, output="q", silent=True)`,
		`dual("a", "b") silent("c")`,
	)
	res := e.invoke("d", "")
	if res.ForLLM != "for the model" || res.ForUser != "for the person" || res.Silent {
		t.Errorf("d: %+v", res)
	}
	res = e.invoke("s", "")
	if res.ForLLM != "model only" || res.ForUser != "" || !res.Silent {
		t.Errorf("s: %+v", res)
	}
	for _, src := range []string{`dual("only one")`, `silent()`, `dual(1, "x")`} {
		e.runErr(src)
	}
}

// TestTimeoutMiddleware: timeout() gives a Starlark tool stuck in a loop a
// deadline; the call ends with kind timeout.
func TestTimeoutMiddleware(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def spin(args):
    while True:
        pass
tool(name = "spin", fn = spin)
tool(name = "quick", fn = lambda args: "fast")
middleware(timeout("50ms"), tools = ["spin"])
`)
	var res *core.Result
	bounded(t, "timeout", func() { res = e.invoke("spin", "") })
	wantKind(t, res, core.KindTimeout)
	if !errors.Is(res.Err, core.ErrTimeout) {
		t.Errorf("errors.Is(err, ErrTimeout) = false for %v", res.Err)
	}
	wantContains(t, res.Err.Error(), "spin timed out", "Starlark computation cancelled: timed out")
	if r := e.invoke("quick", ""); !r.OK() || r.ForLLM != "fast" {
		t.Errorf("quick: %+v", r)
	}
	// From a script too, with a number of seconds.
	e.run(`
middleware(timeout(0.05), tools = ["spin2"])
def spin2(args):
    while True:
        pass
tool(name = "spin2", fn = spin2)
r = invoke_tool("spin2")
print(r.error_kind)
`)
	wantLines(t, e.lines(), "timeout")

	for _, tc := range []struct{ src, want string }{
		{`timeout("0s")`, `timeout: duration got 0s, want more than 0, such as "500ms" or "2s"`},
		{`timeout("-1s")`, "timeout: duration got \"-1s\", want a duration such as \"2s\" or a number of seconds, from 0 to about 292 years"},
		{`timeout("soon")`, `timeout: duration got "soon", want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`timeout(0)`, "timeout: duration got 0s, want more than 0, such as \"500ms\" or \"2s\""},
		{`timeout([1])`, `timeout: duration got a list, want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`timeout()`, "timeout: missing argument \"duration\""},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
	e.out.Reset()
	e.run(`print(timeout("2s"), timeout(time.second * 3))`)
	wantLines(t, e.lines(), "<middleware timeout(2s)> <middleware timeout(3s)>")
}

// TestRetryMiddleware: retry re-runs only idempotent tools (or calls with a
// dedup key), and only failed/timeout results.
func TestRetryMiddleware(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def flaky(args):
    n = state.incr(args["key"])
    if n < 3:
        fail("flaky attempt %d" % n)
    return "ok after %d" % n
tool(name = "idem", fn = flaky, idempotent = True)
tool(name = "once", fn = flaky)
def always(args):
    state.incr("always")
    fail("always fails")
tool(name = "always", fn = always, idempotent = True)
def deny_it(call):
    if call.name == "denied":
        state.incr("denied_hook")
        return deny("no")
before(deny_it)
tool(name = "denied", fn = flaky, idempotent = True)
middleware(retry(attempts = 3, backoff = "0s"))

r = invoke_tool("idem", {"key": "idem"})
print("idem", r.ok, r.output, state.get("idem"))
r = invoke_tool("once", {"key": "once"})
print("once", r.ok, r.error_kind, state.get("once"))
r = invoke_tool("once", {"key": "dedup"}, dedup_key = "k")
print("once+key", r.ok, r.output, state.get("dedup"))
r = invoke_tool("always", {"key": "x"})
print("always", r.error_kind, state.get("always"))
r = invoke_tool("denied", {"key": "denied"})
print("denied", r.error_kind, state.get("denied_hook"), state.get("denied", 0))
r = invoke_tool("idem", {})
print("bad args", r.error_kind)
`)
	wantLines(t, e.lines(),
		"idem True ok after 3 3",
		"once False failed 1",
		"once+key True ok after 3 3",
		"always failed 3",
		"denied rejected 1 0",
		"bad args failed",
	)

	for _, tc := range []struct{ src, want string }{
		{`retry(attempts = 0)`, "retry: attempts got 0, want 1 or more"},
		{`retry(backoff = "later")`, `retry: backoff got "later", want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`retry(backoff = "-1s")`, `retry: backoff got "-1s", want a duration such as "2s" or a number of seconds, from 0 to about 292 years`},
		{`retry(backoff = [])`, "retry: backoff got a list, want a duration such as \"2s\" or a number of seconds, from 0 to about 292 years"},
		{`retry(attempts = "3")`, "attempts"},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
	e.out.Reset()
	e.run(`print(retry(), retry(attempts = 5, backoff = 0), retry(backoff = "10ms"))`)
	wantLines(t, e.lines(), "<middleware retry(attempts=3, backoff=100ms)> <middleware retry(attempts=5, backoff=-1ns)> <middleware retry(attempts=3, backoff=10ms)>")
}

// TestCallValue covers what hooks see of a call.
func TestCallValue(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool(name = "t", fn = lambda args: json.encode(args))
def h(call):
    print(call.id, call.name, call.raw, call.args, type(call), dir(call))
    print(call)
    call.args["mutated"] = True   # a copy: no effect without rewrite
before(h)
print(invoke_tool("t", '{"b": [1, 2], "a": "x"}').output)
`)
	lines := e.lines()
	if len(lines) != 3 {
		t.Fatalf("got %q", lines)
	}
	if !strings.HasPrefix(lines[0], "call_") {
		t.Errorf("call.id: %q", lines[0])
	}
	wantContains(t, lines[0], ` t {"b": [1, 2], "a": "x"} {"a": "x", "b": [1, 2]} call ["agent", "args", "effects", "id", "name", "origin", "parent_agent", "raw", "sandbox", "workdir"]`)
	wantContains(t, lines[1], `call(id="call_`, `name="t", args={"a":"x","b":[1,2]})`)
	if lines[2] != `{"a":"x","b":[1,2]}` {
		t.Errorf("mutating call.args changed the call: %q", lines[2])
	}
	err := e.runErr(`
def h2(call):
    return call.nope
before(h2)
r = invoke_tool("t")
fail(r.error)
`)
	wantContains(t, err.Error(), "call has no .nope field or method")
}
