package starlark

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestPipelineOrder registers, in two script runs with Go hooks registered
// on the executor in between, every kind of hook and middleware, and checks
// that one pipeline runs them all in order: tool-specific before hooks,
// global before hooks, middleware (first registered outermost), the tool,
// global after hooks, tool-specific after hooks.
func TestPipelineOrder(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def t(args):
    print("tool t " + str(args["n"]))
    return "out" + str(args["n"])
tool(name = "t", fn = t)

def u(args):
    print("tool u")
    return "u"
tool(name = "u", fn = u)

def b_tool1(call):
    print("before tool-specific star1 " + call.name)
before(b_tool1, tools = ["t"])

def b_glob1(call):
    print("before global star1 " + call.name)
before(b_glob1)

def m1(call, next):
    print("mw star1 enter " + call.name)
    r = next(call)
    print("mw star1 exit " + call.name + " " + r.output)
    return r
middleware(m1)

def a_glob1(call, result):
    print("after global star1 " + call.name + " ok=" + str(result.ok))
after(a_glob1)

def a_tool1(call, result):
    print("after tool-specific star1 " + call.name)
after(a_tool1, tools = ["t"])
`)
	p := e.host.Print
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.ex.AddBefore(core.BeforeHook{Name: "go_b_tool", Tools: []string{"t"},
		Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			p("before tool-specific go " + call.Name)
			return nil, nil
		}}))
	must(e.ex.AddBefore(core.BeforeHook{Name: "go_b_glob",
		Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			p("before global go " + call.Name)
			return nil, nil
		}}))
	must(e.ex.Use(core.Middleware{Name: "go_mw",
		Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			p("mw go enter " + call.Name)
			r := next(ctx, call)
			p("mw go exit " + call.Name)
			return r
		}}))
	must(e.ex.AddAfter(core.AfterHook{Name: "go_a_glob",
		Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
			p("after global go " + call.Name)
			return nil
		}}))
	must(e.ex.AddAfter(core.AfterHook{Name: "go_a_tool", Tools: []string{"t*"},
		Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
			p("after tool-specific go " + call.Name)
			return nil
		}}))
	_, err := e.in.ExecSource(context.Background(), "part2.star", []byte(`
def b_glob2(call):
    print("before global star2 " + call.name)
before(b_glob2)

def m2(call, next):
    print("mw star2 enter " + call.name)
    r = next(call)
    print("mw star2 exit " + call.name)
    return r
middleware(m2)

def a_glob2(call, result):
    print("after global star2 " + call.name)
after(a_glob2)

def b_tool2(call):
    print("before tool-specific star2 " + call.name)
before(b_tool2, tools = "t")

def a_tool2(call, result):
    print("after tool-specific star2 " + call.name)
after(a_tool2, tools = ["t"])

print("result " + invoke_tool("t", {"n": 7}).output)
print("---")
print("result " + invoke_tool("u").output)
`))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, e.lines(),
		// stage 1: tool-specific before hooks, in registration order
		"before tool-specific star1 t",
		"before tool-specific go t",
		"before tool-specific star2 t",
		// stage 2: global before hooks, in registration order
		"before global star1 t",
		"before global go t",
		"before global star2 t",
		// stage 3: middleware, first registered outermost
		"mw star1 enter t",
		"mw go enter t",
		"mw star2 enter t",
		"tool t 7",
		"mw star2 exit t",
		"mw go exit t",
		"mw star1 exit t out7",
		// stage 4: global after hooks
		"after global star1 t ok=True",
		"after global go t",
		"after global star2 t",
		// stage 5: tool-specific after hooks
		"after tool-specific star1 t",
		"after tool-specific go t",
		"after tool-specific star2 t",
		"result out7",
		"---",
		// u matches no tool-specific hook
		"before global star1 u",
		"before global go u",
		"before global star2 u",
		"mw star1 enter u",
		"mw go enter u",
		"mw star2 enter u",
		"tool u",
		"mw star2 exit u",
		"mw go exit u",
		"mw star1 exit u u",
		"after global star1 u ok=True",
		"after global go u",
		"after global star2 u",
		"result u",
	)

	// The same pipeline applies to calls from Go.
	e.out.Reset()
	res := e.invoke("u", "")
	if !res.OK() || res.ForLLM != "u" {
		t.Fatalf("Go call of u: %+v", res)
	}
	if n := len(e.lines()); n != 13 {
		t.Fatalf("Go call ran %d pipeline steps, want 13:\n%s", n, e.out.String())
	}
}

// TestHookToolPatterns covers tools= as a list, a string, a tuple and a glob.
func TestHookToolPatterns(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def mk(name):
    def f(args):
        return name
    tool(name = name, fn = f)
for n in ["mcp__a", "mcp__b", "read", "write"]:
    mk(n)

def h_glob(call): print("glob " + call.name)
def h_str(call): print("str " + call.name)
def h_list(call): print("list " + call.name)
def h_tuple(call): print("tuple " + call.name)
def a_glob(call, result): print("after glob " + call.name)
def m_glob(call, next):
    print("mw glob " + call.name)
    return next(call)
before(h_glob, tools = ["mcp__*"])
before(h_str, tools = "read")
before(h_list, tools = ["read", "write"])
before(h_tuple, tools = ("write",))
after(a_glob, tools = "mcp__?")
middleware(m_glob, tools = ["mcp__*"])
for n in ["mcp__a", "mcp__b", "read", "write"]:
    print("call " + n + " -> " + invoke_tool(n).output)
`)
	wantLines(t, e.lines(),
		"glob mcp__a", "mw glob mcp__a", "after glob mcp__a", "call mcp__a -> mcp__a",
		"glob mcp__b", "mw glob mcp__b", "after glob mcp__b", "call mcp__b -> mcp__b",
		"str read", "list read", "call read -> read",
		"list write", "tuple write", "call write -> write",
	)

	for _, tc := range []struct{ src, want string }{
		{`before(lambda c: None, tools = [])`, "before: tools got an empty list; omit it for a global hook"},
		{`before(lambda c: None, tools = [1])`, "before: tools got a list holding an int, want names or globs (strings)"},
		{`before(lambda c: None, tools = 3)`, "before: tools got an int, want a tool name or glob, or a non-empty list of them"},
		{`before(lambda c: None, tools = ["["])`, "malformed tool pattern"},
		{`after(lambda c, r: None, tools = ["[x"])`, "malformed tool pattern"},
		{`before(3)`, "before: fn got an int, want a function"},
		{`after("x")`, "after: fn got a string, want a function"},
		{`middleware(3)`, "middleware: fn got an int, want a function(call, next) or timeout(...)/retry(...)"},
	} {
		err := e.runErr(tc.src)
		wantContains(t, err.Error(), tc.want)
	}
}

