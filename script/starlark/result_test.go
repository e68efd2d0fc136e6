package starlark

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

// TestResultFields covers every field of a result value.
func TestResultFields(t *testing.T) {
	e := newEnv(t, Options{})
	e.goTool("image", nil, func(ctx context.Context, args map[string]any) (any, error) {
		return core.BlockOutput{Text: "an image", Blocks: []core.Block{
			{Type: "image", MIMEType: "image/png", Data: []byte{1, 2, 3}},
			{Type: "text", Text: "caption"},
		}}, nil
	})
	e.run(`
tool(name = "ok", fn = lambda args: {"b": 1, "a": [True, None]})
tool(name = "bad", fn = lambda args: fail("broken"))
r = invoke_tool("ok")
print(dir(r))
for f in dir(r):
    print(f, "=", repr(getattr(r, f)))
print(bool(r), str(r))
b = invoke_tool("bad")
for f in ["ok", "output", "for_user", "silent", "error", "error_kind", "blocks", "artifact", "call_id", "tool"]:
    print("bad", f, "=", repr(getattr(b, f)))
print(bool(b), str(b))
i = invoke_tool("image")
print(i.output, i.blocks, i.artifact)
print(type(r), hasattr(r, "nope"))
`)
	got := strings.Join(e.lines(), "\n")
	got = regexp.MustCompile(`call_\d+`).ReplaceAllString(got, "call_N")
	want := strings.Join([]string{
		`["artifact", "blocks", "call_id", "data", "decisions", "error", "error_kind", "for_user", "ok", "output", "silent", "tool"]`,
		`artifact = None`,
		`blocks = []`,
		`call_id = "call_N"`,
		`data = None`,
		`decisions = [{"args_after": None, "args_before": None, "failed": False, "hook": "default", "reason": "a person's calls run unless a policy decides", "rewrote": False, "sandbox": None, "skipped": False, "source": "", "stage": "approval", "verdict": "allow"}]`,
		`error = None`,
		`error_kind = None`,
		`for_user = "{\"a\":[true,null],\"b\":1}"`,
		`ok = True`,
		`output = "{\"a\":[true,null],\"b\":1}"`,
		`silent = False`,
		`tool = "ok"`,
		`True result(ok=True, output="{\"a\":[true,null],\"b\":1}")`,
		`bad ok = False`,
		`bad output = ""`,
		`bad for_user = ""`,
		`bad silent = False`,
		`bad error = "test.star:3:42: fail: broken"`,
		`bad error_kind = "failed"`,
		`bad blocks = []`,
		`bad artifact = None`,
		`bad call_id = "call_N"`,
		`bad tool = "bad"`,
		`False result(ok=False, error_kind="failed", error="test.star:3:42: fail: broken")`,
		`an image [{"mime_type": "image/png", "size": 3, "type": "image"}, {"mime_type": "", "size": 0, "text": "caption", "type": "text"}] None`,
		`result False`,
	}, "\n")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestResultPassThrough: a tool may return another call's result; its
// output, dual/silent form, blocks and error pass on.
func TestResultPassThrough(t *testing.T) {
	e := newEnv(t, Options{})
	e.goTool("image", nil, func(ctx context.Context, args map[string]any) (any, error) {
		return core.BlockOutput{Text: "img", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{9}}}}, nil
	})
	e.run(`
tool(name = "d", fn = lambda args: dual("m", "p"))
tool(name = "s", fn = lambda args: silent("quiet"))
tool(name = "f", fn = lambda args: fail("inner failure"))
tool(name = "proxy", fn = lambda args: invoke_tool(args["to"]))
for to in ["d", "s", "f", "image", "missing"]:
    r = invoke_tool("proxy", {"to": to})
    print(to, r)
print(invoke_tool("proxy", {"to": "image"}).blocks)
`)
	wantLines(t, e.lines(),
		`d result(ok=True, output="m", for_user="p")`,
		`s result(ok=True, output="quiet", silent=True)`,
		`f result(ok=False, error_kind="failed", error="test.star:4:40: fail: inner failure")`,
		`image result(ok=True, output="img")`,
		// The proxy itself failed: its kind is failed, the message the inner one.
		`missing result(ok=False, error_kind="failed", error="unknown tool \"missing\"; registered tools: d, f, image, proxy, s")`,
		`[{"mime_type": "image/png", "size": 1, "type": "image"}]`,
	)
}

