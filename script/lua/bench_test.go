package lua

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script/starlark"
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

func batch64() []core.Call {
	calls := make([]core.Call, 64)
	for i := range calls {
		calls[i] = core.Call{Name: "hello", Args: benchArgs}
	}
	return calls
}

func benchBatch(b *testing.B, ex *executor.Executor, mode executor.Mode) {
	b.Helper()
	ctx := context.Background()
	calls := batch64()
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range ex.ExecuteAll(ctx, calls, executor.InMode(mode)) {
			if r.ForLLM != "hello" {
				b.Fatalf("hello: %q, %v", r.ForLLM, r.Err)
			}
		}
	}
}

// BenchmarkExecuteAllLua64: 64 Lua tool calls in one ExecuteAll, in
// parallel mode and in serial mode. Lua execution is serialized, so the
// parallel batch gains little over the serial one.
func BenchmarkExecuteAllLua64(b *testing.B) {
	for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeSerial} {
		b.Run(mode.String(), func(b *testing.B) {
			e := benchEnv(b, helloTool)
			benchBatch(b, e.ex, mode)
		})
	}
}

// BenchmarkExecuteAllStarlark64: the same batch of a Starlark tool, whose
// calls do run in parallel, for comparison.
func BenchmarkExecuteAllStarlark64(b *testing.B) {
	for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeSerial} {
		b.Run(mode.String(), func(b *testing.B) {
			e := benchEnv(b, "")
			st := starlark.New(e.host, starlark.Options{})
			if _, err := st.ExecSource(context.Background(), "bench.star", []byte(`
def hello(args):
    return "hello"
tool(name = "hello", fn = hello, concurrency_safe = True)
`)); err != nil {
				b.Fatal(err)
			}
			benchBatch(b, e.ex, mode)
		})
	}
}
