package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// TestTextCutOffStopsWithMaxTokens: an answer without calls that hit the
// token limit is not a final answer: the reply says max_tokens.
func TestTextCutOffStopsWithMaxTokens(t *testing.T) {
	for _, reason := range []string{"max_tokens", "length", "model_context_window_exceeded"} {
		s := &script{steps: []func(provider.Request) provider.Response{
			func(provider.Request) provider.Response {
				return provider.Response{Content: "The answer is", StopReason: reason}
			},
		}}
		reply, err := newAgent(t, s).Run(context.Background(), "q")
		if err != nil || reply.Stop != StopMaxTokens || reply.Text != "The answer is" || reply.Turns != 1 || reply.Dropped != nil {
			t.Errorf("stop reason %s: reply %+v, %v; want Stop max_tokens with the text", reason, reply, err)
		}
	}
}

// TestIncompleteNeedsACutOff: Incomplete calls of an answer that was not
// cut off (a scripted model's mistake) are ignored, not reported.
func TestIncompleteNeedsACutOff(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		func(provider.Request) provider.Response {
			return provider.Response{Content: "done", StopReason: "end_turn", Incomplete: []provider.ToolCall{{ID: "x", Name: "double"}}}
		},
	}}
	var events []string
	a := newAgent(t, s, WithObserver(func(e Event) { events = append(events, e.Type) }))
	reply, err := a.Run(context.Background(), "q")
	if err != nil || reply.Stop != StopFinal || reply.Dropped != nil || strings.Contains(strings.Join(events, ","), "dropped") {
		t.Errorf("reply %+v, events %v, %v; want a final answer and nothing dropped", reply, events, err)
	}
}

// TestInvalidArgsInParallelBatch: in a parallel batch of five calls, the
// one with arguments that are not JSON gets invalid_arguments, after hooks
// see it, and the others run; results stay in call order.
func TestInvalidArgsInParallelBatch(t *testing.T) {
	var batch []provider.ToolCall
	for i := range 5 {
		batch = append(batch, tc(fmt.Sprintf("c%d", i), "double", fmt.Sprintf(`{"n": %d}`, i)))
	}
	batch[2] = provider.ToolCall{ID: "c2", Name: "double", InvalidArgs: `{"n": 2`}
	s := &script{steps: []func(provider.Request) provider.Response{calls(batch...), answer("ok")}}
	a := newAgent(t, s, WithExecutionMode(executor.ModeParallel))
	if err := a.RegisterTools(goTool("double", func(_ context.Context, raw json.RawMessage) (any, error) {
		var args struct{ N int }
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, err
		}
		return fmt.Sprint(2 * args.N), nil
	})); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]core.Kind{}
	if err := a.Executor().AddAfter(core.AfterHook{Name: "audit", Func: func(_ context.Context, c *core.Call, r *core.Result) error {
		mu.Lock()
		defer mu.Unlock()
		seen[c.ID] = r.Kind()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "double")
	if err != nil || reply.Stop != StopFinal || reply.ToolCalls != 5 {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	msgs := a.Messages()[2:7]
	for i, m := range msgs {
		want := fmt.Sprint(2 * i)
		if i == 2 {
			if !m.IsError || !strings.HasPrefix(m.Content, "error (invalid_arguments): invalid arguments for double: arguments are not valid JSON") {
				t.Errorf("result of c2: %+v, want invalid_arguments", m)
			}
			continue
		}
		if m.ToolCallID != fmt.Sprintf("c%d", i) || m.Content != want || m.IsError {
			t.Errorf("result %d: %+v, want %s for c%d", i, m, want, i)
		}
	}
	if seen["c2"] != core.KindInvalidArguments || len(seen) != 5 {
		t.Errorf("after hooks saw %v, want all five and c2 invalid_arguments", seen)
	}
	// The conversation keeps the malformed call as the model wrote it (the
	// adapters send it back with {} as its arguments).
	if got := s.seen[1].Messages[1].ToolCalls[2]; got.InvalidArgs == "" || got.Args != nil {
		t.Errorf("the conversation holds %+v, want the call with its InvalidArgs", got)
	}
}
