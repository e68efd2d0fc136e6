package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// How the parts of long runs meet: subagents with budgets, sessions and
// nested runs.

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

// memJournal keeps what a journal is given.
type memJournal struct {
	mu   sync.Mutex
	msgs []provider.Message
}

func (j *memJournal) ID() string { return "s1" }
func (j *memJournal) Append(m provider.Message, _ []core.Decision) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.msgs = append(j.msgs, m)
	return nil
}
func (j *memJournal) Replace(msgs []provider.Message, _ string) error { return nil }
func (j *memJournal) Commit(int, provider.Usage) error                { return nil }
func (j *memJournal) Close() error                                    { return nil }

// TestSubagentsAreNotJournalled: a subagent's conversation is its own and
// is not saved; the session holds the parent's conversation, with the
// task's result, and only one journal is opened.
func TestSubagentsAreNotJournalled(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t1", "child")), answer("done")).
		on("child", calls(tc("r1", "read", `{}`)), answer("child done"))
	var opened atomic.Int64
	j := &memJournal{}
	e := newSubagentEnv(t, r, WithJournal(func(string) (Journal, error) {
		opened.Add(1)
		return j, nil
	}))
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil || reply.SessionID != "s1" {
		t.Fatalf("Run = %+v, %v", reply, err)
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("%d journals opened, want 1 (the parent's)", n)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var roles []string
	for _, m := range j.msgs {
		roles = append(roles, m.Role+":"+m.Name+m.Content)
		if m.Content == "child" || m.ToolCallID == "r1" {
			t.Errorf("the child's message %+v was journalled", m)
		}
	}
	if got, want := strings.Join(roles, " | "), "user:top | assistant:working | tool:taskchild done | assistant:done"; got != want {
		t.Errorf("journalled\n got %s\nwant %s", got, want)
	}
}
