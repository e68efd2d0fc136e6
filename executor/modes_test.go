package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// checkOwnResults fails unless result i answers call i (no result lost,
// duplicated or swapped) and carries call i's ID.
func checkOwnResults(t *testing.T, calls []core.Call, rs []*core.Result) {
	t.Helper()
	if len(rs) != len(calls) {
		t.Fatalf("%d results for %d calls", len(rs), len(calls))
	}
	for i, res := range rs {
		if res == nil {
			t.Fatalf("result %d is nil", i)
		}
		if !res.OK() {
			t.Fatalf("result %d failed: %v", i, res.Err)
		}
		if want := strconv.Itoa(argIndex(calls[i].Args)); res.ForLLM != want {
			t.Fatalf("result %d answers call %s: results are lost, duplicated or out of order", i, res.ForLLM)
		}
		if res.Tool != calls[i].Name {
			t.Fatalf("result %d is for tool %q, call was %q", i, res.Tool, calls[i].Name)
		}
	}
}

// overlapTools returns tools named after their safety declaration whose
// calls record overlap: "unsafe" (false), "safe" (true), "undeclared"
// (nil). A call of an unsafe tool must never overlap anything; every tool
// yields a lot while in flight so that an allowed overlap really happens.
type overlapProbe struct {
	all        inflight // every call
	unsafeBusy atomic.Int32
	violations atomic.Int32
	msgs       sync.Map
}

func (p *overlapProbe) tools(exclusive ...string) []core.Tool {
	alone := map[string]bool{"unsafe": true}
	for _, n := range exclusive {
		alone[n] = true
	}
	mk := func(name string, safe *bool) core.Tool {
		return core.Tool{Name: name, ConcurrencySafe: safe, Func: func(_ context.Context, args json.RawMessage) (any, error) {
			i := argIndex(args)
			n := p.all.enter()
			defer p.all.exit()
			if alone[name] {
				p.unsafeBusy.Add(1)
				defer p.unsafeBusy.Add(-1)
				if n != 1 {
					p.violate(fmt.Sprintf("%s call %d started with %d calls in flight", name, i, n))
				}
			}
			yieldALot()
			if alone[name] && p.all.now() != 1 {
				p.violate(fmt.Sprintf("a call overlapped %s call %d", name, i))
			}
			if !alone[name] && p.unsafeBusy.Load() != 0 {
				p.violate(fmt.Sprintf("%s call %d overlapped a call that must run alone", name, i))
			}
			return strconv.Itoa(i), nil
		}}
	}
	return []core.Tool{mk("unsafe", core.Bool(false)), mk("safe", core.Bool(true)), mk("undeclared", nil)}
}

func (p *overlapProbe) violate(msg string) {
	p.violations.Add(1)
	p.msgs.Store(msg, true)
}

func (p *overlapProbe) check(t *testing.T) {
	t.Helper()
	if p.violations.Load() != 0 {
		p.msgs.Range(func(k, _ any) bool { t.Error(k); return true })
		t.FailNow()
	}
}

func mkCalls(names ...string) []core.Call {
	calls := make([]core.Call, len(names))
	for i, n := range names {
		calls[i] = core.Call{Name: n, Args: indexArgs(i)}
	}
	return calls
}

func TestSerialNeverOverlaps(t *testing.T) {
	var p overlapProbe
	exec := newExec(t, p.tools()) // serial is the default mode
	if exec.Mode() != executor.ModeSerial {
		t.Fatalf("default mode %s, want serial", exec.Mode())
	}
	calls := mkCalls("safe", "safe", "undeclared", "safe", "unsafe", "safe", "safe", "undeclared")
	rs := exec.ExecuteAll(context.Background(), calls)
	checkOwnResults(t, calls, rs)
	p.check(t)
	if peak := p.all.peak(); peak != 1 {
		t.Fatalf("serial mode ran %d calls at once", peak)
	}
}

// rendezvousTool returns a tool whose calls block until `need` calls of it
// are in flight at the same moment, which proves they overlap; if they
// never do, the watchdog fails the call instead of hanging the test.
func rendezvousTool(name string, safe *bool, need int32) core.Tool {
	var arrived atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	return core.Tool{Name: name, ConcurrencySafe: safe, Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		if arrived.Add(1) >= need {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
			return strconv.Itoa(argIndex(args)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-watchdog():
			return nil, fmt.Errorf("watchdog: %s call %d never overlapped with %d others", name, argIndex(args), need-1)
		}
	}}
}

func TestParallelOverlapsSafeAndUndeclared(t *testing.T) {
	exec := newExec(t, []core.Tool{
		rendezvousTool("safe", core.Bool(true), 3),
		rendezvousTool("undeclared", nil, 3),
	}, executor.WithExecutionMode(executor.ModeParallel))
	// Three calls of each tool must all be in flight together.
	calls := mkCalls("safe", "undeclared", "safe", "undeclared", "safe", "undeclared")
	var rs []*core.Result
	runWithWatchdog(t, "parallel batch", func() { rs = exec.ExecuteAll(context.Background(), calls) })
	checkOwnResults(t, calls, rs)
}

