package starlark

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
)

func testingEnv(t *testing.T, opts Options, exOpts ...executor.Option) *env {
	opts.Testing = true
	if opts.Now == nil {
		opts.Now = func() time.Time { return script.TestClock }
	}
	return newEnv(t, opts, exOpts...)
}

// scriptErr requires err to be an *script.Error and returns it.
func scriptErr(t *testing.T, err error) *script.Error {
	t.Helper()
	var se *script.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a *starlark.Error", err, err)
	}
	return se
}

// wantFailure runs src, which must fail at pos with msg ("" checks only
// the position).
func (e *env) wantFailure(src, pos, msg string) *script.Error {
	e.t.Helper()
	se := scriptErr(e.t.(*testing.T), e.runErr(src))
	if se.Pos() != pos || (msg != "" && se.Msg != msg) {
		e.t.Errorf("error:\n got %s: %s\nwant %s: %s", se.Pos(), se.Msg, pos, msg)
	}
	return se
}

func TestTestingNamesOnlyWhenAsked(t *testing.T) {
	plain := newEnv(t, Options{})
	for _, name := range []string{"assert", "mock_tool", "skip"} {
		err := plain.runErr(name)
		wantContains(t, err.Error(), "undefined: "+name)
	}
	e := testingEnv(t, Options{})
	names := strings.Join(e.in.Names(), " ")
	wantContains(t, names, "assert", "mock_tool", "skip")
}

func TestAssertEqNe(t *testing.T) {
	e := testingEnv(t, Options{})
	e.run(`
assert.eq(1, 1)
assert.eq(1, 1.0)
assert.eq({"a": [1, (2, 3)]}, {"a": [1, (2, 3)]})
assert.eq(got = "x", want = "x", msg = "keywords")
assert.ne(1, 2)
assert.ne([1], (1,))
assert.ne("1", 1)
`)
	e.wantFailure("x = 1\nassert.eq(x, 2)", "test.star:2:10", "assert.eq: got 1, want 2")
	se := e.wantFailure(`assert.eq({"k": "v"}, {"k": "w"}, "config")`, "test.star:1:10",
		`assert.eq: config: got {"k": "v"}, want {"k": "w"}`)
	var ae *script.AssertionError
	if !errors.As(se, &ae) || ae.Func != "assert.eq" || ae.Msg != "config" {
		t.Errorf("errors.As(*script.AssertionError) = %+v", ae)
	}
	// The message may be None (no message) or any value (shown with str).
	e.wantFailure(`assert.eq(1, 2, None)`, "test.star:1:10", "assert.eq: got 1, want 2")
	e.wantFailure(`assert.eq(1, 2, ("call", 3))`, "test.star:1:10", `assert.eq: ("call", 3): got 1, want 2`)
	e.wantFailure(`assert.ne([1], [1], "lists")`, "test.star:1:10", "assert.ne: lists: got [1], want anything else")
	// A failure inside a helper is reported where it happens, with the
	// caller in the backtrace.
	se = e.wantFailure("def check(v):\n    assert.eq(v, 0)\n\ncheck(5)\n", "test.star:2:14", "assert.eq: got 5, want 0")
	wantContains(t, se.Detail(), "test.star:4:6: in <toplevel>", "test.star:2:14: in check")
	// Wrong use is an error too, named after the assertion.
	e.wantFailure("assert.eq(1)", "test.star:1:10", `assert.eq: missing argument "want"`)
}

func TestAssertTrue(t *testing.T) {
	e := testingEnv(t, Options{})
	e.run(`
assert.true(True)
assert.true([0])
assert.is_true("x", "non-empty")
assert.true(True, None)
`)
	e.wantFailure(`assert.true(0)`, "test.star:1:12", "assert.true: got 0, want a true value")
	e.wantFailure(`assert.is_true([], "items")`, "test.star:1:15", "assert.is_true: items: got [], want a true value")
	e.wantFailure(`assert.true(None, msg = "none")`, "test.star:1:12", "assert.true: none: got None, want a true value")
	e.wantFailure(`assert.true(False, None)`, "test.star:1:12", "assert.true: got False, want a true value")
}

