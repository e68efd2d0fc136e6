package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
)

// sleeps records the waits Retry asks for, without waiting.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return nil
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// flaky fails its first `failures` executions with err, then succeeds with
// "done after N"; runs counts executions.
type flaky struct {
	runs     atomic.Int32
	failures int32
	err      error
}

func (f *flaky) tool(name string, idempotent bool) core.Tool {
	return core.Tool{Name: name, Idempotent: idempotent, Func: func(context.Context, json.RawMessage) (any, error) {
		n := f.runs.Add(1)
		if n <= f.failures {
			return nil, f.err
		}
		return "done after " + strconv.Itoa(int(n)), nil
	}}
}

func retryExec(t *testing.T, s *sleeps, o executor.RetryOptions, tools ...core.Tool) *executor.Executor {
	t.Helper()
	o.Sleep = s.sleep
	exec := newExec(t, tools)
	must(t, exec.Use(executor.Retry(o)))
	return exec
}

func TestRetryIdempotentCountsExecutions(t *testing.T) {
	for _, tc := range []struct {
		attempts, failures int32
		wantRuns           int32
		wantOK             bool
	}{
		{3, 0, 1, true},
		{3, 1, 2, true},
		{3, 2, 3, true},
		{3, 5, 3, false}, // attempts counts the first execution
		{1, 5, 1, false},
		{5, 4, 5, true},
	} {
		t.Run(fmt.Sprintf("attempts=%d,failures=%d", tc.attempts, tc.failures), func(t *testing.T) {
			var s sleeps
			f := &flaky{failures: tc.failures, err: errors.New("transient")}
			exec := retryExec(t, &s, executor.RetryOptions{Attempts: int(tc.attempts), Backoff: time.Millisecond}, f.tool("t", true))
			res, _ := exec.InvokeTool(context.Background(), "t", nil)
			if got := f.runs.Load(); got != tc.wantRuns {
				t.Fatalf("executions = %d, want %d", got, tc.wantRuns)
			}
			if res.OK() != tc.wantOK {
				t.Fatalf("OK = %v (%v), want %v", res.OK(), res.Err, tc.wantOK)
			}
			if !tc.wantOK {
				wantKind(t, res, core.KindFailed)
			}
			if got := len(s.get()); got != int(tc.wantRuns-1) {
				t.Fatalf("%d waits for %d executions", got, tc.wantRuns)
			}
		})
	}
}

func TestRetryDefaultAttempts(t *testing.T) {
	var s sleeps
	f := &flaky{failures: 100, err: errors.New("x")}
	exec := retryExec(t, &s, executor.RetryOptions{}, f.tool("t", true))
	exec.InvokeTool(context.Background(), "t", nil)
	if got := f.runs.Load(); got != 3 {
		t.Fatalf("zero RetryOptions executed %d times, want 3", got)
	}
	if w := s.get(); len(w) != 2 || w[0] != 100*time.Millisecond || w[1] != 200*time.Millisecond {
		t.Fatalf("default backoff waits %v, want [100ms 200ms]", w)
	}
}

func TestRetryNeverRerunsNonIdempotent(t *testing.T) {
	var s sleeps
	f := &flaky{failures: 1, err: errors.New("transient")}
	exec := retryExec(t, &s, executor.RetryOptions{Attempts: 5}, f.tool("send_mail", false))
	res, _ := exec.InvokeTool(context.Background(), "send_mail", nil)
	wantKind(t, res, core.KindFailed)
	if got := f.runs.Load(); got != 1 {
		t.Fatalf("non-idempotent tool executed %d times without a dedup key", got)
	}
	if len(s.get()) != 0 {
		t.Fatalf("waited %v for a call it could not retry", s.get())
	}
}

