package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestAgentOnCalls: a call takes the agent of its context unless it names
// one; the calls nested in it (in its tool, and in a before hook) take
// its agent, in a batch too; results, Decide and Observe carry them; a
// call no agent made has none.
func TestAgentOnCalls(t *testing.T) {
	var exec *executor.Executor
	var mu sync.Mutex
	var seen []string
	record := func(call *core.Call) {
		mu.Lock()
		seen = append(seen, call.Name+"="+call.Agent+"<"+call.ParentAgent)
		mu.Unlock()
	}
	leaf := core.Tool{Name: "leaf", Func: func(context.Context, json.RawMessage) (any, error) { return "leaf", nil }}
	outer := core.Tool{Name: "outer", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		exec.InvokeTool(ctx, "leaf", nil)
		exec.ExecuteAll(ctx, []core.Call{{Name: "leaf"}, {Name: "leaf", Agent: "other", ParentAgent: "main"}}, executor.InMode(executor.ModeParallel))
		return "outer", nil
	}}
	reg := core.NewRegistry()
	if err := reg.RegisterTools(leaf, outer); err != nil {
		t.Fatal(err)
	}
	exec = executor.New(reg, executor.WithBeforeHooks(core.BeforeHook{Name: "rec", Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
		record(call)
		return nil, nil
	}}))
	defer exec.Close()

	ctx := core.WithAgent(context.Background(), "main/1", "main")
	res := exec.Invoke(ctx, core.Call{Name: "outer"})
	if res.Agent != "main/1" || res.ParentAgent != "main" {
		t.Errorf("result agent %q<%q", res.Agent, res.ParentAgent)
	}
	res = exec.Invoke(ctx, core.Call{Name: "outer", Agent: "main/2", ParentAgent: "main"})
	if res.Agent != "main/2" {
		t.Errorf("result agent %q", res.Agent)
	}
	exec.InvokeTool(context.Background(), "leaf", nil)
	if r := exec.Decide(ctx, core.Call{Name: "leaf"}); r == nil {
		t.Fatal("no ruling")
	}
	if res := exec.Observe(ctx, core.Call{Name: "leaf"}, nil); res.Agent != "main/1" {
		t.Errorf("observed agent %q", res.Agent)
	}
	mu.Lock()
	defer mu.Unlock()
	// The batch's calls run in parallel: sort each group of three.
	got := strings.Join(seen, " ")
	for _, want := range []string{
		"outer=main/1<main leaf=main/1<main",
		"outer=main/2<main leaf=main/2<main",
		"leaf=other<main",
		"leaf=< leaf=main/1<main",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("calls %s\nwant %s in them", got, want)
		}
	}
	if n := strings.Count(got, "leaf=main/2<main"); n != 2 {
		t.Errorf("calls %s: %d leaves of main/2, want 2 (one nested, one in the batch)", got, n)
	}
}
