package starlark

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
)

// TestStepBudgetTopLevel: a runaway top-level loop stops with an error
// that names the step budget.
func TestStepBudgetTopLevel(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 10000})
	var err error
	bounded(t, "top-level loop", func() { err = e.exec("x = 0\nwhile True:\n    x += 1\n") })
	if err == nil {
		t.Fatal("runaway loop finished without error")
	}
	wantContains(t, err.Error(), "test.star:", "step budget of 10000 exceeded")
	// Where exactly a cancelled loop stops is up to go.starlark.net's line
	// table (often the start of the function); only the file is certain.
	var se *script.Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Pos(), "test.star:") {
		t.Errorf("error %#v: want a positioned *script.Error", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a step-budget error must not look like a context error: %v", err)
	}

	// Deep recursion is bounded too (budget or stack cap), never a crash.
	err = nil
	bounded(t, "recursion", func() { err = e.exec("def f(n):\n    return f(n + 1)\nf(0)\n") })
	if err == nil {
		t.Fatal("infinite recursion finished without error")
	}

	// The budget applies per run: a second run has a fresh budget.
	e.run("y = 0\nfor i in range(500):\n    y += i\n")
}

// TestStepBudgetInTool: a runaway loop inside a tool fails that call, not
// the process and not the caller's budget.
func TestStepBudgetInTool(t *testing.T) {
	e := newEnv(t, Options{MaxSteps: 10000})
	e.run(`
def spin(args):
    while True:
        pass
tool(name = "spin", fn = spin)
`)
	var res *core.Result
	bounded(t, "tool loop", func() { res = e.invoke("spin", "") })
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "test.star:", "step budget of 10000 exceeded")

	// From a script: the caller survives and can carry on; every call has
	// its own budget.
	e.runBounded("script", `
rs = [invoke_tool("spin") for i in range(3)]
print([r.error_kind for r in rs])
`)
	wantLines(t, e.lines(), `["failed", "failed", "failed"]`)
}

// startedTool registers a Go tool "started" that closes the returned channel
// on its first call: a script signals that its loop is about to begin.
func startedTool(e *env) <-chan struct{} {
	ch := make(chan struct{})
	var once sync.Once
	e.goTool("started", nil, func(ctx context.Context, args map[string]any) (any, error) {
		once.Do(func() { close(ch) })
		return "", nil
	})
	return ch
}

