package lua

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
)

func asError(t *testing.T, err error) *script.Error {
	t.Helper()
	var le *script.Error
	if !errors.As(err, &le) {
		t.Fatalf("%T %v is not an *script.Error", err, err)
	}
	return le
}

// TestRuntimeError: position, message, traceback and Detail.
func TestRuntimeError(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`
local function inner()
  error("went wrong")
end
local function outer() inner() end
outer()
`)
	le := asError(t, err)
	if le.Pos() != "test.lua:3" || le.Msg != "went wrong" || incomplete(le) {
		t.Fatalf("Pos %q Msg %q Incomplete %v", le.Pos(), le.Msg, incomplete(le))
	}
	if le.Error() != "test.lua:3: went wrong" {
		t.Errorf("Error() = %q", le.Error())
	}
	wantContains(t, le.Backtrace, "stack traceback:", "test.lua:3: in", "test.lua:5: in", "test.lua:6: in main chunk")
	if le.Detail() != le.Error()+"\n"+le.Backtrace {
		t.Errorf("Detail() = %q", le.Detail())
	}
	if strings.Contains(le.Msg, "test.lua") {
		t.Errorf("Msg keeps the position: %q", le.Msg)
	}

	for _, tc := range []struct{ src, pos, msg string }{
		{"local x = nil\nreturn x.field", "test.lua:2", "attempt to index a non-table object(nil) with key 'field'"},
		{"\n\nlocal n = 1 + {}", "test.lua:3", "cannot perform add operation between number and table"},
		{`error("no position", 0)`, "", "no position"},
		{`undefined_function()`, "test.lua:1", "attempt to call a non-function object"},
	} {
		le := asError(t, e.runErr(tc.src))
		if le.Pos() != tc.pos || !strings.Contains(le.Msg, tc.msg) {
			t.Errorf("%q: Pos %q Msg %q; want %q, %q", tc.src, le.Pos(), le.Msg, tc.pos, tc.msg)
		}
		if le.Backtrace == "" || le.Detail() == le.Error() {
			t.Errorf("%q: no traceback", tc.src)
		}
	}
}

// TestSyntaxError: position and Incomplete; an unfinished block is
// incomplete, other syntax errors are not.
func TestSyntaxError(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		src, pos, msg string
		incomplete    bool
	}{
		{"x = = 1", "test.lua:1", "near '='", false},
		{"print('a')\nlocal 5 = x", "test.lua:2", "near '5'", false},
		{"function f()\n  return 1", "test.lua", "at end of input", true},
		{"if true then", "test.lua", "at end of input", true},
		{"local t = {1, 2,", "test.lua", "at end of input", true},
		{"x = 'unterminated", "test.lua", "unterminated string at end of input", true},
		// gopher-lua counts the newline that ends the string first.
		{"x = 'unterminated\nprint(1)", "test.lua:2", "unterminated string", false},
		{"end", "test.lua:1", "near 'end'", false},
	} {
		le := asError(t, e.runErr(tc.src))
		if le.Pos() != tc.pos || !strings.Contains(le.Msg, tc.msg) || incomplete(le) != tc.incomplete {
			t.Errorf("%q: Pos %q Msg %q Incomplete %v; want %q, %q, %v", tc.src, le.Pos(), le.Msg, incomplete(le), tc.pos, tc.msg, tc.incomplete)
		}
		if le.Backtrace != "" || le.Detail() != le.Error() {
			t.Errorf("%q: a syntax error has a traceback: %q", tc.src, le.Backtrace)
		}
	}
	if e.out.String() != "" {
		t.Errorf("a file with a syntax error ran: %q", e.out.String())
	}
}

// TestBuiltinErrorPosition: an error raised by a built-in carries the
// position of the script line that called it.
func TestBuiltinErrorPosition(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ src, pos, msg string }{
		{"local a = 1\n\ntool{name = 'x', fn = print, bogus = 1}", "test.lua:3", `tool: unexpected argument "bogus"`},
		{"\nbefore(5)", "test.lua:2", "before: fn got an int, want a function"},
		{"\n\n\n\njson.decode('{')", "test.lua:5", "json.decode: invalid JSON"},
		{"local function f()\n  return re.search('(', 'x')\nend\nf()", "test.lua:2", "re.search:"},
		{"\ninvoke_tool('x', {f = print})", "test.lua:2", `invoke_tool: args["f"]: cannot convert a function to JSON`},
	} {
		le := asError(t, e.runErr(tc.src))
		if le.Pos() != tc.pos || !strings.HasPrefix(le.Msg, tc.msg) {
			t.Errorf("%q: Pos %q Msg %q; want %q, %q", tc.src, le.Pos(), le.Msg, tc.pos, tc.msg)
		}
	}
}

// TestToolErrorReachesResult: a Lua tool's error is a failed result whose
// message has the position, and whose error chain holds the *script.Error with
// its traceback.
func TestToolErrorReachesResult(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "bad", fn = function(args)
  local x = args.missing.field
end}
tool{name = "raises", fn = function(args)
  error("tool said no")
end}
tool{name = "caller", fn = function(args)
  local r = invoke_tool("raises")
  error(r.error, 0)
end}
`)
	res := e.invoke("bad", `{}`)
	wantKind(t, res, core.KindFailed)
	le := asError(t, res.Err)
	if le.Pos() != "test.lua:3" || !strings.Contains(le.Msg, "attempt to index a non-table object(nil) with key 'field'") {
		t.Errorf("Pos %q Msg %q", le.Pos(), le.Msg)
	}
	wantContains(t, le.Backtrace, "stack traceback:", "test.lua:3:")
	res = e.invoke("caller", `{}`)
	if res.Err == nil || res.Err.Error() != "test.lua:6: tool said no" {
		t.Errorf("nested error: %v", res.Err)
	}
}

// TestErrorValues: error() with values that are not strings.
func TestErrorValues(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print(pcall(error, {code = 1}))
print(select("#", pcall(error)))
local ok, err = pcall(function() tool{} end)
print(ok, err)
`)
	lines := e.lines()
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "false\ttable: ") || lines[1] != "2" || lines[2] != "false\ttest.lua:4: tool: missing argument \"name\"" {
		t.Fatalf("got %q", lines)
	}
	le := asError(t, e.runErr(`error(42)`))
	if le.Msg != "42" {
		t.Errorf("error(42): %q", le.Msg)
	}
	_, err := e.in.ExecSource(context.Background(), "other.lua", []byte("\nerror('x')"))
	if le := asError(t, err); le.Pos() != "other.lua:2" {
		t.Errorf("filename: %q", le.Pos())
	}
}
