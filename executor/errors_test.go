package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

func panicTool(name string) core.Tool {
	return core.Tool{Name: name, Func: func(context.Context, json.RawMessage) (any, error) { panic("tool exploded") }}
}

func checkPanic(t *testing.T, res *core.Result, where string) {
	t.Helper()
	wantKind(t, res, core.KindPanic)
	e := asCoreError(t, res.Err)
	if e.CallID == "" || e.CallID != res.CallID {
		t.Fatalf("panic error call ID %q, result call ID %q: the call ID must be kept", e.CallID, res.CallID)
	}
	if e.Stack == "" {
		t.Fatal("panic error has no stack")
	}
	if !strings.Contains(e.Error(), where) {
		t.Fatalf("panic message %q does not say where (%s)", e.Error(), where)
	}
	if !strings.Contains(e.Error(), res.CallID) {
		t.Fatalf("panic message %q does not carry the call ID", e.Error())
	}
}

func TestPanicInTool(t *testing.T) {
	var afterSaw core.Kind
	exec := newExec(t, []core.Tool{panicTool("boom")})
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		afterSaw = res.Kind()
		return nil
	}}))
	res := exec.Invoke(context.Background(), core.Call{ID: "id-42", Name: "boom"})
	checkPanic(t, res, "boom")
	if res.CallID != "id-42" {
		t.Fatalf("call ID %q, want id-42", res.CallID)
	}
	if afterSaw != core.KindPanic {
		t.Fatalf("after hook saw %q", afterSaw)
	}
	// The executor still works afterwards.
	must(t, exec.Registry().RegisterTools(okTool("fine")))
	if _, err := exec.InvokeTool(context.Background(), "fine", nil); err != nil {
		t.Fatal(err)
	}
}

func TestPanicInToolWithMiddleware(t *testing.T) {
	exec := newExec(t, []core.Tool{panicTool("boom")})
	var r recorder
	must(t, exec.Use(r.middleware("mw")))
	res, _ := exec.InvokeTool(context.Background(), "boom", nil)
	checkPanic(t, res, "boom")
	// The panic is a result inside the chain, so the middleware sees it return.
	if got := r.get(); !equalStrings(got, []string{"mw enter", "mw exit"}) {
		t.Fatalf("middleware events %q", got)
	}
}

func TestPanicInBeforeHooks(t *testing.T) {
	for _, where := range []string{"tool", "specific", "global"} {
		t.Run(where, func(t *testing.T) {
			var r recorder
			boom := func(context.Context, *core.Call) (json.RawMessage, error) { panic("hook exploded") }
			tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) {
				r.add("WRONG: tool ran")
				return "", nil
			}}
			if where == "tool" {
				tool.Before = []core.BeforeFunc{boom}
			}
			exec := newExec(t, []core.Tool{tool})
			switch where {
			case "specific":
				must(t, exec.AddBefore(core.BeforeHook{Name: "hookname", Tools: []string{"t"}, Func: boom}))
			case "global":
				must(t, exec.AddBefore(core.BeforeHook{Name: "hookname", Func: boom}))
			}
			must(t, exec.Use(r.middleware("WRONG: middleware")))
			must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
				r.add("after " + string(res.Kind()))
				return nil
			}}))
			res, _ := exec.InvokeTool(context.Background(), "t", nil)
			name := "hookname"
			if where == "tool" {
				name = "before hook #1"
			}
			checkPanic(t, res, name)
			if got := r.get(); !equalStrings(got, []string{"after panic"}) {
				t.Fatalf("events %q: a panicking before hook must stop the call and after hooks must still run", got)
			}
		})
	}
}

func TestPanicInAfterHook(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")})
	var laterSaw core.Kind
	must(t, exec.AddAfter(
		core.AfterHook{Name: "bad-audit", Func: func(context.Context, *core.Call, *core.Result) error { panic("after exploded") }},
		core.AfterHook{Name: "later", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
			laterSaw = res.Kind()
			return nil
		}},
	))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	checkPanic(t, res, "bad-audit")
	if laterSaw != core.KindPanic {
		t.Fatalf("later after hook saw %q, want panic", laterSaw)
	}

	// A Tool.After panic too.
	tool := okTool("u")
	tool.After = []core.AfterFunc{func(context.Context, *core.Call, *core.Result) error { panic("x") }}
	exec2 := newExec(t, []core.Tool{tool})
	res, _ = exec2.InvokeTool(context.Background(), "u", nil)
	checkPanic(t, res, "after hook #1")
}