// TestCancelTopLevel: cancelling the context of ExecSource stops a runaway
// loop; the error is errors.Is context.Canceled.
func TestCancelTopLevel(t *testing.T) {
	e := newEnv(t, Options{})
	started := startedTool(e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	var err error
	bounded(t, "cancelled script", func() {
		_, err = e.in.ExecSource(ctx, "loop.star", []byte(`
invoke_tool("started")
n = 0
while True:
    n += 1
`))
	})
	if err == nil {
		t.Fatal("cancelled loop returned no error")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(err, context.Canceled) = false: %v", err)
	}
	// Stopped by the context (not, much later, by the step budget).
	wantContains(t, err.Error(), "loop.star:", "Starlark computation cancelled: canceled")
	if strings.Contains(err.Error(), "step budget") {
		t.Errorf("the loop ran until its step budget: %v", err)
	}
	var se *script.Error
	if !errors.As(err, &se) {
		t.Errorf("a cancelled run should still carry the script position: %#v", err)
	}
}

// TestCancelToolCall: cancelling a call's context stops a Starlark tool in
// a loop with kind canceled; a deadline gives kind timeout.
func TestCancelToolCall(t *testing.T) {
	e := newEnv(t, Options{})
	started := startedTool(e)
	e.run(`
def spin(args):
    invoke_tool("started")
    while True:
        pass
tool(name = "spin", fn = spin)
def spin2(args):
    while True:
        pass
tool(name = "spin2", fn = spin2)
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	var res *core.Result
	bounded(t, "cancelled call", func() { res, _ = e.ex.InvokeTool(ctx, "spin", nil) })
	wantKind(t, res, core.KindCanceled)
	if !errors.Is(res.Err, context.Canceled) || !errors.Is(res.Err, core.ErrCanceled) {
		t.Errorf("error chain of %v lacks context.Canceled / ErrCanceled", res.Err)
	}
	wantContains(t, res.Err.Error(), "spin canceled", "Starlark computation cancelled: canceled")

	dctx, dcancel := context.WithTimeout(context.Background(), 30e6) // 30ms
	defer dcancel()
	bounded(t, "deadline call", func() { res, _ = e.ex.InvokeTool(dctx, "spin2", nil) })
	wantKind(t, res, core.KindTimeout)
	if !errors.Is(res.Err, context.DeadlineExceeded) {
		t.Errorf("error chain of %v lacks context.DeadlineExceeded", res.Err)
	}
	wantContains(t, res.Err.Error(), "spin2 timed out", "Starlark computation cancelled: timed out")
}

// TestAfterHooksSeeCancelledCalls: after hooks run for every call, a
// cancelled one too, so audit hooks miss nothing. A Go after hook sees every call whose caller's
// context ended; a Starlark after hook must too. Today its thread is
// cancelled by that same context (context.AfterFunc fires at once for a
// done context), so whether it gets to run depends on goroutine scheduling;
// an audit hook that does a little work is almost always cut off.
func TestAfterHooksSeeCancelledCalls(t *testing.T) {
	e := newEnv(t, Options{})
	var goSaw int
	var mu sync.Mutex
	if err := e.ex.AddAfter(core.AfterHook{Name: "go_audit", Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
		mu.Lock()
		defer mu.Unlock()
		if res.Kind() == core.KindCanceled {
			goSaw++
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	e.run(`
tool(name = "t", fn = lambda args: "x")
def audit(call, result):
    entry = {"tool": call.name, "kind": result.error_kind}
    for i in range(2000):   # an audit hook that formats, redacts, ...
        entry["n"] = i
    state.incr("audited_" + str(result.error_kind))
after(audit)
`)
	const calls = 20
	for i := 0; i < calls; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, _ := e.ex.InvokeTool(ctx, "t", nil)
		wantKind(t, res, core.KindCanceled)
	}
	mu.Lock()
	if goSaw != calls {
		t.Errorf("Go after hook saw %d of %d cancelled calls", goSaw, calls)
	}
	mu.Unlock()
	got, _ := e.ex.Session().Get("audited_canceled")
	if got != int64(calls) {
		t.Errorf("Starlark after hook audited %v of %d cancelled calls: its thread is cancelled by the call's ended context", got, calls)
	}
}

// TestCancelBeforeHookAndBatch: a cancelled context stops a looping before
// hook (kind canceled, not rejected) and the rest of a serial batch.
func TestCancelBeforeHookAndBatch(t *testing.T) {
	e := newEnv(t, Options{})
	started := startedTool(e)
	e.run(`
def h(call):
    if call.name == "guarded":
        invoke_tool("started")
        while True:
            pass
before(h)
tool(name = "guarded", fn = lambda args: "unreachable")
tool(name = "count", fn = lambda args: str(state.incr("count")))
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	var err error
	var out string
	bounded(t, "batch", func() {
		_, err = e.in.ExecSource(ctx, "batch.star", []byte(`
rs = invoke_all([("count",), ("guarded",), ("count",), ("count",)], mode = "serial")
print([r.error_kind for r in rs], state.get("count"))
`))
		out = e.out.String()
	})
	// The script itself may or may not see the cancellation before print;
	// either way the batch must have stopped after the hook.
	if err == nil {
		wantLines(t, e.lines(), `[None, "canceled", "canceled", "canceled"] 1`)
	} else if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, out = %q", err, out)
	}
	if v, _ := e.ex.Session().Get("count"); v != int64(1) {
		t.Errorf("count = %v: calls after the cancellation ran", v)
	}
}