// TestDeny: deny() rejects with the reason; no middleware or tool runs; the
// after hooks still see the rejection.
func TestDeny(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def read_file(args):
    print("TOOL RAN")
    return "contents"
tool(name = "read_file", fn = read_file)

def no_env(call):
    if call.args.get("path", "").endswith(".env"):
        return deny("reading .env files is not allowed")
before(no_env, tools = ["read_file"])

def later(call):
    print("LATER BEFORE RAN")
before(later)

def mw(call, next):
    print("MIDDLEWARE RAN")
    return next(call)
middleware(mw)

def audit(call, result):
    print("audit %s ok=%s kind=%s error=%s" % (call.name, result.ok, result.error_kind, result.error))
after(audit)

r = invoke_tool("read_file", {"path": "app/.env"})
print(r.ok, r.error_kind)
print(r)
`)
	lines := e.lines()
	for _, l := range lines {
		if strings.Contains(l, "RAN") {
			t.Errorf("ran after a deny: %q", l)
		}
	}
	wantLines(t, lines,
		`audit read_file ok=False kind=rejected error=rejected by "no_env": reading .env files is not allowed`,
		"False rejected",
		`result(ok=False, error_kind="rejected", error="rejected by \"no_env\": reading .env files is not allowed")`,
	)

	// Allowed calls go all the way.
	e.out.Reset()
	res := e.invoke("read_file", `{"path":"main.go"}`)
	if !res.OK() || res.ForLLM != "contents" {
		t.Fatalf("allowed call: %+v", res)
	}
	wantLines(t, e.lines(), "LATER BEFORE RAN", "MIDDLEWARE RAN", "TOOL RAN", "audit read_file ok=True kind=None error=None")

	// A rejection is errors.Is-able and names the hook.
	res = e.invoke("read_file", `{"path":".env"}`)
	var ce *core.Error
	if !errors.As(res.Err, &ce) || ce.Kind != core.KindRejected || !strings.Contains(ce.Hook, "no_env") {
		t.Fatalf("rejection error = %#v", res.Err)
	}
}

// TestDenyFromMiddleware: a middleware may deny too; the tool does not run.
func TestDenyFromMiddleware(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def t(args):
    print("TOOL RAN")
    return "x"
tool(name = "t", fn = t)
def gate(call, next):
    if call.args.get("stop"):
        return deny("stopped by gate")
    return next(call)
middleware(gate)
r = invoke_tool("t", {"stop": True})
print(r.error_kind, r.error)
print(invoke_tool("t").output)
`)
	wantLines(t, e.lines(), `rejected rejected by "gate": stopped by gate`, "TOOL RAN", "x")
}