func TestParallelUnsafeIsABarrier(t *testing.T) {
	var p overlapProbe
	exec := newExec(t, p.tools(), executor.WithExecutionMode(executor.ModeParallel))
	calls := mkCalls("safe", "undeclared", "safe", "unsafe", "safe", "undeclared", "unsafe", "unsafe", "safe", "safe")
	for range 5 {
		var rs []*core.Result
		runWithWatchdog(t, "parallel batch", func() { rs = exec.ExecuteAll(context.Background(), calls) })
		checkOwnResults(t, calls, rs)
		p.check(t)
	}
	if p.all.peak() < 2 {
		t.Fatalf("parallel mode never overlapped safe calls (peak %d)", p.all.peak())
	}
}

// TestBarrierDrainsAndResumes checks the barrier by what must have finished:
// an unsafe call starts only after every earlier pooled call finished, and
// later pooled calls start only after the unsafe call finished.
func TestBarrierDrainsAndResumes(t *testing.T) {
	for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeMixed} {
		t.Run(mode.String(), func(t *testing.T) {
			var finished atomic.Int32
			var bad atomic.Value
			var unsafeDone atomic.Bool
			pooled := rendezvousTool("pooled", core.Bool(true), 2)
			inner := pooled.Func
			pooled.Func = func(ctx context.Context, args json.RawMessage) (any, error) {
				i := argIndex(args)
				if i > 2 && !unsafeDone.Load() {
					bad.Store(fmt.Sprintf("pooled call %d started before the barrier finished", i))
				}
				defer finished.Add(1)
				return inner(ctx, args)
			}
			barrier := core.Tool{Name: "barrier", ConcurrencySafe: core.Bool(false), Func: func(_ context.Context, args json.RawMessage) (any, error) {
				if n := finished.Load(); n != 2 {
					bad.Store(fmt.Sprintf("barrier started when %d of the 2 earlier calls had finished", n))
				}
				yieldALot()
				unsafeDone.Store(true)
				return strconv.Itoa(argIndex(args)), nil
			}}
			exec := newExec(t, []core.Tool{pooled, barrier})
			// Calls 0,1 rendezvous (so they overlap), 2 is the barrier,
			// 3,4 rendezvous again (the pool resumed).
			calls := mkCalls("pooled", "pooled", "barrier", "pooled", "pooled")
			var rs []*core.Result
			runWithWatchdog(t, "batch", func() { rs = exec.ExecuteAll(context.Background(), calls, executor.InMode(mode)) })
			if v := bad.Load(); v != nil {
				t.Fatal(v)
			}
			checkOwnResults(t, calls, rs)
		})
	}
}

func TestMixedPoolsOnlyExplicitlySafe(t *testing.T) {
	var p overlapProbe
	// In mixed mode an undeclared tool is fail-closed: it must run alone.
	tools := p.tools("undeclared")
	exec := newExec(t, tools, executor.WithExecutionMode(executor.ModeMixed))
	calls := mkCalls("safe", "safe", "undeclared", "safe", "safe", "unsafe", "undeclared", "undeclared", "safe")
	for range 5 {
		var rs []*core.Result
		runWithWatchdog(t, "mixed batch", func() { rs = exec.ExecuteAll(context.Background(), calls) })
		checkOwnResults(t, calls, rs)
		p.check(t)
	}
	if p.all.peak() < 2 {
		t.Fatalf("mixed mode never overlapped safe calls (peak %d)", p.all.peak())
	}

	// Explicitly safe tools do overlap in mixed mode.
	exec2 := newExec(t, []core.Tool{rendezvousTool("safe", core.Bool(true), 4)}, executor.WithExecutionMode(executor.ModeMixed))
	calls = mkCalls("safe", "safe", "safe", "safe")
	var rs []*core.Result
	runWithWatchdog(t, "mixed safe batch", func() { rs = exec2.ExecuteAll(context.Background(), calls) })
	checkOwnResults(t, calls, rs)
}