func TestAssertContains(t *testing.T) {
	e := testingEnv(t, Options{})
	e.run(`
assert.contains("hello world", "lo w")
assert.contains([1, "two", {"k": 3}], {"k": 3})
assert.contains((1, 2), 2.0)
assert.contains({"path": "x"}, "path")
`)
	e.wantFailure(`assert.contains("abc", "z")`, "test.star:1:16", `assert.contains: "abc" does not contain "z"`)
	e.wantFailure(`assert.contains([1, 2], 3, "ids")`, "test.star:1:16", `assert.contains: ids: [1, 2] does not contain 3`)
	e.wantFailure(`assert.contains({"a": 1}, "b")`, "test.star:1:16", `assert.contains: {"a": 1} does not contain "b"`)
	e.wantFailure(`assert.contains(5, 5)`, "test.star:1:16", `assert.contains: want a string, list or dict to look in, got int`)
	e.wantFailure(`assert.contains("abc", 1)`, "test.star:1:16", `assert.contains: a string contains strings, got int`)
	e.wantFailure(`assert.contains(("a", "b"), "c")`, "test.star:1:16", `assert.contains: ("a", "b") does not contain "c"`)
}

func TestAssertFails(t *testing.T) {
	e := testingEnv(t, Options{})
	e.run(`
def boom():
    fail("kaboom 42")
msg = assert.fails(boom, r"kaboom \d+")
print(msg)
print(assert.fails(lambda: {}["missing"]))
print(assert.fails(lambda: assert.eq(1, 2), "got 1"))
`)
	wantLines(t, e.lines(), "fail: kaboom 42", `key "missing" not in dict`, "assert.eq: got 1, want 2")

	e.wantFailure("assert.fails(lambda: None)", "test.star:1:13", "assert.fails: the function returned, want an error")
	e.wantFailure(`assert.fails(lambda: None, "denied")`, "test.star:1:13", `assert.fails: the function returned, want an error matching "denied"`)
	e.wantFailure(`assert.fails(lambda: fail("x"), "^denied")`, "test.star:1:13", `assert.fails: got error "fail: x", want one matching "^denied"`)
	se := e.wantFailure(`assert.fails(lambda: fail("x"), "(")`, "test.star:1:13", "")
	wantContains(t, se.Msg, `assert.fails: pattern "(": error parsing regexp`)
}