func TestPanicInMiddleware(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")})
	var outerSaw core.Kind
	must(t, exec.Use(
		core.Middleware{Name: "outer", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			res := next(ctx, call)
			outerSaw = res.Kind()
			return res
		}},
		core.Middleware{Name: "exploding", Func: func(context.Context, *core.Call, core.Handler) *core.Result { panic("mw exploded") }},
	))
	res := exec.Invoke(context.Background(), core.Call{ID: "keep-me", Name: "t"})
	checkPanic(t, res, "exploding")
	if res.CallID != "keep-me" {
		t.Fatalf("call ID %q", res.CallID)
	}
	if outerSaw != core.KindPanic {
		t.Fatalf("outer middleware saw %q, want panic", outerSaw)
	}
}

func TestPanicInPooledCall(t *testing.T) {
	exec := newExec(t, []core.Tool{panicTool("boom"), okTool("ok")})
	calls := []core.Call{{Name: "ok"}, {Name: "boom"}, {Name: "ok"}}
	for _, m := range []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed} {
		rs := exec.ExecuteAll(context.Background(), calls, executor.InMode(m))
		if !rs[0].OK() || !rs[2].OK() {
			t.Fatalf("%s: neighbours of a panicking call failed: %v %v", m, rs[0].Err, rs[2].Err)
		}
		checkPanic(t, rs[1], "boom")
	}
}

// panicMarshaler panics while being encoded as JSON.
type panicMarshaler struct{}

func (panicMarshaler) MarshalJSON() ([]byte, error) { panic("marshal exploded") }

// panicBlocks panics when asked for its blocks.
type panicBlocks struct{}

func (panicBlocks) ToolBlocks() []core.Block { panic("blocks exploded") }

// TestPanicWhileMappingOutput: the output a tool returns is mapped into the
// Result after Tool.Func returned. Code the tool supplied still runs then
// (MarshalJSON, ToolBlocks, String); a panic there must become a panic
// result too: "the process never dies for a tool". A nil pointer of a known
// output type is no output. The test runs in a child process so that a
// crash is reported as a failure instead of killing the test binary.
func TestPanicWhileMappingOutput(t *testing.T) {
	cases := map[string]any{
		"MarshalJSON":     panicMarshaler{},
		"ToolBlocks":      panicBlocks{},
		"nilDualOutput":   (*core.DualToolOutput)(nil),
		"nilSilentResult": (*core.SilentResult)(nil),
		"nilBlockOutput":  (*core.BlockOutput)(nil),
	}
	if name := os.Getenv("AGENTSH_TEST_CHILD_OUTPUT_PANIC"); name != "" {
		out := cases[name]
		tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { return out, nil }}
		exec := newExec(t, []core.Tool{tool})
		res := exec.Invoke(context.Background(), core.Call{ID: "c1", Name: "t"})
		if strings.HasPrefix(name, "nil") {
			if !res.OK() || res.ForLLM != "" || res.Silent || len(res.Blocks) != 0 {
				t.Fatalf("a nil %s: got ok=%v output %q silent=%v blocks=%d, want an empty successful result", name, res.OK(), res.ForLLM, res.Silent, len(res.Blocks))
			}
			return
		}
		checkPanic(t, res, "t")
		return
	}
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := osexec.Command(os.Args[0], "-test.run=^TestPanicWhileMappingOutput$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "AGENTSH_TEST_CHILD_OUTPUT_PANIC="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				text := string(out)
				if i := strings.Index(text, "goroutine "); i > 0 && strings.Contains(text, "panic:") {
					text = text[:i] // the panic line, not the whole dump
				}
				if len(text) > 1500 {
					text = text[:1500]
				}
				t.Errorf("a tool returning %s made InvokeTool fail hard (%v):\n%s", name, err, text)
			}
		})
	}
}

