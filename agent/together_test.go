package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
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
	// The budget is the parent's too: its run stops after the task's
	// turn, as if its own call had been refused.
	if reply.Stop != StopBudget || !strings.Contains(reply.Exhausted, "2 tool calls of 2 made") || len(r.requests("top")) != 1 {
		t.Errorf("parent stop %q, exhausted %q, %d requests; want budget after its first", reply.Stop, reply.Exhausted, len(r.requests("top")))
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

// TestRefusedAnswerIsCharged: an answer after_model refuses was paid
// for: its usage is in the reply and the budget.
func TestRefusedAnswerIsCharged(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{used(provider.Usage{InputTokens: 100, OutputTokens: 50})}}
	b := NewBudget(Limits{}, nil)
	a := newAgent(t, s, WithBudget(b))
	if err := a.On(LifecycleHook{Name: "refuse", Event: AfterModel, Func: func(context.Context, *LifecycleData) error {
		return errors.New("not this answer")
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "go")
	if err == nil {
		t.Fatal("Run: no error from a refused answer")
	}
	if reply.Usage.InputTokens != 100 || reply.Usage.OutputTokens != 50 {
		t.Errorf("reply usage %+v, want the refused answer's 100/50", reply.Usage)
	}
	if sp := b.Spent(); sp.Usage.InputTokens != 100 || sp.Requests != 1 {
		t.Errorf("budget spent %+v, want the refused answer's request", sp)
	}
}

// TestCompactOutsideARunIsSaved: a compaction asked for between runs
// (:compact, compact()) is committed to the session: reloading the file
// gives the compacted conversation, with no warning of a torn turn.
func TestCompactOutsideARunIsSaved(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var mu sync.Mutex
	var seen []provider.Request
	st := &session.Store{Dir: t.TempDir(), Workdir: "/w"}
	a := sessionAgent(t, st, &seen, &mu)
	for _, p := range []string{"one", "two"} {
		if _, err := a.Run(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	compactNow(t, a)
	held, id := a.Messages(), a.SessionID()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	path, _ := st.Path(id)
	l, err := session.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) > 0 {
		t.Errorf("warnings: %v", l.Warnings)
	}
	if got, want := messagesJSON(t, l.Messages), messagesJSON(t, held); got != want {
		t.Errorf("reloaded\n got %s\nwant the compacted %s", got, want)
	}
}

// TestResumeForgetsTheOldUsage: after resuming a short conversation, the
// next request's estimate is the short one's, not the size the replaced
// conversation last reported.
func TestResumeForgetsTheOldUsage(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{used(provider.Usage{InputTokens: 100000})}}
	a := newAgent(t, s)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if est := a.EstimateTokens(); est < 100000 {
		t.Fatalf("estimate %d before the resume, want the reported 100000 and more", est)
	}
	short := []provider.Message{{Role: provider.RoleUser, Content: "hi"}, {Role: provider.RoleAssistant, Content: "hello"}}
	if err := a.Resume(context.Background(), &memJournal{}, short); err != nil {
		t.Fatal(err)
	}
	if est := a.EstimateTokens(); est > 1000 {
		t.Errorf("estimate %d after resuming two short messages, want the small conversation's", est)
	}
}

// TestObserverOneEventAtATime: with children running at once, the
// observer is never called concurrently, by them or by the parent.
func TestObserverOneEventAtATime(t *testing.T) {
	const n = 4
	var tcs []provider.ToolCall
	r := newRouter()
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("child %d", i)
		tcs = append(tcs, task(fmt.Sprintf("t%d", i), p))
		r.on(p, calls(tc("r", "read", `{}`)), answer("done "+p))
	}
	r.on("top", calls(tcs...), answer("all done"))
	var inside, overlaps atomic.Int32
	e := newSubagentEnv(t, r, WithExecutionMode(executor.ModeParallel), WithObserver(func(Event) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		for i := 0; i < 200; i++ {
			runtime.Gosched()
		}
		inside.Add(-1)
	}))
	if _, err := e.a.Run(context.Background(), "top"); err != nil {
		t.Fatal(err)
	}
	if n := overlaps.Load(); n > 0 {
		t.Errorf("the observer was called concurrently %d times", n)
	}
}