func TestRetryOnTimeout(t *testing.T) {
	var s sleeps
	// The tool's own deadline error is a timeout.
	f := &flaky{failures: 2, err: fmt.Errorf("upstream: %w", context.DeadlineExceeded)}
	exec := retryExec(t, &s, executor.RetryOptions{Attempts: 3}, f.tool("t", true))
	res, err := exec.InvokeTool(context.Background(), "t", nil)
	if err != nil || res.ForLLM != "done after 3" {
		t.Fatalf("%q, %v", res.ForLLM, err)
	}

	// A Timeout middleware inside Retry: each attempt gets its own deadline,
	// one the last attempt, which returns at once, meets even when the
	// machine is busy (the first two wait it out).
	var runs atomic.Int32
	slow := core.Tool{Name: "slow", Idempotent: true, Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		if runs.Add(1) < 3 {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return "finally", nil
	}}
	exec2 := newExec(t, []core.Tool{slow})
	must(t, exec2.Use(executor.Retry(executor.RetryOptions{Attempts: 3, Sleep: s.sleep}), executor.Timeout(testwait.Bound(100*time.Millisecond))))
	var res2 *core.Result
	runWithWatchdog(t, "retry with timeout", func() { res2, _ = exec2.InvokeTool(context.Background(), "slow", nil) })
	if !res2.OK() || res2.ForLLM != "finally" || runs.Load() != 3 {
		t.Fatalf("%q, %v after %d runs", res2.ForLLM, res2.Err, runs.Load())
	}
}

// TestRetryOnlyFailedAndTimeout: every other kind is returned at once.
func TestRetryOnlyFailedAndTimeout(t *testing.T) {
	for _, kind := range []core.Kind{core.KindRejected, core.KindInvalidArguments, core.KindUnknownTool, core.KindPanic, core.KindCanceled} {
		t.Run(string(kind), func(t *testing.T) {
			var s sleeps
			var toolRuns, nextRuns atomic.Int32
			tool := core.Tool{
				Name:       "t",
				Idempotent: true,
				Parameters: json.RawMessage(`{"type":"object","required":["x"]}`),
				Func: func(context.Context, json.RawMessage) (any, error) {
					toolRuns.Add(1)
					switch kind {
					case core.KindPanic:
						panic("boom")
					case core.KindCanceled:
						return nil, context.Canceled
					}
					return "ok", nil
				},
			}
			exec := newExec(t, []core.Tool{tool}, executor.WithValidateArguments(kind == core.KindInvalidArguments))
			must(t, exec.Use(
				executor.Retry(executor.RetryOptions{Attempts: 4, Sleep: s.sleep}),
				// Counts how often Retry calls its next; can fake a rejection.
				core.Middleware{Name: "counter", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
					nextRuns.Add(1)
					if kind == core.KindRejected {
						return &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Message: "inner policy"}}
					}
					return next(ctx, call)
				}},
			))
			name := "t"
			if kind == core.KindUnknownTool {
				name = "missing"
			}
			res := exec.Invoke(context.Background(), core.Call{Name: name, Args: json.RawMessage(`{"y":1}`), DedupKey: "k"})
			wantKind(t, res, kind)
			if got := nextRuns.Load(); got != 1 {
				t.Fatalf("%s was attempted %d times, want 1", kind, got)
			}
			if toolRuns.Load() > 1 {
				t.Fatalf("tool executed %d times", toolRuns.Load())
			}
			if len(s.get()) != 0 {
				t.Fatalf("waited %v", s.get())
			}
		})
	}
}

func TestRetryBackoffDoubles(t *testing.T) {
	var s sleeps
	f := &flaky{failures: 100, err: errors.New("x")}
	exec := retryExec(t, &s, executor.RetryOptions{Attempts: 6, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}, f.tool("t", true))
	exec.InvokeTool(context.Background(), "t", nil)
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	got := s.get()
	if len(got) != len(want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("waits %v, want %v", got, want)
		}
	}
	if f.runs.Load() != 6 {
		t.Fatalf("executions %d, want 6", f.runs.Load())
	}

	// Negative backoff: no waiting at all.
	var s2 sleeps
	f2 := &flaky{failures: 2, err: errors.New("x")}
	exec2 := retryExec(t, &s2, executor.RetryOptions{Attempts: 3, Backoff: -1}, f2.tool("t", true))
	if _, err := exec2.InvokeTool(context.Background(), "t", nil); err != nil {
		t.Fatal(err)
	}
	if len(s2.get()) != 0 {
		t.Fatalf("negative backoff waited %v", s2.get())
	}
}

