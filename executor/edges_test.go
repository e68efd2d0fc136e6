package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// An after hook that fails on a call that already failed keeps the call's
// kind and adds its own failure to the message: nothing is lost.
func TestAfterHookFailureOnFailedCall(t *testing.T) {
	exec := newExec(t, nil)
	must(t, exec.AddAfter(core.AfterHook{Name: "audit", Func: func(context.Context, *core.Call, *core.Result) error {
		return errors.New("audit disk full")
	}}))
	must(t, exec.AddAfter(core.AfterHook{Name: "crash", Func: func(context.Context, *core.Call, *core.Result) error {
		panic("audit exploded")
	}}))
	res, _ := exec.InvokeTool(context.Background(), "ghost", nil)
	wantKind(t, res, core.KindUnknownTool)
	msg := res.Err.Error()
	for _, want := range []string{`unknown tool "ghost"`, "audit disk full", "audit exploded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// Hook names in core.Error.Hook are the names as registered.
func TestHookNamesAreBare(t *testing.T) {
	tool := okTool("t")
	tool.Before = []core.BeforeFunc{func(context.Context, *core.Call) (json.RawMessage, error) { return nil, errors.New("no") }}
	exec := newExec(t, []core.Tool{tool, okTool("u")})
	must(t, exec.AddBefore(core.BeforeHook{Name: "policy", Tools: []string{"u"}, Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return nil, errors.New("no")
	}}))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	if e := asCoreError(t, res.Err); e.Hook != "t before hook 1" || !strings.Contains(e.Message, "t's before hook #1") {
		t.Errorf("tool's own hook: Hook %q, message %q", e.Hook, e.Message)
	}
	res, _ = exec.InvokeTool(context.Background(), "u", nil)
	if e := asCoreError(t, res.Err); e.Hook != "policy" || !strings.Contains(e.Message, `rejected by "policy"`) {
		t.Errorf("registered hook: Hook %q, message %q", e.Hook, e.Message)
	}
}

// Timeout(0) sets no deadline.
func TestTimeoutZeroIsNone(t *testing.T) {
	tool := core.Tool{Name: "t", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		if _, ok := ctx.Deadline(); ok {
			return nil, errors.New("has a deadline")
		}
		return "no deadline", nil
	}}
	exec := newExec(t, []core.Tool{tool}, executor.WithMiddleware(executor.Timeout(0)))
	if res, err := exec.InvokeTool(context.Background(), "t", nil); err != nil || res.ForLLM != "no deadline" {
		t.Fatalf("Timeout(0): %q, %v", res.ForLLM, err)
	}
}

// A batch waiting for a pool slot stops waiting when its context ends: the
// remaining calls return canceled while the slot is still taken.
func TestPoolWaitHonoursContext(t *testing.T) {
	release := make(chan struct{})
	var runs atomic.Int32
	blocker := core.Tool{Name: "block", ConcurrencySafe: core.Bool(true), Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		runs.Add(1)
		<-release // ignores ctx on purpose: it holds its slot
		return "done", nil
	}}
	var ended atomic.Int32
	exec := newExec(t, []core.Tool{blocker}, executor.WithOnEnd(func(*core.Call, *core.Result) { ended.Add(1) }))
	ctx, cancel := context.WithCancel(context.Background())
	calls := []core.Call{{Name: "block"}, {Name: "block"}, {Name: "block"}}
	var results []*core.Result
	done := make(chan struct{})
	go func() {
		results = exec.ExecuteAll(ctx, calls, executor.InMode(executor.ModeParallel), executor.WithLimit(1))
		close(done)
	}()
	waitFor(t, "the first call to start", func() bool { return runs.Load() == 1 })
	cancel()
	// The waiting calls end while the first still holds the only slot.
	waitFor(t, "the waiting calls to return canceled", func() bool { return ended.Load() == 2 })
	close(release)
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		t.Fatal("watchdog: ExecuteAll did not return")
	}
	if !results[0].OK() {
		t.Errorf("the running call: %v", results[0].Err)
	}
	for i := 1; i < 3; i++ {
		wantKind(t, results[i], core.KindCanceled)
	}
	if runs.Load() != 1 {
		t.Errorf("%d executions, want only the first", runs.Load())
	}
}

// A call waiting for the same dedup key's running call stops waiting when
// its context ends.
func TestDedupWaitHonoursContext(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	tool := core.Tool{Name: "pay", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-release
		return "paid", nil
	}}
	exec := newExec(t, []core.Tool{tool}, executor.WithMiddleware(executor.Retry(executor.RetryOptions{})))
	first := make(chan *core.Result, 1)
	go func() { first <- exec.Invoke(context.Background(), core.Call{Name: "pay", DedupKey: "order-9"}) }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan *core.Result, 1)
	go func() { second <- exec.Invoke(ctx, core.Call{Name: "pay", DedupKey: "order-9"}) }()
	cancel()
	select {
	case res := <-second:
		wantKind(t, res, core.KindCanceled)
	case <-time.After(watchdogTimeout):
		t.Fatal("watchdog: the waiting call ignored its context")
	}
	close(release)
	if res := <-first; !res.OK() || res.ForLLM != "paid" {
		t.Fatalf("first call: %q %v", res.ForLLM, res.Err)
	}
}

// Offload registers its own artifact_read, refuses to replace someone
// else's, and removes its own when turned off.
func TestArtifactReadOwnership(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool(executor.ArtifactReadTool)})
	err := exec.SetArtifactOffload(executor.NewMemoryStore(), 10)
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("offload over a foreign artifact_read: err %v, want a refusal", err)
	}
	if res, _ := exec.InvokeTool(context.Background(), executor.ArtifactReadTool, nil); res.ForLLM != "ok" {
		t.Fatalf("the foreign tool was replaced: %q", res.ForLLM)
	}

	exec = newExec(t, nil)
	must(t, exec.SetArtifactOffload(executor.NewMemoryStore(), 10))
	must(t, exec.SetArtifactOffload(executor.NewMemoryStore(), 20)) // its own: replaced
	if exec.Registry().GetTool(executor.ArtifactReadTool) == nil {
		t.Fatal("artifact_read missing while offload is on")
	}
	must(t, exec.SetArtifactOffload(nil, 0))
	if exec.Registry().GetTool(executor.ArtifactReadTool) != nil {
		t.Fatal("artifact_read still registered after offload was turned off")
	}
}
