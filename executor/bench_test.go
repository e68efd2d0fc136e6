package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/telemetry"
)

var benchArgs = json.RawMessage(`{"path":"README.md","limit":10}`)

func noopTool() core.Tool {
	return core.Tool{Name: "noop", Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}
}

func benchInvoke(b *testing.B, exec *executor.Executor) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := exec.InvokeTool(ctx, "noop", benchArgs)
		if err != nil || res.ForLLM != "ok" {
			b.Fatalf("%q, %v", res.ForLLM, err)
		}
	}
}

// BenchmarkInvokeNoHooks: a Go no-op tool through InvokeTool, no hooks.
func BenchmarkInvokeNoHooks(b *testing.B) {
	benchInvoke(b, newExec(b, []core.Tool{noopTool()}))
}

func passBefore(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }
func passAfter(context.Context, *core.Call, *core.Result) error       { return nil }
func passMiddleware(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
	return next(ctx, call)
}

// BenchmarkInvokeHooksMiddleware: the target case, "2 Go hooks and 2
// middleware": one global before hook, one global after hook and two
// pass-through middleware. Target: ≤ 2µs and ≤ 16 allocs per call.
func BenchmarkInvokeHooksMiddleware(b *testing.B) {
	exec := newExec(b, []core.Tool{noopTool()})
	must(b, exec.AddBefore(core.BeforeHook{Name: "before", Func: passBefore}))
	must(b, exec.AddAfter(core.AfterHook{Name: "after", Func: passAfter}))
	must(b, exec.Use(core.Middleware{Name: "mw1", Func: passMiddleware}, core.Middleware{Name: "mw2", Func: passMiddleware}))
	benchInvoke(b, exec)
}

// BenchmarkInvokeTwoBeforeHooksMiddleware: the other reading of the target:
// two before hooks (one tool-specific by glob, one global) and two
// middleware.
func BenchmarkInvokeTwoBeforeHooksMiddleware(b *testing.B) {
	exec := newExec(b, []core.Tool{noopTool()})
	must(b, exec.AddBefore(
		core.BeforeHook{Name: "specific", Tools: []string{"no*"}, Func: passBefore},
		core.BeforeHook{Name: "global", Func: passBefore},
	))
	must(b, exec.Use(core.Middleware{Name: "mw1", Func: passMiddleware}, core.Middleware{Name: "mw2", Func: passMiddleware}))
	benchInvoke(b, exec)
}