func TestRetryStopsWhenSleepIsInterrupted(t *testing.T) {
	f := &flaky{failures: 100, err: errors.New("x")}
	exec := newExec(t, []core.Tool{f.tool("t", true)})
	sleepsCalled := 0
	must(t, exec.Use(executor.Retry(executor.RetryOptions{Attempts: 5, Sleep: func(context.Context, time.Duration) error {
		sleepsCalled++
		return context.Canceled
	}})))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	wantKind(t, res, core.KindFailed)
	if f.runs.Load() != 1 || sleepsCalled != 1 {
		t.Fatalf("runs %d, sleeps %d; want 1 and 1", f.runs.Load(), sleepsCalled)
	}

	// The real sleep honours the context: a cancelled caller stops the retries.
	f2 := &flaky{failures: 100, err: errors.New("x")}
	exec2 := newExec(t, []core.Tool{f2.tool("t", true)})
	must(t, exec2.Use(executor.Retry(executor.RetryOptions{Attempts: 5, Backoff: time.Hour})))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for f2.runs.Load() == 0 {
			yieldALot()
		}
		cancel()
	}()
	runWithWatchdog(t, "retry with a cancelled context", func() { exec2.InvokeTool(ctx, "t", nil) })
	if f2.runs.Load() != 1 {
		t.Fatalf("runs %d after cancel", f2.runs.Load())
	}
}

func TestRetryDedupKey(t *testing.T) {
	var s sleeps
	f := &flaky{failures: 2, err: errors.New("transient")}
	exec := retryExec(t, &s, executor.RetryOptions{Attempts: 3}, f.tool("charge", false), okTool("other"))
	var afterSaw []string
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, c *core.Call, res *core.Result) error {
		afterSaw = append(afterSaw, c.ID+"="+res.CallID)
		return nil
	}}))

	// With a key, a non-idempotent tool may run again until it succeeds.
	res := exec.Invoke(context.Background(), core.Call{ID: "first", Name: "charge", DedupKey: "order-1"})
	if !res.OK() || res.ForLLM != "done after 3" || f.runs.Load() != 3 {
		t.Fatalf("first: %q, %v after %d runs", res.ForLLM, res.Err, f.runs.Load())
	}
	// The key succeeded: the stored result comes back, nothing runs.
	res2 := exec.Invoke(context.Background(), core.Call{ID: "second", Name: "charge", DedupKey: "order-1"})
	if f.runs.Load() != 3 {
		t.Fatalf("a succeeded key ran the tool again (%d runs)", f.runs.Load())
	}
	if !res2.OK() || res2.ForLLM != "done after 3" {
		t.Fatalf("stored result: %q, %v", res2.ForLLM, res2.Err)
	}
	if res2.CallID != "second" || res.CallID != "first" {
		t.Fatalf("call IDs %q and %q: the stored result must carry the new call's ID", res.CallID, res2.CallID)
	}
	if !equalStrings(afterSaw, []string{"first=first", "second=second"}) {
		t.Fatalf("after hooks saw %q", afterSaw)
	}
	if res2 == res {
		t.Fatal("stored result is the same pointer as the first result")
	}

	// Another key, or no key, runs again.
	if r := exec.Invoke(context.Background(), core.Call{Name: "charge", DedupKey: "order-2"}); !r.OK() || f.runs.Load() != 4 {
		t.Fatalf("new key: %v, runs %d", r.Err, f.runs.Load())
	}
	if r := exec.Invoke(context.Background(), core.Call{Name: "charge"}); !r.OK() || f.runs.Load() != 5 {
		t.Fatalf("no key: %v, runs %d", r.Err, f.runs.Load())
	}
	// The key is per tool.
	if r := exec.Invoke(context.Background(), core.Call{Name: "other", DedupKey: "order-1"}); !r.OK() || r.ForLLM != "ok" {
		t.Fatalf("same key, other tool: %q %v", r.ForLLM, r.Err)
	}
}

