package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestNestedCallsDoNotDeadlock: a pooled tool calls InvokeTool and
// ExecuteAll (parallel, concurrency 1, with a barrier call inside) while the
// outer batch holds its only slot; hooks and middleware call tools too.
func TestNestedCallsDoNotDeadlock(t *testing.T) {
	var exec *executor.Executor
	var leafRuns atomic.Int32
	leaf := core.Tool{Name: "leaf", ConcurrencySafe: core.Bool(true), Func: func(_ context.Context, args json.RawMessage) (any, error) {
		leafRuns.Add(1)
		return "leaf" + strconv.Itoa(argIndex(args)), nil
	}}
	lonely := core.Tool{Name: "lonely", ConcurrencySafe: core.Bool(false), Func: func(context.Context, json.RawMessage) (any, error) {
		return "lonely", nil
	}}
	outer := core.Tool{Name: "outer", ConcurrencySafe: core.Bool(true), Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		i := argIndex(args)
		res, err := exec.InvokeTool(ctx, "leaf", indexArgs(i))
		if err != nil {
			return nil, err
		}
		parts := []string{res.ForLLM}
		rs := exec.ExecuteAll(ctx, []core.Call{
			{Name: "leaf", Args: indexArgs(100 + i)},
			{Name: "lonely"},
			{Name: "leaf", Args: indexArgs(200 + i)},
		}, executor.InMode(executor.ModeParallel), executor.WithLimit(1))
		for _, r := range rs {
			if r.Err != nil {
				return nil, r.Err
			}
			parts = append(parts, r.ForLLM)
		}
		return strings.Join(parts, ","), nil
	}}
	exec = newExec(t, []core.Tool{leaf, lonely, outer})
	must(t, exec.AddBefore(core.BeforeHook{Name: "nested-policy", Tools: []string{"outer"}, Func: func(ctx context.Context, _ *core.Call) (json.RawMessage, error) {
		_, err := exec.InvokeTool(ctx, "leaf", indexArgs(-1))
		return nil, err
	}}))
	must(t, exec.Use(core.Middleware{Name: "nested-mw", Tools: []string{"outer"}, Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
		rs := exec.ExecuteAll(ctx, []core.Call{{Name: "leaf", Args: indexArgs(-2)}}, executor.InMode(executor.ModeMixed), executor.WithLimit(1))
		if rs[0].Err != nil {
			return rs[0]
		}
		return next(ctx, call)
	}}))

	const n = 6
	calls := make([]core.Call, n)
	for i := range calls {
		calls[i] = core.Call{Name: "outer", Args: indexArgs(i)}
	}
	for _, mode := range []executor.Mode{executor.ModeParallel, executor.ModeMixed, executor.ModeSerial} {
		leafRuns.Store(0)
		var rs []*core.Result
		runWithWatchdog(t, "nested batch in "+mode.String(), func() {
			rs = exec.ExecuteAll(context.Background(), calls, executor.InMode(mode), executor.WithLimit(1))
		})
		for i, res := range rs {
			want := fmt.Sprintf("leaf%d,leaf%d,lonely,leaf%d", i, 100+i, 200+i)
			if !res.OK() || res.ForLLM != want {
				t.Fatalf("%s: result %d = %q, %v; want %q", mode, i, res.ForLLM, res.Err, want)
			}
		}
		// per outer call: 1 from the hook, 1 from the middleware, 1 direct, 2 in the batch
		if got := leafRuns.Load(); got != 5*n {
			t.Fatalf("%s: leaf ran %d times, want %d", mode, got, 5*n)
		}
	}
}

// TestRegistryChangesWhileCallsRun is for the race detector: goroutines
// register, replace and unregister tools while others invoke them. Every
// call either runs the tool it resolved at its start or is unknown_tool.
func TestRegistryChangesWhileCallsRun(t *testing.T) {
	reg := core.NewRegistry()
	exec := executor.New(reg, executor.WithValidateArguments(true), executor.WithExecutionMode(executor.ModeParallel))
	must(t, exec.AddBefore(core.BeforeHook{Name: "noop", Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, nil }}))
	must(t, reg.RegisterTools(okTool("stable")))
	mkTool := func(name string, version int) core.Tool {
		return core.Tool{
			Name:       name,
			Parameters: json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer"}}}`),
			Func: func(context.Context, json.RawMessage) (any, error) {
				return name + " v" + strconv.Itoa(version), nil
			},
		}
	}
	var wg sync.WaitGroup
	var stop atomic.Bool
	var bad atomic.Value
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "dyn" + strconv.Itoa(w)
			for v := 0; !stop.Load() && v < 300; v++ {
				if err := reg.RegisterTools(mkTool(name, v)); err != nil {
					bad.Store(err.Error())
					return
				}
				_ = reg.ReplaceTools(mkTool(name, v))
				_ = reg.ToolNames()
				_ = reg.GetTool(name)
				if err := reg.UnregisterTools(name); err != nil {
					bad.Store(err.Error())
					return
				}
			}
		}()
	}
	var calls atomic.Int32
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				name := "dyn" + strconv.Itoa((w+i)%2)
				res, _ := exec.InvokeTool(context.Background(), name, indexArgs(i))
				calls.Add(1)
				switch {
				case res.OK() && strings.HasPrefix(res.ForLLM, name+" v"):
				case errors.Is(res.Err, core.ErrUnknownTool):
				default:
					bad.Store(fmt.Sprintf("call of %s: %q, %v", name, res.ForLLM, res.Err))
				}
				rs := exec.ExecuteAll(context.Background(), []core.Call{{Name: "stable"}, {Name: name}})
				if !rs[0].OK() {
					bad.Store(fmt.Sprintf("stable tool failed: %v", rs[0].Err))
				}
			}
		}()
	}
	runWithWatchdog(t, "registry churn", wg.Wait)
	stop.Store(true)
	if v := bad.Load(); v != nil {
		t.Fatal(v)
	}
	if calls.Load() != 450 {
		t.Fatalf("%d calls finished, want 450", calls.Load())
	}
}

// TestCallKeepsTheToolItResolved: a tool replaced while a call of it runs
// does not affect that call (its after hooks and schema stay the old ones).
func TestCallKeepsTheToolItResolved(t *testing.T) {
	reg := core.NewRegistry()
	exec := executor.New(reg)
	var r recorder
	v1 := core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) {
		must(t, reg.ReplaceTools(core.Tool{Name: "t", Func: func(context.Context, json.RawMessage) (any, error) { return "v2", nil },
			After: []core.AfterFunc{r.afterFunc("v2 after")}}))
		return "v1", nil
	}, After: []core.AfterFunc{r.afterFunc("v1 after")}}
	must(t, reg.RegisterTools(v1))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	if res.ForLLM != "v1" {
		t.Fatalf("first call %q", res.ForLLM)
	}
	res, _ = exec.InvokeTool(context.Background(), "t", nil)
	if res.ForLLM != "v2" {
		t.Fatalf("second call %q", res.ForLLM)
	}
	if got := r.get(); !equalStrings(got, []string{"v1 after", "v2 after"}) {
		t.Fatalf("after hooks %q", got)
	}
}