// TestResultStringDeterministic: str(result) is the same in every run and
// mode.
func TestResultStringDeterministic(t *testing.T) {
	src := `
tool(name = "j", fn = lambda args: {"z": 1, "a": {"y": [1, 2], "b": "<&>"}}, concurrency_safe = True)
tool(name = "d", fn = lambda args: dual("x\ny", "p\t\"q\""), concurrency_safe = True)
tool(name = "f", fn = lambda args: fail("err \"quoted\""), concurrency_safe = True)
for mode in ["serial", "parallel", "mixed"]:
    for r in invoke_all([("j",), ("d",), ("f",), ("nope",), ("j", "[1]")], mode = mode):
        print(r)
`
	var first string
	for i := 0; i < 3; i++ {
		e := newEnv(t, Options{})
		e.run(src)
		out := e.out.String()
		if i == 0 {
			first = out
			lines := e.lines()
			wantLines(t, lines[:5],
				`result(ok=True, output="{\"a\":{\"b\":\"<&>\",\"y\":[1,2]},\"z\":1}")`,
				`result(ok=True, output="x\ny", for_user="p\t\"q\"")`,
				`result(ok=False, error_kind="failed", error="test.star:4:40: fail: err \"quoted\"")`,
				`result(ok=False, error_kind="unknown_tool", error="unknown tool \"nope\"; registered tools: d, f, j")`,
				`result(ok=False, error_kind="invalid_arguments", error="invalid arguments for j: arguments must be a JSON object, got an array: \"[1]\"")`,
			)
			for m := 1; m < 3; m++ {
				wantLines(t, lines[m*5:m*5+5], lines[:5]...)
			}
			continue
		}
		if out != first {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, out, first)
		}
	}
}

// TestArtifactOffload: config(offload=N) moves long outputs to an artifact
// that artifact_read pages through.
func TestArtifactOffload(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
big = "".join(["line %s\n" % str(1000 + i)[1:] for i in range(50)])
tool(name = "big", fn = lambda args: big)
tool(name = "small", fn = lambda args: "tiny")
config(offload = 100)
r = invoke_tool("big")
print(r.ok, r.artifact["size"], len(big), r.artifact["id"].startswith("art_"))
print(r.output.startswith("[output stored as artifact " + r.artifact["id"] + ": 450 bytes"))
whole = invoke_tool("artifact_read", {"id": r.artifact["id"], "limit": 1000})
print(whole.output == big, whole.artifact)
page = invoke_tool("artifact_read", {"id": r.artifact["id"], "offset": 9, "limit": 9})
print(repr(page.output))
s = invoke_tool("small")
print(s.output, s.artifact)
print(invoke_tool("artifact_read", {"id": "art_0000000000000000"}).error_kind)
again = invoke_tool("big")
print(again.artifact == r.artifact)
config(offload = 0)
print(invoke_tool("big").artifact, invoke_tool("big").output == big)
`)
	wantLines(t, e.lines(),
		"True 450 450 True",
		"True",
		"True None",
		`"line 001\n\n[bytes 9-18 of 450; continue with offset 18]"`,
		"tiny None",
		"failed",
		"True",
		"None True",
	)
}

// TestFailureKinds: every failure a script can cause, with its kind.
func TestFailureKinds(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool(name = "typed", fn = lambda args: "ok",
     parameters = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
                   "required": ["n"]})
def boom(args):
    x = 1
    fail("boom at runtime")
tool(name = "boom", fn = boom)
def key_error(args):
    return args["missing"]
tool(name = "key_error", fn = key_error)
tool(name = "returns_fn", fn = lambda args: lambda: 1)
tool(name = "returns_nested_fn", fn = lambda args: {"a": [1, {"b": print}]})
tool(name = "returns_big", fn = lambda args: 1 << 70)
tool(name = "returns_inf", fn = lambda args: {"x": float("inf")})
tool(name = "returns_set", fn = lambda args: set([1]))
tool(name = "returns_deny", fn = lambda args: deny("nope"))
tool(name = "returns_rewrite", fn = lambda args: rewrite({}))
tool(name = "no_params", fn = lambda: "x")
config(validate_arguments = True)
`)
	for _, tc := range []struct {
		name, args string
		kind       core.Kind
		want       []string
	}{
		{"nope", "", core.KindUnknownTool, []string{`unknown tool "nope"`}},
		{"typed", "[1]", core.KindInvalidArguments, []string{"arguments must be a JSON object, got an array"}},
		{"typed", "{bad", core.KindInvalidArguments, []string{"arguments are not valid JSON"}},
		{"typed", `{"s": 3}`, core.KindInvalidArguments, []string{"invalid arguments for typed", "/s", "(root)"}},
		{"boom", "", core.KindFailed, []string{"test.star:7:9: fail: boom at runtime"}},
		{"key_error", "", core.KindFailed, []string{"test.star:10:16", `key "missing" not in dict`}},
		{"returns_fn", "", core.KindFailed, []string{"return value: cannot convert a function to JSON"}},
		{"returns_nested_fn", "", core.KindFailed, []string{`return value["a"][1]["b"]: cannot convert a builtin_function_or_method to JSON`}},
		{"returns_big", "", core.KindFailed, []string{"return value: integer 1180591620717411303424 does not fit in 64 bits"}},
		{"returns_inf", "", core.KindFailed, []string{`return value["x"]: float +inf is not finite`}},
		{"returns_set", "", core.KindFailed, []string{"return value: cannot convert a set to JSON"}},
		{"returns_deny", "", core.KindFailed, []string{`deny("nope") is for hooks and middleware`}},
		{"returns_rewrite", "", core.KindFailed, []string{"rewrite(...) is for before hooks"}},
		{"no_params", "", core.KindFailed, []string{"accepts no arguments"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.invoke(tc.name, tc.args)
			wantKind(t, res, tc.kind)
			wantContains(t, res.Err.Error(), tc.want...)
			if !errors.Is(res.Err, tc.kind) {
				t.Errorf("errors.Is(%v, %s) = false", res.Err, tc.kind)
			}
		})
	}

	// The same kinds, seen from a script.
	e.run(`
for name, args in [("nope", None), ("typed", "[1]"), ("typed", {"s": 3}), ("boom", None), ("returns_fn", None)]:
    r = invoke_tool(name, args)
    print(name, r.ok, r.error_kind)
`)
	wantLines(t, e.lines(),
		"nope False unknown_tool",
		"typed False invalid_arguments",
		"typed False invalid_arguments",
		"boom False failed",
		"returns_fn False failed",
	)
}