// TestResultsInCallOrder releases the calls in reverse order, so they finish
// last-first, and checks the results still come back in call order.
func TestResultsInCallOrder(t *testing.T) {
	const n = 8
	for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeMixed} {
		t.Run(mode.String(), func(t *testing.T) {
			release := make([]chan struct{}, n)
			for i := range release {
				release[i] = make(chan struct{})
			}
			var started atomic.Int32
			var order recorder
			done := make(chan int, n)
			tool := core.Tool{Name: "t", ConcurrencySafe: core.Bool(true), Func: func(_ context.Context, args json.RawMessage) (any, error) {
				i := argIndex(args)
				started.Add(1)
				select {
				case <-release[i]:
				case <-watchdog():
					return nil, fmt.Errorf("call %d never released", i)
				}
				order.add(strconv.Itoa(i))
				done <- i
				return strconv.Itoa(i), nil
			}}
			exec := newExec(t, []core.Tool{tool})
			calls := mkCalls("t", "t", "t", "t", "t", "t", "t", "t")
			go func() {
				for started.Load() < n {
					yieldALot()
				}
				for i := n - 1; i >= 0; i-- {
					close(release[i])
					<-done // call i finished before the next is released
				}
			}()
			var rs []*core.Result
			runWithWatchdog(t, "batch", func() { rs = exec.ExecuteAll(context.Background(), calls, executor.InMode(mode)) })
			checkOwnResults(t, calls, rs)
			if got := order.get(); !equalStrings(got, []string{"7", "6", "5", "4", "3", "2", "1", "0"}) {
				t.Fatalf("completion order %q: the test did not finish calls in reverse", got)
			}
			for i, res := range rs {
				if want := "call_" + strconv.Itoa(i+1); res.CallID != want {
					t.Fatalf("result %d has ID %q, want %q (IDs are assigned in call order)", i, res.CallID, want)
				}
			}
		})
	}
}

func TestConcurrencyBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		opts  []executor.BatchOption
		exec  []executor.Option
	}{
		{"option", 3, nil, []executor.Option{executor.WithConcurrency(3)}},
		{"batch", 2, []executor.BatchOption{executor.WithLimit(2)}, []executor.Option{executor.WithConcurrency(5)}},
		{"one", 1, []executor.BatchOption{executor.WithLimit(1)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const total = 12
			var fl inflight
			tokens := make(chan struct{})
			tool := core.Tool{Name: "t", Func: func(_ context.Context, args json.RawMessage) (any, error) {
				fl.enter()
				defer fl.exit()
				select {
				case <-tokens:
				case <-watchdog():
					return nil, fmt.Errorf("never released")
				}
				return strconv.Itoa(argIndex(args)), nil
			}}
			opts := append([]executor.Option{executor.WithExecutionMode(executor.ModeParallel)}, tc.exec...)
			exec := newExec(t, []core.Tool{tool}, opts...)
			calls := make([]core.Call, total)
			for i := range calls {
				calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
			}
			var reachedLimit atomic.Bool
			go func() {
				for released := 0; released < total; released++ {
					want := min(tc.limit, total-released)
					for fl.now() < want {
						yieldALot()
					}
					if fl.now() == tc.limit {
						reachedLimit.Store(true)
					}
					yieldALot() // room for a call beyond the limit to start
					tokens <- struct{}{}
				}
			}()
			var rs []*core.Result
			runWithWatchdog(t, "bounded batch", func() { rs = exec.ExecuteAll(context.Background(), calls, tc.opts...) })
			checkOwnResults(t, calls, rs)
			if peak := fl.peak(); peak > tc.limit {
				t.Fatalf("%d calls ran at once, limit %d", peak, tc.limit)
			}
			if !reachedLimit.Load() || fl.peak() != tc.limit {
				t.Fatalf("the pool never reached its limit %d (peak %d)", tc.limit, fl.peak())
			}
		})
	}
}

// TestZeroConcurrencyIsTheDefault: 0 means DefaultConcurrency, so a batch
// smaller than that runs all at once; negative is refused.
func TestZeroConcurrencyIsTheDefault(t *testing.T) {
	const n = 16
	exec := newExec(t, []core.Tool{rendezvousTool("t", nil, n)}, executor.WithExecutionMode(executor.ModeParallel), executor.WithConcurrency(0))
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
	}
	var rs []*core.Result
	runWithWatchdog(t, "default-bound batch", func() { rs = exec.ExecuteAll(context.Background(), calls) })
	checkOwnResults(t, calls, rs)
	if err := exec.SetConcurrency(-1); err == nil {
		t.Fatal("negative concurrency accepted")
	}
	if exec.Concurrency() != 0 {
		t.Fatalf("concurrency changed to %d by a refused value", exec.Concurrency())
	}
}