// TestAssertFailsBudget: a runaway function is stopped by the step budget,
// and assert.fails does not take that for the error it expects.
func TestAssertFailsBudget(t *testing.T) {
	e := testingEnv(t, Options{MaxSteps: 10000})
	var err error
	bounded(t, "runaway inside assert.fails", func() {
		err = e.exec("def spin():\n    while True:\n        pass\n\nassert.fails(spin)\nprint('not reached')\n")
	})
	se := scriptErr(t, err)
	wantContains(t, se.Msg, "step budget of 10000 exceeded")
	if e.out.String() != "" {
		t.Errorf("output %q, want none", e.out.String())
	}

	// A cancelled context is passed on the same way.
	e = testingEnv(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	e.goTool("cancel", nil, func(context.Context, map[string]any) (any, error) { cancel(); return "", nil })
	bounded(t, "cancelled inside assert.fails", func() {
		_, err = e.in.ExecSource(ctx, "test.star", []byte(`
def spin():
    invoke_tool("cancel")
    while True:
        pass
assert.fails(spin)
print("not reached")
`))
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one matching context.Canceled", err)
	}
	if e.out.String() != "" {
		t.Errorf("output %q, want none", e.out.String())
	}
}

func TestMockTool(t *testing.T) {
	e := testingEnv(t, Options{}, executor.WithValidateArguments(true))
	e.run(`
tool(name = "read_file", fn = lambda args: "real", description = "Reads.",
     parameters = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
     idempotent = True, concurrency_safe = True)
mock_tool("read_file", lambda args: "fake " + args["path"])
print(invoke_tool("read_file", {"path": "a.txt"}).output)
r = invoke_tool("read_file", {})
print(r.error_kind)
info = get_tool("read_file")
print(info["description"], info["idempotent"], info["concurrency_safe"])

mock_tool("fetch", {"status": 200})
print(invoke_tool("fetch", {"url": "x"}).output)
print(get_tool("fetch")["description"])
mock_tool("fetch", dual("for the model", "for the person"))
r = invoke_tool("fetch")
print(r.output, "|", r.for_user)

def flaky(args):
    fail("network down")
mock_tool("fetch", flaky)
r = invoke_tool("fetch")
print(r.ok, r.error_kind)
`)
	wantLines(t, e.lines(),
		"fake a.txt",
		"invalid_arguments",
		"Reads. True True",
		`{"status":200}`,
		"mock",
		"for the model | for the person",
		"False failed",
	)
	e.wantFailure(`mock_tool("bad.name", "x")`, "test.star:1:10", "")
	e.wantFailure(`mock_tool("x", 2.5, 1)`, "test.star:1:10", "mock_tool: got 3 arguments, want at most 2")
	se := e.wantFailure(`mock_tool("x", {1: 2})`, "test.star:1:10", "")
	wantContains(t, se.Msg, "mock_tool: dict key 1 is an int")
}

func TestMockToolFromGo(t *testing.T) {
	e := testingEnv(t, Options{})
	e.goTool("bash", core.Bool(false), func(context.Context, map[string]any) (any, error) { return "real", nil })
	e.run(`mock_tool("bash", lambda args: "mocked: " + args["command"])`)
	if r := e.invoke("bash", `{"command":"ls"}`); r.ForLLM != "mocked: ls" {
		t.Errorf("bash output %q (err %v)", r.ForLLM, r.Err)
	}
	if safe := e.host.GetTool("bash")["concurrency_safe"]; safe != false {
		t.Errorf("concurrency_safe = %v, want false kept from the real tool", safe)
	}
}

func TestSkip(t *testing.T) {
	e := testingEnv(t, Options{})
	err := e.runErr("print('before')\nskip('needs a network')\nprint('after')")
	var s *script.Skipped
	if !errors.As(err, &s) || s.Reason != "needs a network" {
		t.Fatalf("errors.As(*script.Skipped) failed on %v", err)
	}
	se := scriptErr(t, err)
	if se.Pos() != "test.star:2:5" || se.Msg != "skipped: needs a network" {
		t.Errorf("skip error %s: %s", se.Pos(), se.Msg)
	}
	wantLines(t, e.lines(), "before")
	// The reason is optional, as in Lua.
	if err := e.runErr("skip()"); !errors.As(err, &s) || s.Reason != "" {
		t.Errorf("skip() gave %v; want a skip with no reason", err)
	}
	e.wantFailure("skip(1)", "test.star:1:5", "skip: reason got an int, want a string")
}

func TestTestingClock(t *testing.T) {
	e := testingEnv(t, Options{})
	e.run("print(time.now())\nprint(time.now().unix)")
	wantLines(t, e.lines(), "2025-01-01 00:00:00 +0000 UTC", "1735689600")
}

func TestTestNamesAndCall(t *testing.T) {
	e := testingEnv(t, Options{MaxSteps: 10000})
	g, err := e.in.ExecSource(context.Background(), "x_test.star", []byte(`
def test_b():
    print("b ran")
def test_a():
    assert.eq(1 + 1, 3)
def helper():
    pass
test_value = 3
test_builtin = len
def test_spin():
    while True:
        pass
def test_args(x):
    pass
`))
	if err != nil {
		t.Fatal(err)
	}
	e.in.Define(g)
	var tests []string
	for _, name := range e.in.Functions() {
		if strings.HasPrefix(name, "test_") {
			tests = append(tests, name)
		}
	}
	if got, want := strings.Join(tests, " "), "test_a test_args test_b test_builtin test_spin"; got != want {
		t.Errorf("test functions = %s, want %s", got, want)
	}

	ctx := context.Background()
	if _, err := e.in.Call(ctx, g["test_b"]); err != nil {
		t.Errorf("test_b: %v", err)
	}
	wantLines(t, e.lines(), "b ran")

	_, err = e.in.Call(ctx, g["test_a"])
	se := scriptErr(t, err)
	if se.Pos() != "x_test.star:5:14" || se.Msg != "assert.eq: got 2, want 3" {
		t.Errorf("test_a: %s: %s", se.Pos(), se.Msg)
	}
	wantContains(t, se.Detail(), "Traceback (most recent call last):", "x_test.star:5:14: in test_a")

	v, err := e.in.Call(ctx, g["test_builtin"], star.String("abc"))
	if err != nil || v != star.MakeInt(3) {
		t.Errorf("Call(len, \"abc\") = %v, %v", v, err)
	}

	_, err = e.in.Call(ctx, g["test_args"])
	wantContains(t, scriptErr(t, err).Msg, "missing 1 argument (x)")

	_, err = e.in.Call(ctx, g["test_value"])
	if err == nil || err.Error() != "call: want a function, got int" {
		t.Errorf("Call(int) = %v", err)
	}

	// Each call has the step budget of Options.MaxSteps.
	bounded(t, "test_spin", func() { _, err = e.in.Call(ctx, g["test_spin"]) })
	se = scriptErr(t, err)
	wantContains(t, se.Msg, "step budget of 10000 exceeded")
	if !strings.HasPrefix(se.Pos(), "x_test.star:") {
		t.Errorf("budget error at %q, want a position in x_test.star", se.Pos())
	}

	// A context that ends stops the call; errors.Is sees the cause.
	e2 := testingEnv(t, Options{})
	g, err = e2.in.ExecSource(ctx, "y_test.star", []byte("def test_spin():\n    while True:\n        pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	bounded(t, "test_spin with a deadline", func() { _, err = e2.in.Call(tctx, g["test_spin"]) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want one matching context.DeadlineExceeded", err)
	}
	wantContains(t, scriptErr(t, err).Msg, "timed out")
}
