package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// fillTool's calls wait until bound of them are in flight at once (which
// proves the pool admits that many), then all pass straight through. It
// records the peak of calls in flight and of goroutines.
func fillTool(name string, safe *bool, bound int, fl *inflight, goroutines *atomic.Int64) core.Tool {
	full := make(chan struct{})
	var once sync.Once
	return core.Tool{Name: name, ConcurrencySafe: safe, Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		if fl.enter() >= bound {
			once.Do(func() { close(full) })
		}
		defer fl.exit()
		for n := int64(runtime.NumGoroutine()); ; {
			old := goroutines.Load()
			if n <= old || goroutines.CompareAndSwap(old, n) {
				break
			}
		}
		select {
		case <-full:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-watchdog():
			return nil, fmt.Errorf("watchdog: the pool never held %d calls at once", bound)
		}
		return strconv.Itoa(argIndex(args)), nil
	}}
}

// TestDefaultPoolBound: with no concurrency set (or 0), a parallel batch
// of 30,000 calls runs at most DefaultConcurrency of them at once (and does
// reach it), holds no more goroutines than that plus a few, and returns
// every result, in call order.
func TestDefaultPoolBound(t *testing.T) {
	bound := executor.DefaultConcurrency
	for _, tc := range []struct {
		name string
		n    int
		exec []executor.Option
		opts []executor.BatchOption
	}{
		{"unset", 30_000, nil, nil},
		{"concurrency 0", 3_000, []executor.Option{executor.WithConcurrency(0)}, nil},
		{"limit 0", 3_000, []executor.Option{executor.WithConcurrency(3)}, []executor.BatchOption{executor.WithLimit(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fl inflight
			var goroutines atomic.Int64
			exec := newExec(t, []core.Tool{fillTool("t", nil, bound, &fl, &goroutines)},
				append([]executor.Option{executor.WithExecutionMode(executor.ModeParallel)}, tc.exec...)...)
			calls := make([]core.Call, tc.n)
			for i := range calls {
				calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
			}
			base := runtime.NumGoroutine()
			var rs []*core.Result
			runWithWatchdog(t, fmt.Sprintf("a batch of %d", tc.n), func() { rs = exec.ExecuteAll(context.Background(), calls, tc.opts...) })
			checkOwnResults(t, calls, rs)
			if peak := fl.peak(); peak != bound {
				t.Errorf("at most %d calls ran at once, want exactly the bound %d", peak, bound)
			}
			// The watchdog's goroutine comes on top.
			if peak := goroutines.Load(); peak > int64(base+bound+8) {
				t.Errorf("%d goroutines at the peak, want at most %d (%d before + bound %d + 8)", peak, base+bound+8, base, bound)
			}
		})
	}
}

// TestMixedPoolBound: in mixed mode, safe calls between barriers share
// the same default bound.
func TestMixedPoolBound(t *testing.T) {
	const n = 2_000
	bound := executor.DefaultConcurrency
	var fl inflight
	var goroutines atomic.Int64
	barrier := core.Tool{Name: "barrier", ConcurrencySafe: core.Bool(false), Func: func(_ context.Context, args json.RawMessage) (any, error) {
		if fl.now() != 0 {
			return nil, fmt.Errorf("a barrier ran alongside %d calls", fl.now())
		}
		return strconv.Itoa(argIndex(args)), nil
	}}
	exec := newExec(t, []core.Tool{fillTool("safe", core.Bool(true), bound, &fl, &goroutines), barrier},
		executor.WithExecutionMode(executor.ModeMixed))
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "safe", Args: indexArgs(i)}
	}
	calls[n/2].Name = "barrier"
	base := runtime.NumGoroutine()
	var rs []*core.Result
	runWithWatchdog(t, "a mixed batch", func() { rs = exec.ExecuteAll(context.Background(), calls) })
	checkOwnResults(t, calls, rs)
	if peak := fl.peak(); peak != bound {
		t.Errorf("at most %d calls ran at once, want exactly the bound %d", peak, bound)
	}
	if peak := goroutines.Load(); peak > int64(base+bound+8) {
		t.Errorf("%d goroutines at the peak, want at most %d", peak, base+bound+8)
	}
}

// TestHugeLimit: a bound far beyond the batch is no bound, and costs
// nothing for it.
func TestHugeLimit(t *testing.T) {
	const n = 100
	exec := newExec(t, []core.Tool{rendezvousTool("t", nil, n)}, executor.WithExecutionMode(executor.ModeParallel))
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
	}
	var rs []*core.Result
	runWithWatchdog(t, "a batch with a huge limit", func() {
		rs = exec.ExecuteAll(context.Background(), calls, executor.WithLimit(1<<62))
	})
	checkOwnResults(t, calls, rs)
}
