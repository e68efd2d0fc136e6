package starlark

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/core"
)

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
// pipeline with no hook. BenchmarkStarlarkBeforeHook minus this is the cost
// of one Starlark before hook (target: at most 20µs).
func BenchmarkGoToolNoHook(b *testing.B) {
	e := benchEnv(b, "")
	benchInvoke(b, e, "noop", "ok")
}

// BenchmarkStarlarkBeforeHook: the same call with one Starlark before hook
// that returns None.
func BenchmarkStarlarkBeforeHook(b *testing.B) {
	e := benchEnv(b, `
def allow(call):
    return None
before(allow)
`)
	benchInvoke(b, e, "noop", "ok")
}

// BenchmarkStarlarkBeforeHookReadsArgs: a more typical policy hook that
// looks at an argument.
func BenchmarkStarlarkBeforeHookReadsArgs(b *testing.B) {
	e := benchEnv(b, `
def no_env(call):
    if call.args.get("path", "").endswith(".env"):
        return deny("no")
before(no_env)
`)
	benchInvoke(b, e, "noop", "ok")
}

// BenchmarkStarlarkTool: a Starlark-defined tool that returns a string.
func BenchmarkStarlarkTool(b *testing.B) {
	e := benchEnv(b, `
def hello(args):
    return "hello"
tool(name = "hello", fn = hello)
`)
	benchInvoke(b, e, "hello", "hello")
}

// BenchmarkStarlarkToolParallel: the same tool called from every P at once.
func BenchmarkStarlarkToolParallel(b *testing.B) {
	e := benchEnv(b, `
def hello(args):
    return "hello"
tool(name = "hello", fn = hello)
`)
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
