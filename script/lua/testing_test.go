package lua

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// TestAssertModule: the assert module of script tests, declared once in
// package script, compares and shows values as Lua does.
func TestAssertModule(t *testing.T) {
	e := newEnv(t, Options{Testing: true})
	e.run(`
assert.eq({a = {1, 2}}, {a = {1, 2}})
assert.eq(1, 1.0)
assert.ne("1", 1)
assert["true"](0)
assert.is_true("")
assert.contains("abc", "b")
assert.contains({"x", "y"}, "y")
assert.contains({path = "x"}, "path")
assert(true, "the module is callable")
print(assert.fails(function() error("kaboom 42") end, "kaboom [0-9]+"))
print(assert.fails(function() assert.eq(1, 2) end, "got 1"))
`)
	wantLines(t, e.lines(), "kaboom 42", "assert.eq: got 1, want 2")

	for _, tc := range []struct{ src, want string }{
		{`assert.eq("a", "b")`, `assert.eq: got "a", want "b"`},
		{`assert.eq({1}, {2}, "ids")`, `assert.eq: ids: got [1], want [2]`},
		{`assert.ne(nil, nil)`, `assert.ne: got nil, want anything else`},
		{`assert["true"](false)`, `assert.true: got false, want a true value`},
		{`assert.contains("abc", "z")`, `assert.contains: "abc" does not contain "z"`},
		{`assert.fails(function() end)`, `assert.fails: the function returned, want an error`},
		{`assert.fails(function() error("x") end, "^denied")`, `want one matching "^denied"`},
		{`assert.fails(42)`, `assert.fails: fn got an int, want a function`},
	} {
		err := e.runErr(tc.src)
		wantContains(t, err.Error(), tc.want, "test.lua:1")
	}
}

// TestAssertFailsPassesTheBudgetOn: the end of the step budget inside
// assert.fails ends the script; it is not the error the test expects.
func TestAssertFailsPassesTheBudgetOn(t *testing.T) {
	e := newEnv(t, Options{Testing: true, MaxSteps: 100_000})
	var err error
	bounded(t, "runaway inside assert.fails", func() {
		err = e.exec("assert.fails(function() while true do end end)\nprint('not reached')\n")
	})
	if err == nil || !strings.Contains(err.Error(), "step budget of 100000 exceeded") {
		t.Fatalf("err = %v, want the step budget's", err)
	}
	if got := e.lines(); len(got) != 0 {
		t.Errorf("printed %q after the budget ran out", got)
	}
	// The error comes from assert.fails itself, not from the next line.
	var se *script.Error
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("err = %#v, want a *script.Error at line 1", err)
	}
}

// TestMockToolAndSkip: mock_tool and skip come from the host's testing
// API, as in Starlark: a function or a value stands in for a tool, and
// skip stops the code with an error the test runner finds.
func TestMockToolAndSkip(t *testing.T) {
	e := newEnv(t, Options{Testing: true})
	e.run(`
mock_tool("read_file", function(args) return "fake " .. args.path end)
mock_tool("fetch", {status = 200})
print(invoke_tool("read_file", {path = "a.txt"}).output)
print(invoke_tool("fetch", {url = "x"}).output)
`)
	wantLines(t, e.lines(), "fake a.txt", `{"status":200}`)

	err := e.runErr(`mock_tool("bad.name", "x")`)
	if err == nil || !strings.Contains(err.Error(), "bad.name") {
		t.Errorf("mock_tool with a bad name: %v", err)
	}
	if err := e.runErr(`mock_tool("x")`); err == nil || !strings.Contains(err.Error(), `mock_tool: missing argument "fn_or_value"`) {
		t.Errorf("mock_tool without a stand-in: %v", err)
	}
	for src, reason := range map[string]string{`skip("needs a network")`: "needs a network", `skip()`: ""} {
		var s *script.Skipped
		if err := e.runErr(src); !errors.As(err, &s) || s.Reason != reason {
			t.Errorf("%s: %v; want a skip with reason %q", src, err, reason)
		}
	}
}