func TestTimeoutMiddleware(t *testing.T) {
	var started bool
	tool := core.Tool{Name: "slow", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		started = true
		<-ctx.Done() // cooperates: returns when the deadline passes
		return nil, ctx.Err()
	}}
	exec := newExec(t, []core.Tool{tool, okTool("fast")})
	var afterSaw core.Kind
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		afterSaw = res.Kind()
		return nil
	}}))
	must(t, exec.Use(executor.Timeout(time.Millisecond)))
	var res *core.Result
	runWithWatchdog(t, "timed-out call", func() { res, _ = exec.InvokeTool(context.Background(), "slow", nil) })
	if !started {
		t.Fatal("tool never started")
	}
	wantKind(t, res, core.KindTimeout)
	if !errors.Is(res.Err, context.DeadlineExceeded) {
		t.Fatalf("timeout error %v does not wrap context.DeadlineExceeded", res.Err)
	}
	if afterSaw != core.KindTimeout {
		t.Fatalf("after hook saw %q", afterSaw)
	}
	if res, err := exec.InvokeTool(context.Background(), "fast", nil); err != nil || res.ForLLM != "ok" {
		t.Fatalf("fast call: %v", err)
	}
}

func TestTimeoutOnlyForSomeTools(t *testing.T) {
	hasDeadline := map[string]bool{}
	probe := func(name string) core.Tool {
		return core.Tool{Name: name, Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
			_, hasDeadline[name] = ctx.Deadline()
			return "", nil
		}}
	}
	exec := newExec(t, []core.Tool{probe("net_get"), probe("local")})
	mw := executor.Timeout(time.Hour)
	mw.Tools = []string{"net_*"}
	must(t, exec.Use(mw))
	for _, n := range []string{"net_get", "local"} {
		if _, err := exec.InvokeTool(context.Background(), n, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !hasDeadline["net_get"] || hasDeadline["local"] {
		t.Fatalf("deadlines: %v; want only net_get", hasDeadline)
	}
}

func TestCallerCancels(t *testing.T) {
	started := make(chan struct{})
	tool := core.Tool{Name: "wait", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, fmt.Errorf("stopped waiting: %w", ctx.Err())
	}}
	exec := newExec(t, []core.Tool{tool})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	var res *core.Result
	runWithWatchdog(t, "cancelled call", func() { res, _ = exec.InvokeTool(ctx, "wait", nil) })
	wantKind(t, res, core.KindCanceled)
	if !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("error %v does not wrap context.Canceled", res.Err)
	}
}

func TestContextCancelledBeforeCall(t *testing.T) {
	var r recorder
	tool := core.Tool{
		Name:   "t",
		Func:   func(context.Context, json.RawMessage) (any, error) { r.add("WRONG: tool ran"); return "", nil },
		Before: []core.BeforeFunc{r.beforeFunc("WRONG: Tool.Before ran")},
	}
	exec := newExec(t, []core.Tool{tool})
	must(t, exec.Use(r.middleware("WRONG: middleware")))
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		r.add("after " + string(res.Kind()))
		return nil
	}}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ := exec.InvokeTool(ctx, "t", nil)
	wantKind(t, res, core.KindCanceled)
	if got := r.get(); !equalStrings(got, []string{"after canceled"}) {
		t.Fatalf("events %q", got)
	}

	// An expired deadline is a timeout, also without running anything.
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer dcancel()
	r.reset()
	res, _ = exec.InvokeTool(dctx, "t", nil)
	wantKind(t, res, core.KindTimeout)
	if got := r.get(); !equalStrings(got, []string{"after timeout"}) {
		t.Fatalf("events %q", got)
	}
}

// TestBeforeHookCancelledIsNotRejected: a hook that gives up because the
// context ended reports canceled, not a policy rejection.
func TestBeforeHookCancelledIsNotRejected(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	must(t, exec.AddBefore(core.BeforeHook{Name: "slow-policy", Func: func(ctx context.Context, _ *core.Call) (json.RawMessage, error) {
		cancel()
		return nil, ctx.Err()
	}}))
	res, _ := exec.InvokeTool(ctx, "t", nil)
	wantKind(t, res, core.KindCanceled)
}