func TestBatchIDs(t *testing.T) {
	var seen sync.Map // index -> call ID seen by a before hook
	exec := newExec(t, []core.Tool{{Name: "t", ConcurrencySafe: core.Bool(true), Func: func(_ context.Context, args json.RawMessage) (any, error) {
		return strconv.Itoa(argIndex(args)), nil
	}}})
	must(t, exec.AddBefore(core.BeforeHook{Name: "ids", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		seen.Store(argIndex(c.Args), c.ID)
		return nil, nil
	}}))
	if _, err := exec.InvokeTool(context.Background(), "t", indexArgs(-1)); err != nil { // uses call_1
		t.Fatal(err)
	}
	calls := make([]core.Call, 10)
	for i := range calls {
		calls[i] = core.Call{Name: "t", Args: indexArgs(i)}
	}
	calls[4].ID = "custom"
	for _, m := range []executor.Mode{executor.ModeParallel, executor.ModeMixed, executor.ModeSerial} {
		rs := exec.ExecuteAll(context.Background(), calls, executor.InMode(m))
		checkOwnResults(t, calls, rs)
		ids := map[string]bool{}
		var prev uint64
		for i, res := range rs {
			id, _ := seen.Load(i)
			if id != res.CallID {
				t.Fatalf("%s: hook saw ID %v for call %d, result has %q", m, id, i, res.CallID)
			}
			if ids[res.CallID] {
				t.Fatalf("%s: duplicate ID %q", m, res.CallID)
			}
			ids[res.CallID] = true
			if i == 4 {
				if res.CallID != "custom" {
					t.Fatalf("caller's ID replaced: %q", res.CallID)
				}
				continue
			}
			var n uint64
			if _, err := fmt.Sscanf(res.CallID, "call_%d", &n); err != nil || n <= prev {
				t.Fatalf("%s: IDs not assigned in call order: %q after call_%d", m, res.CallID, prev)
			}
			prev = n
		}
	}
	if calls[0].ID != "" {
		t.Fatal("ExecuteAll changed the caller's slice")
	}
}

func TestSerialCancelStopsTheRest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran atomic.Int32
	tool := core.Tool{Name: "t", Func: func(_ context.Context, args json.RawMessage) (any, error) {
		ran.Add(1)
		if argIndex(args) == 1 {
			cancel()
		}
		return strconv.Itoa(argIndex(args)), nil
	}}
	exec := newExec(t, []core.Tool{tool})
	calls := mkCalls("t", "t", "t", "t", "t")
	rs := exec.ExecuteAll(ctx, calls, executor.InMode(executor.ModeSerial))
	if !rs[0].OK() || rs[0].ForLLM != "0" || !rs[1].OK() || rs[1].ForLLM != "1" {
		t.Fatalf("calls before the cancel: %v %v", rs[0].Err, rs[1].Err)
	}
	for i := 2; i < len(rs); i++ {
		wantKind(t, rs[i], core.KindCanceled)
		if rs[i].CallID == "" || rs[i].Tool != "t" {
			t.Fatalf("cancelled result %d lacks identity: %+v", i, rs[i])
		}
	}
	if n := ran.Load(); n != 2 {
		t.Fatalf("tool ran %d times, want 2", n)
	}
}

func TestParallelCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int32
	tool := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { ran.Add(1); return "", nil }}
	exec := newExec(t, []core.Tool{tool})
	for _, m := range []executor.Mode{executor.ModeParallel, executor.ModeMixed} {
		rs := exec.ExecuteAll(ctx, mkCalls("t", "t", "t"), executor.InMode(m))
		for i, res := range rs {
			wantKind(t, res, core.KindCanceled)
			_ = i
		}
	}
	if ran.Load() != 0 {
		t.Fatalf("tool ran %d times under a cancelled context", ran.Load())
	}
}

func TestExecuteAllEmptyAndUnknown(t *testing.T) {
	exec := newExec(t, []core.Tool{okTool("t")}, executor.WithExecutionMode(executor.ModeParallel))
	if rs := exec.ExecuteAll(context.Background(), nil); len(rs) != 0 {
		t.Fatalf("%d results for no calls", len(rs))
	}
	rs := exec.ExecuteAll(context.Background(), []core.Call{{Name: "t"}, {Name: "nope"}, {Name: "t", Args: json.RawMessage(`[]`)}})
	if !rs[0].OK() {
		t.Fatal(rs[0].Err)
	}
	wantKind(t, rs[1], core.KindUnknownTool)
	wantKind(t, rs[2], core.KindInvalidArguments)
}

func TestParseMode(t *testing.T) {
	for _, m := range []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed} {
		got, err := executor.ParseMode(m.String())
		if err != nil || got != m {
			t.Fatalf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := executor.ParseMode("PARALLEL"); err != nil || got != executor.ModeParallel {
		t.Fatalf("ParseMode is not case-insensitive: %v %v", got, err)
	}
	if _, err := executor.ParseMode("fast"); err == nil {
		t.Fatal("ParseMode accepted fast")
	}
	exec := newExec(t, nil)
	exec.SetMode(executor.ModeMixed)
	if exec.Mode() != executor.ModeMixed {
		t.Fatal("SetMode had no effect")
	}
}

// watchdog returns a channel that fires after the watchdog timeout; it
// only turns a hang into a failure.
func watchdog() <-chan time.Time { return time.After(watchdogTimeout) }