// TestToolOutputs: what a tool may return and how it becomes output.
func TestToolOutputs(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
outs = {
    "none": None,
    "str": "text",
    "int": 42,
    "float": 2.5,
    "bool": True,
    "list": [1, "a", None],
    "tuple": (1, 2),
    "dict": {"b": {"d": 1, "c": 2}, "a": "<&>"},
    "struct": struct(y = 1, x = "s"),
    "bytes": b"raw",
}
def mk(k):
    tool(name = "out_" + k, fn = lambda args: outs[k])
for k in outs:
    mk(k)
for k in outs:
    print(k, repr(invoke_tool("out_" + k).output))
`)
	wantLines(t, e.lines(),
		`none ""`,
		`str "text"`,
		`int "42"`,
		`float "2.5"`,
		`bool "true"`,
		`list "[1,\"a\",null]"`,
		`tuple "[1,2]"`,
		`dict "{\"a\":\"<&>\",\"b\":{\"c\":2,\"d\":1}}"`,
		`struct "{\"x\":\"s\",\"y\":1}"`,
		`bytes "raw"`,
	)
}

// TestToolArguments: a tool receives its arguments decoded: ints as int,
// other numbers as float, objects as dicts with sorted keys.
func TestToolArguments(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def show(args):
    return ", ".join(["%s=%s:%s" % (k, type(args[k]), repr(args[k])) for k in args])
tool(name = "show", fn = show)
`)
	res := e.invoke("show", `{"z": 1, "big": 9223372036854775807, "f": 1.5, "e": 1e3, "n": null, "b": false, "l": [1, "x"], "o": {"k": "v", "a": 0}}`)
	if !res.OK() {
		t.Fatal(res.Err)
	}
	want := `b=bool:False, big=int:9223372036854775807, e=float:1000.0, f=float:1.5, l=list:[1, "x"], n=NoneType:None, o=dict:{"a": 0, "k": "v"}, z=int:1`
	if res.ForLLM != want {
		t.Fatalf("got  %s\nwant %s", res.ForLLM, want)
	}
}