// TestToolErrorIsFailed: the tool's own error is wrapped in failed.
func TestToolErrorIsFailed(t *testing.T) {
	own := errors.New("disk full")
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { return "ignored", own }}
	exec := newExec(t, []core.Tool{tool})
	res, err := exec.InvokeTool(context.Background(), "t", nil)
	wantKind(t, res, core.KindFailed)
	if !errors.Is(err, own) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v does not wrap the tool's error", err)
	}
	if res.ForLLM != "" {
		t.Fatalf("failed call has output %q", res.ForLLM)
	}
	// A context error returned by the tool on its own is still classified.
	tool2 := core.Tool{Name: "t2", Func: func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("upstream: %w", context.DeadlineExceeded)
	}}
	must(t, exec.Registry().RegisterTools(tool2))
	res, _ = exec.InvokeTool(context.Background(), "t2", nil)
	wantKind(t, res, core.KindTimeout)
}

// TestEveryKindIsExactlyItself produces each kind through the executor and
// checks that errors.Is matches its own sentinel and no other.
func TestEveryKindIsExactlyItself(t *testing.T) {
	tools := []core.Tool{
		okTool("ok"),
		{Name: "schema", Parameters: json.RawMessage(`{"type":"object","required":["x"]}`), Func: func(context.Context, json.RawMessage) (any, error) { return "", nil }},
		{Name: "fail", Func: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("x") }},
		{Name: "slow", Func: func(ctx context.Context, _ json.RawMessage) (any, error) { <-ctx.Done(); return nil, ctx.Err() }},
		panicTool("boom"),
	}
	exec := newExec(t, tools, executor.WithValidateArguments(true))
	must(t, exec.AddBefore(core.BeforeHook{Name: "deny", Tools: []string{"ok"}, Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		if string(c.Args) == `{"deny":true}` {
			return nil, errors.New("denied")
		}
		return nil, nil
	}}))
	tm := executor.Timeout(time.Millisecond)
	tm.Tools = []string{"slow"}
	must(t, exec.Use(tm))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		kind core.Kind
		ctx  context.Context
		name string
		args string
	}{
		{core.KindUnknownTool, context.Background(), "nope", ""},
		{core.KindInvalidArguments, context.Background(), "ok", "[]"},
		{core.KindInvalidArguments, context.Background(), "schema", "{}"},
		{core.KindRejected, context.Background(), "ok", `{"deny":true}`},
		{core.KindTimeout, context.Background(), "slow", ""},
		{core.KindCanceled, cancelled, "ok", ""},
		{core.KindFailed, context.Background(), "fail", ""},
		{core.KindPanic, context.Background(), "boom", ""},
	}
	covered := map[core.Kind]bool{}
	for _, c := range cases {
		var res *core.Result
		runWithWatchdog(t, c.name, func() { res, _ = exec.InvokeTool(c.ctx, c.name, json.RawMessage(c.args)) })
		wantKind(t, res, c.kind)
		for _, other := range core.Kinds {
			if other != c.kind && errors.Is(res.Err, other) {
				t.Errorf("%s error also matches %s", c.kind, other)
			}
		}
		if e := asCoreError(t, res.Err); e.Kind != c.kind || e.Tool != c.name || e.CallID != res.CallID {
			t.Errorf("%s: *core.Error %+v", c.kind, e)
		}
		covered[c.kind] = true
	}
	for _, k := range core.Kinds {
		if !covered[k] {
			t.Errorf("kind %s not produced by this test", k)
		}
	}
	if res, err := exec.InvokeTool(context.Background(), "ok", nil); err != nil || res.Kind() != "" {
		t.Fatalf("successful call: kind %q err %v", res.Kind(), err)
	}
}

// Among many tools, an unknown name's message says how to list them, in
// the terms of the CLI and of scripts (not a Go API).
func TestUnknownToolAmongMany(t *testing.T) {
	var tools []core.Tool
	for i := range 12 {
		tools = append(tools, okTool(fmt.Sprintf("tool%02d", i)))
	}
	ex := newExec(t, tools)
	res, _ := ex.InvokeTool(context.Background(), "zzzzzzzzzz", nil)
	wantKind(t, res, core.KindUnknownTool)
	want := `unknown tool "zzzzzzzzzz"; 12 tools are registered: list them with agentsh tools, or tool_names() in a script`
	if res.Err.Error() != want {
		t.Errorf("got %q\nwant %q", res.Err, want)
	}
}
