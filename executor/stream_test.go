package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// streamTool writes "streamed\n" to a granted stream, else returns
// "held"; with {"nest": true} it first calls itself through ex and fails
// if that nested call was granted a stream.
func streamTool(ex **executor.Executor) core.Tool {
	return core.Tool{Name: "out", Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ Nest bool }
		_ = json.Unmarshal(args, &a)
		if a.Nest {
			res, err := (*ex).InvokeTool(ctx, "out", nil)
			if err != nil {
				return nil, err
			}
			if res.Streamed || res.ForLLM != "held" {
				return nil, &core.Error{Kind: core.KindFailed, Message: "the nested call got the stream"}
			}
		}
		w := core.OutputStream(ctx)
		if w == nil {
			return "held", nil
		}
		if _, err := w.Write([]byte("streamed\n")); err != nil {
			return nil, err
		}
		return core.StreamedOutput{}, nil
	}}
}

// The executor grants a stream a caller asks for only to the call it
// made, and only when no middleware, after hook, offload or OnEnd
// callback could see the output; before hooks and nested calls never get
// it.
func TestOutputStreamIsGrantedOnlyWhenNothingSeesTheOutput(t *testing.T) {
	nop := func(context.Context, *core.Call, *core.Result) error { return nil }
	pass := func(ctx context.Context, c *core.Call, next core.Handler) *core.Result { return next(ctx, c) }
	for _, c := range []struct {
		name   string
		opts   []executor.Option
		args   string
		stream bool
	}{
		{"bare", nil, "", true},
		{"before hooks only", []executor.Option{executor.WithBeforeHooks(core.BeforeHook{Name: "b",
			Func: func(ctx context.Context, _ *core.Call) (json.RawMessage, error) {
				if core.OutputStream(ctx) != nil {
					return nil, core.Deny("a before hook saw the stream")
				}
				if _, w := core.TakeOutputStream(ctx); w != nil {
					return nil, core.Deny("a before hook could take the stream")
				}
				return nil, nil
			}})}, "", true},
		{"an after hook of another tool", []executor.Option{executor.WithAfterHooks(core.AfterHook{Name: "a", Tools: []string{"other"}, Func: nop})}, "", true},
		{"middleware of another tool", []executor.Option{executor.WithMiddleware(core.Middleware{Name: "m", Tools: []string{"o?her"}, Func: pass})}, "", true},
		{"a nested call", nil, `{"nest": true}`, true},
		{"a global after hook", []executor.Option{executor.WithAfterHooks(core.AfterHook{Name: "a", Func: nop})}, "", false},
		{"an after hook of the tool", []executor.Option{executor.WithAfterHooks(core.AfterHook{Name: "a", Tools: []string{"o*"}, Func: nop})}, "", false},
		{"global middleware", []executor.Option{executor.WithMiddleware(core.Middleware{Name: "m", Func: pass})}, "", false},
		{"middleware of the tool", []executor.Option{executor.WithMiddleware(core.Middleware{Name: "m", Tools: []string{"out"}, Func: pass})}, "", false},
		{"artifact offload", []executor.Option{executor.WithArtifactOffload(executor.NewMemoryStore(), 1<<20)}, "", false},
		{"an OnEnd callback", []executor.Option{executor.WithOnEnd(func(*core.Call, *core.Result) {})}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ex *executor.Executor
			ex = newExec(t, []core.Tool{streamTool(&ex)}, c.opts...)
			var w bytes.Buffer
			res, err := ex.InvokeTool(core.WithOutputStream(context.Background(), &w), "out", json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if c.stream {
				if !res.Streamed || res.ForLLM != "" || w.String() != "streamed\n" {
					t.Errorf("got Streamed %v, ForLLM %q, stream %q; want the output on the stream", res.Streamed, res.ForLLM, w.String())
				}
				return
			}
			if res.Streamed || res.ForLLM != "held" || w.Len() != 0 {
				t.Errorf("got Streamed %v, ForLLM %q, stream %q; want the output held", res.Streamed, res.ForLLM, w.String())
			}
		})
	}
}

// A tool also keeps its output when it is given in a batch, or when the
// caller asked for no stream, and a call that is rejected or only decided
// writes nothing.
func TestOutputStreamIsNotGrantedToBatchesOrCallsThatDoNotRun(t *testing.T) {
	var ex *executor.Executor
	deny := core.BeforeHook{Name: "no", Tools: []string{"out"}, Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		if string(c.Args) == `{"deny":true}` {
			return nil, core.Deny("not this one")
		}
		return nil, nil
	}}
	ex = newExec(t, []core.Tool{streamTool(&ex)}, executor.WithBeforeHooks(deny), executor.WithValidateArguments(true))
	var w bytes.Buffer
	ctx := core.WithOutputStream(context.Background(), &w)
	for _, mode := range []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed} {
		for i, res := range ex.ExecuteAll(ctx, []core.Call{{Name: "out"}, {Name: "out"}}, executor.InMode(mode)) {
			if res.Streamed || res.ForLLM != "held" {
				t.Errorf("%s batch, call %d: Streamed %v, ForLLM %q; want held", mode, i, res.Streamed, res.ForLLM)
			}
		}
	}
	if res, _ := ex.InvokeTool(context.Background(), "out", nil); res.Streamed || res.ForLLM != "held" {
		t.Errorf("no stream asked for: Streamed %v, ForLLM %q; want held", res.Streamed, res.ForLLM)
	}
	if res, _ := ex.InvokeTool(ctx, "out", json.RawMessage(`{"deny":true}`)); res.Kind() != core.KindRejected {
		t.Errorf("denied call: %v, want rejected", res.Err)
	}
	if d := ex.Decide(ctx, core.Call{Name: "out"}); d.Outcome != core.VerdictAllow {
		t.Errorf("Decide: %+v, want it to run", d)
	}
	if res, _ := ex.InvokeTool(ctx, "nope", nil); res.Kind() != core.KindUnknownTool {
		t.Errorf("unknown tool: %v, want unknown_tool", res.Err)
	}
	if w.Len() != 0 {
		t.Errorf("the stream got %q; want nothing", w.String())
	}
}
