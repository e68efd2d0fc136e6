package starlark

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// cyclicValues defines values that contain themselves.
const cyclicValues = `
l = []
l.append(l)
d = {}
d["a"] = {"b": d}
inner = []
t = (inner,)
inner.append(t)
box = []
s = struct(x = box)
box.append(s)
deep = []
for i in range(1200):
    deep = [deep]
`

// TestCyclesAndDepth: every conversion of a value that contains itself, or
// nests deeper than script.MaxDepth, fails with the path where it happens,
// instead of recursing until memory runs out.
func TestCyclesAndDepth(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`tool(name = "t", fn = lambda args: "ok")`)
	const (
		self    = " contains itself, which JSON cannot represent"
		tooDeep = "[0][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels"
	)
	for _, tc := range []struct{ src, want string }{
		{`json.encode(l)`, "json.encode: value at [0]" + self},
		{`json.encode(d)`, `json.encode: value at ["a"]["b"]` + self},
		{`json.encode(t)`, "json.encode: value at [0][0]" + self},
		{`json.encode(s)`, "json.encode: value at .x[0]" + self},
		{`json.encode_indent({"k": l})`, `json.encode_indent: value at ["k"][0]` + self},
		{`json.encode(deep)`, "json.encode: value at " + tooDeep},
		{`json.decode("[" * 1001 + "]" * 1001)`, "json.decode: value at " + tooDeep},
		{`json.decode("[" * 20000 + "]" * 20000)`, "json.decode: value is nested deeper than 1000 levels"},
		{`invoke_tool("t", d)`, `invoke_tool: value at args["a"]["b"]` + self},
		{`invoke_tool("t", {"deep": deep})`, `invoke_tool: value at args["deep"][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels`},
		{`invoke_all([("t", {"x": l})])`, `invoke_all: value at calls[0][1]["x"][0]` + self},
		{`invoke_all([{"name": "t", "args": d}])`, `invoke_all: value at calls[0]["args"]["a"]["b"]` + self},
		{`state.set("k", d)`, `state.set: value at ["a"]["b"]` + self},
		{`rewrite(d)`, `rewrite: value at args["a"]["b"]` + self},
		{`config(mode = l)`, "config: value at mode[0]" + self},
	} {
		e.out.Reset()
		err := e.runErr(cyclicValues + tc.src)
		wantContains(t, err.Error(), tc.want)
	}
}

// TestCyclicResults: a tool, hook or middleware that returns a value that
// contains itself fails the call, naming where.
func TestCyclicResults(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
def cyclic():
    d = {}
    d["me"] = [d]
    return d
tool(name = "cyc", fn = lambda args: cyclic())
tool(name = "plain", fn = lambda args: "ok")
tool(name = "guarded", fn = lambda args: "ran")
tool(name = "wrapped", fn = lambda args: "ran")
before(lambda call: cyclic(), tools = ["guarded"])
middleware(lambda call, next: cyclic(), tools = ["wrapped"])
`)
	for _, tc := range []struct {
		tool string
		kind core.Kind
	}{{"cyc", core.KindFailed}, {"guarded", core.KindRejected}, {"wrapped", core.KindFailed}} {
		res := e.invoke(tc.tool, `{}`)
		wantKind(t, res, tc.kind)
		wantContains(t, res.Err.Error(), `value at return value["me"][0] contains itself`)
		if res.ForLLM == "ran" {
			t.Errorf("%s ran", tc.tool)
		}
	}
}

// TestItemsBound: a list that appears many times over expands as it is
// converted; past script.MaxItems the conversion stops with an error.
func TestItemsBound(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`
x = [0] * 4096
y = [x] * 4096
json.encode(y)
`)
	wantContains(t, err.Error(), "json.encode: value has more than 4194304 items in all")
	// Shared, but small: fine.
	e.run(`
x = [1, 2]
print(json.encode([x, x, {"again": x}]))
`)
	wantLines(t, e.lines(), `[[1,2],[1,2],{"again":[1,2]}]`)
}

// TestArgsThatDoNotConvert: a before hook must not see {} where the tool
// sees arguments. Arguments deeper than script.MaxDepth, or with a number
// beyond a float64, make the hook fail, and so the call is rejected.
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
def no_env(call):
    if call.args.get("path", "").endswith(".env"):
        return deny("no .env")
before(no_env)
`)
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for _, args := range []string{
		`{"path": ".env", "pad": ` + deep + `}`,
		`{"path": ".env", "pad": 1e400}`,
	} {
		res := e.invoke("read", args)
		wantKind(t, res, core.KindRejected)
		if ran {
			t.Fatalf("the tool ran for %.40s…: %v", args, res.Err)
		}
	}
	wantContains(t, e.invoke("read", `{"pad": 1e400}`).Err.Error(), `call read: args["pad"]: number 1e400 is out of range`)
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
	wantContains(t, err.Error(), `cyclic: result: value at ["self"][0] contains itself`)
}

// TestDeepValueFailsFast: converting a list 200,000 levels deep stops at
// script.MaxDepth with a bounded amount of work: it once built every
// level's path string up front, quadratic in the depth, until memory ran
// out.
func TestDeepValueFailsFast(t *testing.T) {
	e := newEnv(t, Options{})
	g, err := e.in.ExecSource(context.Background(), "deep.star", []byte(`
deep = []
for i in range(200000):
    deep = [deep]
`))
	if err != nil {
		t.Fatal(err)
	}
	encode := e.in.predeclared["json"].(*starlarkstruct.Module).Members["encode"]
	thread := &star.Thread{Name: "deep"}
	args := star.Tuple{g["deep"]}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	const runs = 5
	allocs := testing.AllocsPerRun(runs, func() {
		_, err := star.Call(thread, encode, args, nil)
		if err == nil || !strings.Contains(err.Error(), "is nested deeper than 1000 levels") {
			t.Fatalf("json.encode of a 200000-deep list: %v", err)
		}
	})
	runtime.ReadMemStats(&ms1)
	bytes := (ms1.TotalAlloc - ms0.TotalAlloc) / (runs + 1) // AllocsPerRun runs once more to warm up
	if allocs > 3*script.MaxDepth || bytes > 1<<20 {
		t.Errorf("json.encode of a 200000-deep list: %.0f allocations, %d bytes per call; want at most %d and 1 MiB", allocs, bytes, 3*script.MaxDepth)
	}
}