// TestRewrite: a rewrite is seen by later hooks, by validation and by the
// tool.
func TestRewrite(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def double(args):
    print("tool sees " + json.encode(args))
    return str(args["n"] * 2)
tool(name = "double", fn = double,
     parameters = {"type": "object", "properties": {"n": {"type": "integer"}},
                   "required": ["n"], "additionalProperties": False})
config(validate_arguments = True)

def coerce(call):
    n = call.args.get("n")
    if type(n) == "string":
        return rewrite({"n": int(n)})
before(coerce, tools = ["double"])

def spy(call):
    print("later hook sees " + call.raw + " " + json.encode(call.args))
before(spy)

r = invoke_tool("double", {"n": "21"})
print(r.ok, r.output)
`)
	wantLines(t, e.lines(),
		`later hook sees {"n":"21"} {"n":21}`, // call.raw is what was sent
		`tool sees {"n":21}`,
		"True 42",
	)

	// Validation sees the final arguments: a rewrite to something the
	// schema refuses fails with invalid_arguments, and the tool never runs.
	e.out.Reset()
	e.run(`
def breaker(call):
    if call.args.get("break"):
        return rewrite({"n": "not a number", "extra": 1})
before(breaker)
r = invoke_tool("double", {"n": 1, "break": True})
print(r.error_kind)
print(r.error)
`)
	lines := e.lines()
	if len(lines) != 3 || lines[1] != "invalid_arguments" {
		t.Fatalf("got %q", lines)
	}
	wantContains(t, lines[2], "invalid arguments for double", "/n")
	for _, l := range lines {
		if strings.HasPrefix(l, "tool sees") {
			t.Fatalf("tool ran with invalid rewritten args: %q", lines)
		}
	}

	// Without the rewrite the same arguments are refused by validation.
	e.run(`
tool(name = "double_raw", fn = lambda args: str(args["n"] * 2), parameters = get_tool("double")["parameters"])
`)
	res := e.invoke("double_raw", `{"n":"21"}`)
	wantKind(t, res, core.KindInvalidArguments)
	wantContains(t, res.Err.Error(), "/n")
}

// TestRewriteBadValues: rewrite() converts strictly and wants a dict.
func TestRewriteBadValues(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{`rewrite([1])`, "rewrite: args got a list, want a dict"},
		{`rewrite({"a": {1: 2}})`, `rewrite: args["a"]: dict key 1 is an int`},
		{`rewrite({"a": float("nan")})`, `rewrite: args["a"]: float nan is not finite`},
	} {
		wantContains(t, e.runErr(tc.src).Error(), tc.want)
	}
	// A bad rewrite built inside a hook rejects the call (fail closed).
	e.run(`
def t(args):
    return "ran"
tool(name = "t", fn = t)
def h(call):
    return rewrite({"f": lambda: 1})
before(h)
r = invoke_tool("t")
print(r.error_kind)
print(r.error)
`)
	lines := e.lines()
	if len(lines) != 2 || lines[0] != "rejected" {
		t.Fatalf("got %q", lines)
	}
	wantContains(t, lines[1], `args["f"]`, "function")
}

// TestHookFailuresReject: a before hook that returns something else, raises,
// or runs out of steps rejects the call; policies fail closed.
func TestHookFailuresReject(t *testing.T) {
	for _, tc := range []struct {
		name, hook string
		want       []string
	}{
		{"returns int", "return 42", []string{`rejected by "h"`, "returned an int", "want None, allow(reason?), ask(reason), deny(reason) or rewrite(args)"}},
		{"returns string", `return "yes"`, []string{"returned a string"}},
		{"returns True", `return True`, []string{"returned a bool"}},
		{"returns dict", `return {"a": 1}`, []string{"returned a dict"}},
		{"fail", `fail("policy broke")`, []string{`rejected by "h"`, "test.star:3:9", "fail: policy broke"}},
		{"runtime error", `return 1 // 0`, []string{`rejected by "h"`, "test.star:3:14", "division by zero"}},
		{"wrong arity", "pass\ndef h(): pass", []string{"rejected", "h"}},
		{"step budget", "while True:\n        pass", []string{`rejected by "h"`, "step budget of 20000 exceeded"}},
		{"unconvertible", "return lambda: 1", []string{"rejected", "return value", "function"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{MaxSteps: 20000})
			e.run(`
def h(call):
    ` + tc.hook + `
before(h)
def t(args):
    print("TOOL RAN")
    return "x"
tool(name = "t", fn = t)
def audit(call, result):
    print("after saw " + str(result.error_kind))
after(audit)
`)
			var res *core.Result
			bounded(t, "hook call", func() { res = e.invoke("t", "") })
			wantKind(t, res, core.KindRejected)
			wantContains(t, res.Err.Error(), tc.want...)
			wantLines(t, e.lines(), "after saw rejected")
		})
	}
}