// BenchmarkInvokeValidated: the no-hook call with schema validation on.
func BenchmarkInvokeValidated(b *testing.B) {
	tool := noopTool()
	tool.Parameters = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`)
	benchInvoke(b, newExec(b, []core.Tool{tool}, executor.WithValidateArguments(true)))
}

// BenchmarkExecuteAllSleep: 64 calls that each sleep 20ms, parallel mode,
// concurrency 8, so the ideal batch takes 8 waves × 20ms = 160ms. x-ideal
// is the measured time per batch over that ideal; target ≤ 1.15.
func BenchmarkExecuteAllSleep(b *testing.B) {
	const (
		n     = 64
		limit = 8
		nap   = 20 * time.Millisecond
		ideal = n / limit * nap
	)
	tool := core.Tool{Name: "nap", ConcurrencySafe: core.Bool(true), Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		t := time.NewTimer(nap)
		defer t.Stop()
		select {
		case <-t.C:
			return "", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	exec := newExec(b, []core.Tool{tool}, executor.WithExecutionMode(executor.ModeParallel), executor.WithConcurrency(limit))
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "nap", Args: json.RawMessage(`{}`)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	iters := 0
	for b.Loop() {
		rs := exec.ExecuteAll(context.Background(), calls)
		for _, r := range rs {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
		iters++
	}
	elapsed := time.Since(start) / time.Duration(iters)
	b.ReportMetric(float64(elapsed)/float64(ideal), "x-ideal")
}

// BenchmarkInvokeModelAllowed: the target case with verdicts and records
// at work: a model's call (so the default would ask), a tool-specific
// hook that allows, a global hook without opinion, two middleware and an
// after hook that reads the trail. Target: ≤ 2µs and ≤ 16 allocs.
func BenchmarkInvokeModelAllowed(b *testing.B) {
	exec := newExec(b, []core.Tool{noopTool()})
	must(b, exec.AddBefore(
		core.BeforeHook{Name: "allow-noop", Tools: []string{"noop"}, Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			return nil, core.Allow("noop is harmless")
		}},
		core.BeforeHook{Name: "global", Func: passBefore},
	))
	must(b, exec.Use(core.Middleware{Name: "mw1", Func: passMiddleware}, core.Middleware{Name: "mw2", Func: passMiddleware}))
	must(b, exec.AddAfter(core.AfterHook{Name: "audit", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		if len(res.Decisions) != 3 || res.Decisions[2].Verdict != core.VerdictAllow {
			return errors.New("bad trail")
		}
		return nil
	}}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res := exec.Invoke(ctx, core.Call{Name: "noop", Args: benchArgs, Origin: core.OriginModel})
		if !res.OK() || res.ForLLM != "ok" {
			b.Fatalf("%q, %v", res.ForLLM, res.Err)
		}
	}
}

// BenchmarkDecide: explain's engine for one call with two hooks.
func BenchmarkDecide(b *testing.B) {
	exec := newExec(b, []core.Tool{noopTool()})
	exec.Session().Set("quota", int64(10))
	must(b, exec.AddBefore(
		core.BeforeHook{Name: "specific", Tools: []string{"no*"}, Func: passBefore},
		core.BeforeHook{Name: "global", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
			return nil, core.Ask("check")
		}},
	))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := exec.Decide(ctx, core.Call{Name: "noop", Args: benchArgs}); r.Outcome != core.VerdictAsk {
			b.Fatal(r.Outcome)
		}
	}
}

// BenchmarkInvokeCanonical measures what making a call canonical costs:
// the same read_file-like tool (it answers "ok" without reading) and the
// same arguments, a typical path of four components, once without
// declared effects (nothing to make canonical) and once declaring path
// as a file it reads (decoded, cleaned, its links resolved), spelled
// canonically already, through a link, and in the quoted form.
func BenchmarkInvokeCanonical(b *testing.B) {
	w := b.TempDir()
	must(b, os.MkdirAll(filepath.Join(w, "src", "pkg", "sub"), 0o755))
	must(b, os.WriteFile(filepath.Join(w, "src", "pkg", "sub", "a.go"), []byte("package sub\n"), 0o644))
	must(b, os.Symlink("src", filepath.Join(w, "cur")))
	read := func(name string, fx ...core.ArgEffect) core.Tool {
		return core.Tool{Name: name, Effects: fx, Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}
	}
	exec := newExec(b, []core.Tool{read("undeclared"), read("read_file", core.ArgEffect{Arg: "path", Kind: core.ArgRead})},
		executor.WithWorkDir(w))
	ctx := context.Background()
	for _, c := range []struct{ name, tool, args string }{
		{"undeclared", "undeclared", `{"path":"src/pkg/sub/a.go","limit":10}`},
		{"canonical", "read_file", `{"path":"src/pkg/sub/a.go","limit":10}`},
		{"link", "read_file", `{"path":"cur/pkg/sub/a.go","limit":10}`},
		{"quoted", "read_file", `{"path":"\"src/pkg/sub/\\141.go\"","limit":10}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				res, err := exec.InvokeTool(ctx, c.tool, args)
				if err != nil || res.ForLLM != "ok" {
					b.Fatalf("%q, %v", res.ForLLM, err)
				}
			}
		})
	}
}

// BenchmarkInvokeTracing: the no-op tool with two before hooks, untraced
// (the default: no TracerProvider), and traced by an SDK provider whose
// batch processor exports to nowhere: what a call's span costs.
func BenchmarkInvokeTracing(b *testing.B) {
	tools := []core.Tool{noopTool()}
	hooks := executor.WithBeforeHooks(
		core.BeforeHook{Name: "a", Func: passBefore}, core.BeforeHook{Name: "b", Func: passBefore})
	b.Run("off", func(b *testing.B) { benchInvoke(b, newExec(b, tools, hooks)) })
	b.Run("on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		b.Cleanup(func() { tp.Shutdown(context.Background()) })
		benchInvoke(b, newExec(b, tools, hooks, executor.WithTracing(telemetry.New(tp, false))))
	})
}
