package starlark

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestStrictConversion: values crossing into Go are converted strictly,
// with the path of the offending part in the error.
func TestStrictConversion(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`tool(name = "t", fn = lambda args: "ok")`)
	for _, tc := range []struct{ src, want string }{
		{`invoke_tool("t", {"a": [1, {"b": lambda x: x}]})`, `invoke_tool: args["a"][1]["b"]: cannot convert a function to JSON`},
		{`invoke_tool("t", {"a": 1 << 70})`, `invoke_tool: args["a"]: integer 1180591620717411303424 does not fit in 64 bits`},
		{`invoke_tool("t", {"a": -(1 << 63) - 1})`, `args["a"]: integer -9223372036854775809 does not fit in 64 bits`},
		{`invoke_tool("t", {"a": {"b": float("inf")}})`, `args["a"]["b"]: float +inf is not finite and has no JSON form`},
		{`invoke_tool("t", {"a": float("-inf")})`, `args["a"]: float -inf is not finite`},
		{`invoke_tool("t", {"a": float("nan")})`, `args["a"]: float nan is not finite`},
		{`invoke_tool("t", {1: 2})`, `invoke_tool: args: dict key 1 is an int; JSON object keys must be strings`},
		{`invoke_tool("t", {"x": {(1, 2): 3}})`, `args["x"]: dict key (1, 2) is a tuple; JSON object keys must be strings`},
		{`invoke_tool("t", {"s": set([1])})`, `args["s"]: cannot convert a set to JSON`},
		{`invoke_tool("t", {"q": "a\"b", "r": {"k\"ey": [print]}})`, `args["r"]["k\"ey"][0]: cannot convert a builtin_function_or_method to JSON`},
		{`invoke_tool("t", {"m": json})`, `args["m"]: cannot convert a module to JSON`},
		{`invoke_tool("t", {"st": struct(a = struct(b = lambda: 1))})`, `args["st"].a.b: cannot convert a function to JSON`},
		{`invoke_tool("t", {"r": range(3)})`, `args["r"]: cannot convert a range to JSON`},
		{`state.set("k", {"a": [lambda: 1]})`, `state.set: ["a"][0]: cannot convert a function to JSON`},
		{`json.encode({"a": {"b": 1 << 64}})`, `json.encode: ["a"]["b"]: integer 18446744073709551616 does not fit in 64 bits`},
		{`json.encode(lambda: 1)`, `json.encode: cannot convert a function to JSON`},
		{`invoke_all([("t", {"deep": [[[float("nan")]]]})])`, `invoke_all: calls[0][1]["deep"][0][0][0]: float nan is not finite`},
	} {
		err := e.runErr(tc.src)
		wantContains(t, err.Error(), tc.want)
	}

	// The largest and smallest int64 pass; so do nested empties.
	e.run(`
tool(name = "echo", fn = lambda args: json.encode(args))
print(invoke_tool("echo", {"max": (1 << 63) - 1, "min": -(1 << 63), "e": [[], {}], "f": -0.5, "u": "ü\u2028<>"}).output)
`)
	wantLines(t, e.lines(), `{"e":[[],{}],"f":-0.5,"max":9223372036854775807,"min":-9223372036854775808,"u":"ü\u2028<>"}`)
}

// TestFreezing: registering a function freezes it and the module globals it
// sees, so tools can run on any goroutine; mutating them fails clearly.
func TestFreezing(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
L = [1]
D = {"k": 1}
def mutate_list(args):
    L.append(2)
    return "appended"
tool(name = "mutate_list", fn = mutate_list)
def mutate_dict(args):
    D["k"] = 2
    return "set"
tool(name = "mutate_dict", fn = mutate_dict)
def read(args):
    return "%d %d" % (len(L), D["k"])
tool(name = "read", fn = read)
def local_ok(args):
    mine = [1]
    mine.append(2)          # locals are the call's own
    args["added"] = True    # and so are the arguments
    return json.encode({"mine": mine, "args": args})
tool(name = "local_ok", fn = local_ok)
`)
	res := e.invoke("mutate_list", "")
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "test.star:5:13", "cannot append to frozen list")
	res = e.invoke("mutate_dict", "")
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "test.star:9:6", "cannot insert into frozen hash table")
	if res := e.invoke("read", ""); res.ForLLM != "1 1" {
		t.Errorf("read = %q (%v)", res.ForLLM, res.Err)
	}
	if res := e.invoke("local_ok", `{"x":1}`); res.ForLLM != `{"args":{"added":true,"x":1},"mine":[1,2]}` {
		t.Errorf("local_ok = %q (%v)", res.ForLLM, res.Err)
	}

	// The top level cannot mutate what a registered function sees either.
	e2 := newEnv(t, Options{})
	err := e2.runErr(`
L = [1]
tool(name = "t", fn = lambda args: str(L))
L.append(2)
`)
	wantContains(t, err.Error(), "test.star:4:9", "cannot append to frozen list")

	// The predeclared names and argv are frozen.
	e3 := newEnv(t, Options{Argv: []string{"s.star"}})
	wantContains(t, e3.runErr(`argv.append("x")`).Error(), "frozen")
}

// TestGlobalsAfterRegistration pins what a tool sees of a global that the
// top level rebinds after registering it: the new binding (Starlark
// functions read their module's global slots). Rebinding is not mutation,
// so freezing does not stop it; see TestToolRacesWithTopLevelRebinding.
func TestGlobalsAfterRegistration(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
x = "old"
tool(name = "t", fn = lambda args: x)
print(invoke_tool("t").output)
x = "new"
print(invoke_tool("t").output)
later = [1]                       # defined after registration: not frozen
def sees_later(args):
    return str(later)
tool(name = "sees_later", fn = sees_later)
`)
	wantLines(t, e.lines(), "old", "new")
	if res := e.invoke("sees_later", ""); res.ForLLM != "[1]" {
		t.Errorf("sees_later = %q (%v)", res.ForLLM, res.Err)
	}
}

// TestBytesAndStructConversion: bytes become strings, structs objects.
func TestBytesAndStructConversion(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool(name = "echo", fn = lambda args: json.encode(args))
print(invoke_tool("echo", {"b": b"bytes", "s": struct(z = 1, a = [struct(k = "v")])}).output)
`)
	wantLines(t, e.lines(), `{"b":"bytes","s":{"a":[{"k":"v"}],"z":1}}`)
	if s := e.out.String(); strings.Contains(s, "<") {
		t.Errorf("unexpected placeholder in %q", s)
	}
}