// TestAfterHookAndMiddlewareFailures: an after hook that raises marks a
// successful call failed (keeping the output); a middleware that raises
// fails the call.
func TestAfterHookAndMiddlewareFailures(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 20000})
	e.run(`
def t(args):
    return "out"
tool(name = "t", fn = t)
tool(name = "u", fn = t)
tool(name = "v", fn = t)
def bad_after(call, result):
    fail("audit broke")
after(bad_after, tools = ["t"])
def bad_mw(call, next):
    next(call)
    fail("mw broke")
middleware(bad_mw, tools = ["u"])
def spin_mw(call, next):
    while True:
        pass
middleware(spin_mw, tools = ["v"])
def wrong_mw(call, next):
    return rewrite({})
middleware(wrong_mw, tools = ["w*"])
tool(name = "w", fn = t)
`)
	res := e.invoke("t", "")
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "after hook", "bad_after", "fail: audit broke")
	if res.ForLLM != "out" {
		t.Errorf("after hook failure lost the output: %q", res.ForLLM)
	}
	res = e.invoke("u", "")
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "fail: mw broke")
	bounded(t, "spinning middleware", func() { res = e.invoke("v", "") })
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "step budget")
	res = e.invoke("w", "")
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "rewrite(...) is for before hooks")
}

// TestMiddlewareResults: middleware may replace the output, change the
// arguments for what follows, or call next more than once.
func TestMiddlewareResults(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def echo(args):
    state.incr("echo_runs")
    return json.encode(args)
tool(name = "echo", fn = echo)
tool(name = "echo2", fn = echo)
tool(name = "echo3", fn = echo)
tool(name = "echo4", fn = echo)
def replace_output(call, next):
    r = next(call)
    return "wrapped(" + r.output + ")"
middleware(replace_output, tools = ["echo"])
def change_args(call, next):
    return next(call, {"changed": True})
middleware(change_args, tools = ["echo2"])
def twice(call, next):
    a = next(call)
    b = next(call)
    return dual(a.output + b.output, "twice")
middleware(twice, tools = ["echo3"])
def as_dict(call, next):
    return {"from": "middleware"}
middleware(as_dict, tools = ["echo4"])
print(invoke_tool("echo", {"a": 1}).output)
print(invoke_tool("echo2", {"a": 1}).output)
r = invoke_tool("echo3", {"a": 1})
print(r.output, r.for_user)
print(invoke_tool("echo4").output)
print(state.get("echo_runs"))
`)
	wantLines(t, e.lines(),
		`wrapped({"a":1})`,
		`{"changed":true}`,
		`{"a":1}{"a":1} twice`,
		`{"from":"middleware"}`,
		"4",
	)
}

// TestUnknownToolsAndInvalidArgsInHooks: global before hooks see unknown
// names (and may deny them); invalid arguments fail before any before hook
// runs, but after hooks see the failure.
func TestUnknownToolsAndInvalidArgsInHooks(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def t(args):
    return "x"
tool(name = "t", fn = t)
def log_before(call):
    print("before " + call.name)
    if call.name == "forbidden":
        return deny("no such thing, and not allowed")
before(log_before)
def log_after(call, result):
    print("after %s %s args=%s raw=%s" % (call.name, result.error_kind, json.encode(call.args), call.raw))
after(log_after)
print(invoke_tool("nope").error_kind)
print(invoke_tool("forbidden").error_kind)
print(invoke_tool("t", "[1]").error_kind)
`)
	wantLines(t, e.lines(),
		"before nope",
		"after nope unknown_tool args={} raw={}",
		"unknown_tool",
		"before forbidden",
		"after forbidden rejected args={} raw={}",
		"rejected",
		"after t invalid_arguments args={} raw=[1]",
		"invalid_arguments",
	)
}
