package agentapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script/agentapi"
)

// cancelModels call the wait tool when asked to wait, and otherwise say
// what the conversation holds.
var cancelModels = map[string]string{
	"star": `
def m(messages, tools):
    last = messages[-1]
    if last["role"] == "user" and last["content"] == "wait":
        return {"content": "waiting", "tool_calls": [{"name": "wait"}]}
    tool_msgs = [x for x in messages if x["role"] == "tool"]
    return "roles %s; wait error %s" % (",".join([x["role"] for x in messages]),
                                          tool_msgs[-1]["is_error"] if tool_msgs else "none")
model(m)
`,
	"lua": `
model(function(messages, tools)
  local last = messages[#messages]
  if last.role == "user" and last.content == "wait" then
    return {content = "waiting", tool_calls = {{name = "wait"}}}
  end
  local roles, err = {}, "none"
  for _, x in ipairs(messages) do
    roles[#roles + 1] = x.role
    if x.role == "tool" then err = x.is_error and "True" or "False" end
  end
  return "roles " .. table.concat(roles, ",") .. "; wait error " .. err
end)
`,
}

// waitTool registers "wait", which blocks until its call's context ends,
// announcing each start on the returned channel.
func waitTool(e *env) <-chan struct{} {
	started := make(chan struct{}, 4)
	e.goTool("wait", func(ctx context.Context, args json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return started
}

// TestAskCanceled: ask() under a context that is cancelled while a tool
// runs stops with an error; the cancelled call still gets its (failed)
// result, so the next ask continues the same conversation.
func TestAskCanceled(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			started := waitTool(e)
			e.run(lang, cancelModels[lang])
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-started:
				case <-time.After(testwait.Step):
				}
				cancel()
			}()
			var err error
			if lang == "lua" {
				err = e.execLua(ctx, `ask("wait")`)
			} else {
				err = e.execStar(ctx, `ask("wait")`)
			}
			wantErr(t, "cancelled ask", err, "ask: context canceled")

			e.run(lang, `print(ask("again").text)`)
			wantLines(t, e.lines(), "roles user,assistant,tool,user; wait error True")
			msgs := e.sess.Agent().Messages()
			if tm := msgs[2]; tm.Role != "tool" || tm.Name != "wait" || !tm.IsError || tm.ToolCallID != msgs[1].ToolCalls[0].ID {
				t.Errorf("the cancelled call's message = %+v", tm)
			}
		})
	}
}

// TestAskDeadline: a deadline ends ask() the same way, and the session
// goes on.
func TestAskDeadline(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			waitTool(e)
			e.run(lang, cancelModels[lang])
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			defer cancel()
			var err error
			if lang == "lua" {
				err = e.execLua(ctx, `ask("wait")`)
			} else {
				err = e.execStar(ctx, `ask("wait")`)
			}
			wantErr(t, "ask under a deadline", err, "ask: context deadline exceeded")
			e.run(lang, `print(ask("again").text)`)
			wantLines(t, e.lines(), "roles user,assistant,tool,user; wait error True")
		})
	}
}

// TestSessionAskCanceled: from Go (the REPL's :ask), a cancelled run
// reports Stop "canceled" with the context's error.
func TestSessionAskCanceled(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	started := waitTool(e)
	e.runStar(cancelModels["star"])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	reply, err := e.sess.Ask(ctx, "wait", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask: %v, want context.Canceled", err)
	}
	if reply.Stop != agent.StopCanceled || reply.Turns != 1 || reply.ToolCalls != 1 || reply.Text != "waiting" {
		t.Errorf("reply = %+v, want 1 turn, 1 tool call, stop canceled", reply)
	}
	reply, err = e.sess.Ask(context.Background(), "again", 0)
	if err != nil || reply.Stop != agent.StopFinal || reply.Text != "roles user,assistant,tool,user; wait error True" {
		t.Errorf("next Ask: %+v, %v", reply, err)
	}

	// A context cancelled before ask() stops at once, without asking the
	// model.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	err = e.execStar(ctx, `ask("again")`)
	if err == nil {
		t.Fatal("ask under a cancelled context: no error")
	}
}
