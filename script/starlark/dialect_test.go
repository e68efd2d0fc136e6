package starlark

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestDialect: the shell dialect allows top-level for/if/while, set(),
// recursion and global reassignment.
func TestDialect(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
total = 0
for i in range(5):
    total += i
if total == 10:
    print("for+if", total)
else:
    print("wrong total", total)
n = 0
while n < 3:
    n += 1
print("while", n)
s = set([3, 1, 2, 1])
s2 = s | set([4])
print("set", sorted(s), len(s2), 2 in s, s & set([1, 9]))
def fact(k):
    return 1 if k <= 1 else k * fact(k - 1)
print("recursion", fact(10))
def fib(k):
    if k < 2:
        return k
    return fib(k - 1) + fib(k - 2)
print("fib", fib(15))
x = 1
x = x + 1
x += 1
print("reassign", x)
def f():
    return "one"
def f():
    return "two"
print("redefine", f())
while True:
    break
for c in "abc".elems():
    if c == "b":
        continue
    print("elem", c)
`)
	wantLines(t, e.lines(),
		"for+if 10",
		"while 3",
		"set [1, 2, 3] 4 True set([1])",
		"recursion 3628800",
		"fib 610",
		"reassign 3",
		"redefine two",
		"elem a",
		"elem c",
	)
}

// TestSyntaxErrorPosition: a syntax error shows file:line:col.
func TestSyntaxErrorPosition(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{"x = (", "test.star:1:6: got end of file, want primary expression"},
		{"x = 1\ny = 2 +\n", "test.star:2:8:"},
		{"def f(:\n  pass\n", "test.star:1:8:"},
		{"print(undefined_name)\n", "test.star:1:7: undefined: undefined_name"},
		{"x = 1\n  y = 2\n", "test.star:2:"},
	} {
		err := e.runErr(tc.src)
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %q, want prefix %q", tc.src, err, tc.want)
		}
		var se *script.Error
		if !errors.As(err, &se) || se.Pos() == "" {
			t.Errorf("%q: %#v is not a positioned *script.Error", tc.src, err)
			continue
		}
		if se.Backtrace != "" || se.Detail() != se.Error() {
			t.Errorf("%q: a syntax error has no backtrace, got %q", tc.src, se.Backtrace)
		}
		var sx syntax.Error
		if strings.Contains(tc.want, "undefined") {
			continue
		}
		if !errors.As(err, &sx) {
			t.Errorf("%q: Unwrap does not reach the syntax.Error", tc.src)
		}
	}
	// Resolution errors list every problem.
	err := e.runErr("print(a)\nprint(b)\n")
	wantContains(t, err.Error(), "test.star:1:7: undefined: a", "test.star:2:7: undefined: b")
}

// TestRuntimeErrorBacktrace: a runtime error shows file:line:col and a
// backtrace with every frame, most recent call last.
func TestRuntimeErrorBacktrace(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`
def inner(x):
    return 1 // x

def middle(x):
    return inner(x) + 1

def outer():
    return middle(0)

outer()
`)
	var se *script.Error
	if !errors.As(err, &se) {
		t.Fatalf("%#v is not an *script.Error", err)
	}
	if se.Error() != "test.star:3:14: floored division by zero" {
		t.Errorf("Error() = %q", se.Error())
	}
	if se.Pos() != "test.star:3:14" || se.Msg != "floored division by zero" {
		t.Errorf("Pos %q Msg %q", se.Pos(), se.Msg)
	}
	wantDetail := strings.Join([]string{
		"Traceback (most recent call last):",
		"  test.star:11:6: in <toplevel>",
		"  test.star:9:18: in outer",
		"  test.star:6:17: in middle",
		"  test.star:3:14: in inner",
		"test.star:3:14: floored division by zero",
	}, "\n")
	if se.Detail() != wantDetail {
		t.Errorf("Detail():\n%s\nwant:\n%s", se.Detail(), wantDetail)
	}
	var ee *star.EvalError
	if !errors.As(err, &ee) {
		t.Errorf("Unwrap does not reach the *starlark.EvalError")
	}

	// An error raised by a built-in is positioned at the script's call.
	err = e.runErr(`
def f():
    return json.decode("{")
f()
`)
	if !errors.As(err, &se) || se.Pos() != "test.star:3:23" {
		t.Errorf("built-in error: %v (pos %q)", err, se.Pos())
	}
	wantContains(t, se.Detail(), "<builtin>: in json.decode", "in f")

	// fail() at top level.
	err = e.runErr(`fail("stop here")`)
	if err.Error() != "test.star:1:5: fail: stop here" {
		t.Errorf("fail: %q", err)
	}
}

// TestToolErrorPosition: a tool's error names the position in its file.
func TestToolErrorPosition(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def helper(v):
    return v["missing"]

def t(args):
    return helper(args)

tool(name = "t", fn = t)
`)
	res := e.invoke("t", `{}`)
	if res.Err == nil || res.Err.Error() != `test.star:3:13: key "missing" not in dict` {
		t.Fatalf("error = %v", res.Err)
	}
	var se *script.Error
	if !errors.As(res.Err, &se) {
		t.Fatalf("the tool's *script.Error is not in the chain: %#v", res.Err)
	}
	wantContains(t, se.Detail(), "test.star:6:18: in t", "test.star:3:13: in helper")
}
