package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/provider"
)

// provider.Func is the scripted model: a Go function from the conversation
// to the model's next answer. It is how tests and offline runs drive an
// agent, deterministically. Here a conversation goes back and forth by
// hand, as the agent loop would do it: the model asks for a tool call, the
// caller answers with the tool's result, the model gives its final answer.
func ExampleFunc() {
	ctx := context.Background()
	model := provider.Func{Label: "scripted:demo", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch last.Role {
		case provider.RoleUser:
			return provider.Response{
				Content:   "Let me look.",
				ToolCalls: []provider.ToolCall{{ID: "c1", Name: "grep", Args: json.RawMessage(`{"pattern":"TODO"}`)}},
			}, nil
		case provider.RoleTool:
			n := strings.Count(last.Content, "\n")
			return provider.Response{Content: fmt.Sprintf("There are %d TODOs.", n)}, nil
		}
		return provider.Response{}, fmt.Errorf("unexpected %s message", last.Role)
	}}

	req := provider.Request{
		System:   "You find things.",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Find the TODOs."}},
		Tools:    []provider.ToolDef{{Name: "grep", Description: "Searches files."}},
	}
	show := func(text string) { fmt.Printf("streamed: %q\n", text) }
	for turn := 1; ; turn++ {
		resp, err := model.Complete(ctx, req, show)
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Messages = append(req.Messages, provider.Message{Role: provider.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			fmt.Println(model.Name(), "answered in", turn, "turns:", resp.Content)
			return
		}
		for _, c := range resp.ToolCalls {
			fmt.Println("tool call:", c.Name, string(c.Args))
			req.Messages = append(req.Messages, provider.Message{
				Role: provider.RoleTool, ToolCallID: c.ID, Name: c.Name,
				Content: "a.go:3:// TODO\nb.go:7:// TODO\n",
			})
		}
	}
	// Output:
	// streamed: "Let me look."
	// tool call: grep {"pattern":"TODO"}
	// streamed: "There are 2 TODOs."
	// scripted:demo answered in 2 turns: There are 2 TODOs.
}
