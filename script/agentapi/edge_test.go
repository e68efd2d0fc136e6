package agentapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

// TestEmptyLuaTablesAsLists: an empty Lua table where a list belongs (no
// tool calls, no messages, no command) means an empty list.
func TestEmptyLuaTablesAsLists(t *testing.T) {
	e := newEnv(t, agentapi.Config{MCP: &fakeMCP{}})
	e.runLua(`
model(function(messages, tools) return {content = "nothing to do", tool_calls = {}} end)
print(ask("hi").text)
`)
	wantLines(t, e.lines(), "nothing to do")
	err := e.execLua(context.Background(), `mcp_server("x", {command = {}})`)
	wantErr(t, "empty command", err, "give either command")
}

// TestToolCallArgsMustBeJSON: a model's args string that is not JSON is a
// clear error, also when the run is recorded.
func TestToolCallArgsMustBeJSON(t *testing.T) {
	var rec bytes.Buffer
	e := newEnv(t, agentapi.Config{Record: &rec})
	err := e.execStar(context.Background(), `
model(lambda messages, tools: {"tool_calls": [{"name": "zz", "args": "not json"}]})
ask("hi")
`)
	wantErr(t, "bad args", err, `tool_calls[0].args "not json", which is not valid JSON`)
}

// TestBeforeModelPassThroughKeepsBlocksAndCache: messages a before_model
// hook hands back unchanged keep their images and cache marks, which
// scripts cannot see.
func TestBeforeModelPassThroughKeepsBlocksAndCache(t *testing.T) {
	var seen []provider.Request
	model := provider.Func{Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
		seen = append(seen, req)
		if len(seen) == 1 {
			return provider.Response{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shot", Args: json.RawMessage(`{}`)}}}, nil
		}
		return provider.Response{Content: "done"}, nil
	}}
	e := newEnv(t, agentapi.Config{Provider: model, Extensions: []core.Extension{agent.PromptCaching()}})
	e.goTool("shot", func(context.Context, json.RawMessage) (any, error) {
		return core.BlockOutput{Text: "a picture", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{1}}}}, nil
	})
	e.runStar(`
on("before_model", lambda ev: {"messages": ev["request"]["messages"]})
ask("take a picture")
`)
	last := seen[1].Messages
	if len(last) != 3 || len(last[2].Blocks) != 1 || !last[2].Cache {
		t.Fatalf("second request's messages: %+v; want the tool message with its image and the cache mark", last)
	}
}

// TestNestedAskFails: ask() from inside a tool the model called fails at
// once with a clear error instead of waiting for itself.
func TestNestedAskFails(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	done := make(chan error, 1)
	go func() {
		done <- e.execStar(context.Background(), `
def sub(args):
    return ask("inner").text

tool(name = "sub", fn = sub, read_only = True)

def scripted(messages, tools):
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "sub", "args": {}}]}
    return messages[-1]["content"]

model(scripted)
print(ask("outer").text)
`)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(errDetail(err))
		}
	case <-time.After(testwait.Step):
		t.Fatal("a nested ask() hung")
	}
	out := strings.Join(e.lines(), "\n")
	wantContains(t, out, "the agent is already answering a prompt")
}
