package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSubagentsDrawOnTheParentsBudget: a child spends its parent's
// budget. The parent's task call and the child's first write use the two
// calls allowed; the child's second write is refused by "budget" without
// running, shows in the parent's denials with the child's id, and the
// after hooks see it (the audit misses nothing).
func TestSubagentsDrawOnTheParentsBudget(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t1", "child")), answer("done")).
		on("child", calls(tc("w1", "write", `{}`), tc("w2", "write", `{}`)), answer("never asked"))
	b := NewBudget(Limits{ToolCalls: 2}, nil)
	e := newSubagentEnv(t, r, WithBudget(b))
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.writes.Load(); got != 1 {
		t.Errorf("%d writes ran, want 1: the budget allows the task and one write", got)
	}
	if sp := b.Spent(); sp.ToolCalls != 2 {
		t.Errorf("spent %d tool calls, want 2 (the parent's task, the child's first write)", sp.ToolCalls)
	}
	var got []string
	for _, d := range reply.Denials {
		got = append(got, fmt.Sprintf("%s %s %s by %s", d.Agent, d.CallID, d.Tool, d.Hook))
	}
	if want := "main/1 w2 write by budget"; strings.Join(got, "; ") != want {
		t.Errorf("parent's denials %q, want %q", got, want)
	}
	if len(r.requests("child")) != 1 {
		t.Errorf("the child made %d requests, want 1: its run stops at the refusal", len(r.requests("child")))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !strings.Contains(strings.Join(e.after, "\n"), "write main/1 rejected") {
		t.Errorf("the after hooks did not see the refused write:\n%s", strings.Join(e.after, "\n"))
	}
}

// TestRunFromASubagentsTool: a tool a subagent calls that asks the
// top-level agent (whose Run waits for the subagent) fails with
// ErrNestedRun instead of waiting for itself.
func TestRunFromASubagentsTool(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t1", "child")), answer("done")).
		on("child", calls(tc("a1", "asker", `{}`)), answer("child done"))
	e := newSubagentEnv(t, r)
	var nested error
	asker := goTool("asker", func(ctx context.Context, _ json.RawMessage) (any, error) {
		_, nested = e.a.Run(ctx, "from inside")
		return "asked", nil
	})
	if err := e.a.RegisterTools(asker); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.a.Run(ctx, "top"); err != nil {
		t.Fatalf("Run: %v (a nested Run that waits for itself ends only by the timeout)", err)
	}
	if !errors.Is(nested, ErrNestedRun) {
		t.Errorf("the nested Run returned %v, want ErrNestedRun", nested)
	}
}
