package agentapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/script/agentapi"
)

// benchModels are scripted models that call the tool "noop" until the
// conversation holds 2*turns messages (the prompt, then an answer and a
// result per turn), then answer. Each looks only at the last message and
// the length of the history, so what grows with the history is the
// loop's work, not the script's.
var benchModels = map[string]string{
	"star": `
def m(messages, tools):
    last = messages[-1]
    if len(messages) >= 2 * TURNS:
        return "done"
    return {"content": last["content"], "tool_calls": [{"name": "noop", "args": {"n": len(messages)}}]}
model(m)
`,
	"lua": `
model(function(messages, tools)
  local last = messages[#messages]
  if #messages >= 2 * TURNS then return "done" end
  return {content = last.content, tool_calls = {{name = "noop", args = {n = #messages}}}}
end)
`,
}

// benchScriptModel runs conversations of turns turns with the scripted
// model of lang and reports the cost of one turn.
func benchScriptModel(b *testing.B, lang string, turns int) {
	// An observer that keeps nothing: the env's own keeps every event.
	e := newEnv(b, agentapi.Config{SystemPrompt: "Be brief.", Observer: func(agent.Event) {}})
	e.goTool("noop", func(context.Context, json.RawMessage) (any, error) { return "ok", nil })
	prefix := fmt.Sprintf("TURNS = %d\n", turns)
	e.run(lang, prefix+benchModels[lang])
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := e.sess.NewConversation(ctx); err != nil {
			b.Fatal(err)
		}
		r, err := e.sess.Ask(ctx, "go", turns)
		if err != nil || r.Turns != turns || r.Text != "done" {
			b.Fatalf("reply %+v, err %v", r, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
}

// BenchmarkScriptModelTurns: the agent loop with a Starlark model, per
// turn, in conversations of 25 and of 200 turns. The history is sent
// every turn; a loop that converts only the new messages costs about the
// same per turn at either length.
func BenchmarkScriptModelTurns(b *testing.B) {
	for _, turns := range []int{25, 200} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) { benchScriptModel(b, "star", turns) })
	}
}

// BenchmarkScriptModelTurnsLua: the same with a Lua model.
func BenchmarkScriptModelTurnsLua(b *testing.B) {
	for _, turns := range []int{25, 200} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) { benchScriptModel(b, "lua", turns) })
	}
}
