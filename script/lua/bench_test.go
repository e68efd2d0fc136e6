package lua

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
	lua "github.com/yuin/gopher-lua"
)

// The shapes are those of script/starlark/bench_test.go, so the figures
// compare.

var benchArgs = json.RawMessage(`{"path":"src/main.go","limit":10}`)

func benchEnv(b *testing.B, src string) *env {
	b.Helper()
	e := newEnv(b, Options{})
	if err := e.ex.Registry().RegisterTools(core.Tool{Name: "noop",
		Func: func(ctx context.Context, args json.RawMessage) (any, error) { return "ok", nil }}); err != nil {
		b.Fatal(err)
	}
	if src != "" {
		if err := e.exec(src); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func benchInvoke(b *testing.B, e *env, name, want string) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.ex.InvokeTool(ctx, name, benchArgs)
		if err != nil || res.ForLLM != want {
			b.Fatalf("%s: %q, %v", name, res.ForLLM, err)
		}
	}
}

// BenchmarkGoToolNoHook is the baseline: a Go no-op tool through the
// pipeline with no hook.
func BenchmarkGoToolNoHook(b *testing.B) {
	e := benchEnv(b, "")
	benchInvoke(b, e, "noop", "ok")
}

// BenchmarkLuaBeforeHook: the same call with one Lua before hook that
// returns nil.
func BenchmarkLuaBeforeHook(b *testing.B) {
	e := benchEnv(b, `
local function allow(call)
  return nil
end
before(allow)
`)
	benchInvoke(b, e, "noop", "ok")
}

// BenchmarkLuaBeforeHookReadsArgs: a more typical policy hook that looks
// at an argument.
func BenchmarkLuaBeforeHookReadsArgs(b *testing.B) {
	e := benchEnv(b, `
local function no_env(call)
  local path = call.args.path or ""
  if path:sub(-4) == ".env" then
    return deny("no")
  end
end
before(no_env)
`)
	benchInvoke(b, e, "noop", "ok")
}

const helloTool = `
local function hello(args)
  return "hello"
end
tool{name = "hello", fn = hello, concurrency_safe = true}
`

// BenchmarkLuaTool: a Lua-defined tool that returns a string.
func BenchmarkLuaTool(b *testing.B) {
	e := benchEnv(b, helloTool)
	benchInvoke(b, e, "hello", "hello")
}

// BenchmarkLuaToolParallel: the same tool called from every P at once;
// the calls take turns in the interpreter.
func BenchmarkLuaToolParallel(b *testing.B) {
	e := benchEnv(b, helloTool)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := e.ex.InvokeTool(ctx, "hello", benchArgs)
			if err != nil || res.ForLLM != "hello" {
				b.Errorf("hello: %q, %v", res.ForLLM, err)
				return
			}
		}
	})
}

// The batch benchmarks run 64 calls of a tiny tool ("hello") and of a tool
// that computes for a while ("work", a loop of 5000 additions), in parallel
// and in serial mode. The tiny tool shows the overhead; the busy one shows
// what serializing Lua costs: Starlark's parallel batch can use every core,
// Lua's cannot.
const (
	luaBatchTools = helloTool + `
tool{name = "work", concurrency_safe = true, fn = function(args)
  local s = 0
  for i = 1, 5000 do s = s + i end
  return "hello"
end}
`
	starlarkBatchTools = `
def hello(args):
    return "hello"
tool(name = "hello", fn = hello, concurrency_safe = True)

def work(args):
    s = 0
    for i in range(5000):
        s += i
    return "hello"
tool(name = "work", fn = work, concurrency_safe = True)
`
)

func batch64(name string) []core.Call {
	calls := make([]core.Call, 64)
	for i := range calls {
		calls[i] = core.Call{Name: name, Args: benchArgs}
	}
	return calls
}

func benchBatch(b *testing.B, ex *executor.Executor, name string, mode executor.Mode) {
	b.Helper()
	ctx := context.Background()
	calls := batch64(name)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range ex.ExecuteAll(ctx, calls, executor.InMode(mode)) {
			if r.ForLLM != "hello" {
				b.Fatalf("%s: %q, %v", name, r.ForLLM, r.Err)
			}
		}
	}
}

// runBatches runs the batch sub-benchmarks on the host that setup makes.
func runBatches(b *testing.B, setup func(b *testing.B) *env) {
	for _, tool := range []string{"hello", "work"} {
		for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeSerial} {
			b.Run(tool+"/"+mode.String(), func(b *testing.B) {
				benchBatch(b, setup(b).ex, tool, mode)
			})
		}
	}
}

// BenchmarkExecuteAllLua64: 64 Lua tool calls in one ExecuteAll.
func BenchmarkExecuteAllLua64(b *testing.B) {
	runBatches(b, func(b *testing.B) *env { return benchEnv(b, luaBatchTools) })
}

// BenchmarkExecuteAllStarlark64: the same batches of Starlark tools, whose
// calls do run in parallel, for comparison.
func BenchmarkExecuteAllStarlark64(b *testing.B) {
	runBatches(b, func(b *testing.B) *env {
		e := benchEnv(b, "")
		st := starlark.New(e.host, starlark.Options{})
		if _, err := st.ExecSource(context.Background(), "bench.star", []byte(starlarkBatchTools)); err != nil {
			b.Fatal(err)
		}
		return e
	})
}

// BenchmarkLuaFuncArgs: a Lua tool's function called with its arguments
// as the host has them: decoded JSON shapes, or the JSON text (RawJSON),
// which decodes straight into Lua values.
func BenchmarkLuaFuncArgs(b *testing.B) {
	e := benchEnv(b, "")
	g, err := e.in.ExecSource(context.Background(), "bench.lua", []byte(`function echo(args) return args.path end`))
	if err != nil {
		b.Fatal(err)
	}
	f := &luaFunc{in: e.in, fn: g.env.RawGetString("echo").(*lua.LFunction), name: "echo"}
	ctx := context.Background()
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			args, _ := script.DecodeJSON(benchArgs)
			if out, err := f.Call(ctx, args); err != nil || out != "src/main.go" {
				b.Fatalf("%v, %v", out, err)
			}
		}
	})
	b.Run("rawjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out, err := f.Call(ctx, script.RawJSON{Text: benchArgs}); err != nil || out != "src/main.go" {
				b.Fatalf("%v, %v", out, err)
			}
		}
	})
}

// BenchmarkUnpack fills the value stack with 250000 values (see
// TestUnpackGrowsTheStackInLargeSteps).
func BenchmarkUnpack(b *testing.B) {
	e := newEnv(b, Options{})
	src := []byte(`local t = {} for i = 1, 250000 do t[i] = i end local n = select("#", unpack(t))`)
	for b.Loop() {
		if _, err := e.in.ExecSource(context.Background(), "bench.lua", src); err != nil {
			b.Fatal(err)
		}
	}
}
