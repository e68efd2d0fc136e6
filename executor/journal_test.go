package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// recordingJournal runs each call's work and records the calls in the
// order the executor hands them over.
type recordingJournal struct {
	mu    sync.Mutex
	calls []string
	swap  map[string]*core.Result // a call's recorded result, returned instead of running it
}

func (j *recordingJournal) Execute(ctx context.Context, call *core.Call, run func(context.Context) *core.Result) *core.Result {
	j.mu.Lock()
	j.calls = append(j.calls, call.ID+" "+call.Name)
	r := j.swap[call.ID]
	j.mu.Unlock()
	if r != nil {
		return r
	}
	return run(ctx)
}

func TestJournalSeesEveryCallInOrder(t *testing.T) {
	ran := 0
	reg := core.NewRegistry()
	safe := true
	if err := reg.RegisterTools(core.Tool{Name: "echo", ConcurrencySafe: &safe, Func: func(_ context.Context, args json.RawMessage) (any, error) {
		ran++
		return string(args), nil
	}}); err != nil {
		t.Fatal(err)
	}
	j := &recordingJournal{swap: map[string]*core.Result{"call_2": {ForLLM: "from the journal"}}}
	e := executor.New(reg, executor.WithJournal(j), executor.WithExecutionMode(executor.ModeParallel), executor.WithConcurrency(8))
	var calls []core.Call
	for i := range 20 {
		calls = append(calls, core.Call{Name: "echo", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
	}
	results := e.ExecuteAll(context.Background(), calls, executor.WithLimit(8))
	var want []string
	for i := range 20 {
		want = append(want, fmt.Sprintf("call_%d echo", i+1))
	}
	if got := strings.Join(j.calls, ","); got != strings.Join(want, ",") {
		t.Errorf("the journal saw the calls in the order\n%s\nwant\n%s", got, strings.Join(want, ","))
	}
	if ran != 19 {
		t.Errorf("the tool ran %d times, want 19 (one call's result came from the journal)", ran)
	}
	if got := results[1].ForLLM; got != "from the journal" {
		t.Errorf("call_2's result: got %q, want the journal's", got)
	}
	if got := results[0].ForLLM; got != `{"n":0}` {
		t.Errorf("call_1's result: got %q, want its output", got)
	}
}

func TestJournalNotSeenForCallsThatDoNotRun(t *testing.T) {
	reg := core.NewRegistry()
	if err := reg.RegisterTools(core.Tool{Name: "echo", Func: func(_ context.Context, args json.RawMessage) (any, error) { return "ran", nil }}); err != nil {
		t.Fatal(err)
	}
	j := &recordingJournal{}
	e := executor.New(reg, executor.WithJournal(j), executor.WithBeforeHooks(core.BeforeHook{Name: "no", Tools: []string{"echo"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("no") }}))
	res, err := e.InvokeTool(context.Background(), "echo", json.RawMessage(`{}`))
	if err == nil || res.Kind() != core.KindRejected {
		t.Fatalf("a denied call: got %v (%s), want rejected", err, res.Kind())
	}
	if _, err := e.InvokeTool(context.Background(), "nope", json.RawMessage(`{}`)); err == nil {
		t.Fatal("an unknown tool ran")
	}
	if len(j.calls) != 0 {
		t.Errorf("the journal saw calls that never ran: %v", j.calls)
	}
}