func TestRetryDedupFailureIsNotStored(t *testing.T) {
	var s sleeps
	f := &flaky{failures: 3, err: errors.New("transient")}
	exec := retryExec(t, &s, executor.RetryOptions{Attempts: 2}, f.tool("t", false))
	res := exec.Invoke(context.Background(), core.Call{Name: "t", DedupKey: "k"})
	wantKind(t, res, core.KindFailed)
	if f.runs.Load() != 2 {
		t.Fatalf("runs %d, want 2", f.runs.Load())
	}
	res = exec.Invoke(context.Background(), core.Call{Name: "t", DedupKey: "k"})
	if !res.OK() || f.runs.Load() != 4 {
		t.Fatalf("after a failed key the call must run again: %v, runs %d", res.Err, f.runs.Load())
	}
}

func TestRetryDedupConcurrentRunsOnce(t *testing.T) {
	var runs atomic.Int32
	gate := make(chan struct{})
	tool := core.Tool{Name: "pay", ConcurrencySafe: core.Bool(true), Func: func(context.Context, json.RawMessage) (any, error) {
		runs.Add(1)
		<-gate
		return "paid", nil
	}}
	exec := newExec(t, []core.Tool{tool}, executor.WithExecutionMode(executor.ModeParallel))
	must(t, exec.Use(executor.Retry(executor.RetryOptions{})))
	const n = 8
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "pay", DedupKey: "invoice-7"}
	}
	go func() {
		for runs.Load() == 0 {
			yieldALot()
		}
		yieldALot() // let the others pile up on the key
		close(gate)
	}()
	var rs []*core.Result
	runWithWatchdog(t, "concurrent dedup", func() { rs = exec.ExecuteAll(context.Background(), calls) })
	if got := runs.Load(); got != 1 {
		t.Fatalf("one key executed %d times concurrently", got)
	}
	ids := map[string]bool{}
	for i, res := range rs {
		if !res.OK() || res.ForLLM != "paid" {
			t.Fatalf("result %d: %q %v", i, res.ForLLM, res.Err)
		}
		ids[res.CallID] = true
	}
	if len(ids) != n {
		t.Fatalf("%d distinct call IDs for %d calls", len(ids), n)
	}
}

func TestRetryDedupMaxKeys(t *testing.T) {
	var runs atomic.Int32
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { runs.Add(1); return "x", nil }}
	exec := newExec(t, []core.Tool{tool})
	must(t, exec.Use(executor.Retry(executor.RetryOptions{MaxKeys: 2})))
	for _, k := range []string{"a", "b", "a", "b"} {
		exec.Invoke(context.Background(), core.Call{Name: "t", DedupKey: k})
	}
	if runs.Load() != 2 {
		t.Fatalf("runs %d, want 2 (keys a and b remembered)", runs.Load())
	}
	exec.Invoke(context.Background(), core.Call{Name: "t", DedupKey: "c"}) // forgets a
	exec.Invoke(context.Background(), core.Call{Name: "t", DedupKey: "a"})
	if runs.Load() != 4 {
		t.Fatalf("runs %d, want 4 (a was forgotten, so it ran again)", runs.Load())
	}
}

// TestRetryDedupResultCallIDInsideChain: middleware outside Retry already
// sees the stored result with the new call's ID (not only the caller, whom
// the executor stamps anyway).
func TestRetryDedupResultCallIDInsideChain(t *testing.T) {
	var runs atomic.Int32
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { runs.Add(1); return "x", nil }}
	exec := newExec(t, []core.Tool{tool})
	var seen []string
	must(t, exec.Use(
		core.Middleware{Name: "observer", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			res := next(ctx, call)
			seen = append(seen, res.CallID)
			return res
		}},
		executor.Retry(executor.RetryOptions{}),
	))
	exec.Invoke(context.Background(), core.Call{ID: "one", Name: "t", DedupKey: "k"})
	exec.Invoke(context.Background(), core.Call{ID: "two", Name: "t", DedupKey: "k"})
	if runs.Load() != 1 || !equalStrings(seen, []string{"one", "two"}) {
		t.Fatalf("runs %d, middleware saw call IDs %q; want 1 and [one two]", runs.Load(), seen)
	}
}
