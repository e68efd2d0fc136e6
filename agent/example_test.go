package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// countWords is a read-only Go tool: a model's calls of it run without
// asking anyone.
var countWords = core.Tool{
	Name:        "count_words",
	Description: "Counts the words of a text.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	ReadOnly:    true,
	Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ Text string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		return fmt.Sprint(len(strings.Fields(a.Text))), nil
	},
}

// An agent run, offline: provider.Func is a scripted model, a Go function
// of the conversation. This one asks for a tool call on the first turn and
// answers with the tool's result on the second. The model's call goes
// through the executor's pipeline like any other.
func ExampleAgent_Run() {
	ctx := context.Background()
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == provider.RoleUser {
			return provider.Response{ToolCalls: []provider.ToolCall{
				{ID: "c1", Name: "count_words", Args: json.RawMessage(`{"text":"the quick brown fox"}`)},
			}}, nil
		}
		return provider.Response{Content: "It has " + last.Content + " words."}, nil
	}}

	a, err := agent.New(agent.WithProvider(model), agent.WithValidateArguments(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	a.RegisterTools(countWords)

	reply, err := a.Run(ctx, "How many words are in 'the quick brown fox'?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (stop %s, %d turns, %d tool calls)\n", reply.Text, reply.Stop, reply.Turns, reply.ToolCalls)
	for _, m := range a.Messages() {
		switch {
		case len(m.ToolCalls) > 0:
			fmt.Printf("%s: calls %s %s\n", m.Role, m.ToolCalls[0].Name, m.ToolCalls[0].Args)
		case m.Role == provider.RoleTool:
			fmt.Printf("%s: %s (result of %s)\n", m.Role, m.Content, m.ToolCallID)
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Content)
		}
	}
	// Output:
	// It has 4 words. (stop final, 2 turns, 1 tool calls)
	// user: How many words are in 'the quick brown fox'?
	// assistant: calls count_words {"text":"the quick brown fox"}
	// tool: 4 (result of c1)
	// assistant: It has 4 words.
}

// A model's call of a tool that is not declared read-only asks a person
// when no policy decides; with no Approver to ask, it is refused, and the
// model is told why. Reply.Denials lists what was refused.
func ExampleAgent_Run_denied() {
	ctx := context.Background()
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == provider.RoleUser {
			return provider.Response{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "delete_all"}}}, nil
		}
		return provider.Response{Content: "I could not: " + last.Content}, nil
	}}
	a, err := agent.New(agent.WithProvider(model))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	a.RegisterTools(core.Tool{
		Name: "delete_all",
		Func: func(ctx context.Context, args json.RawMessage) (any, error) { return "deleted", nil },
	})

	reply, err := a.Run(ctx, "Clean up.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Text)
	for _, d := range reply.Denials {
		fmt.Println("denied:", d.Tool, "by", d.Hook)
	}
	// Output:
	// I could not: error (rejected): needs approval: the model called delete_all, which is not read-only; no approver is set
	// denied: delete_all by default
}

// Lifecycle hooks see each step of a run and may change it: here a
// before_model hook adds to the system prompt of every request, and a
// turn_end hook reports each turn.
func ExampleAgent_On() {
	ctx := context.Background()
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{Content: "system prompt: " + req.System}, nil
	}}
	a, err := agent.New(agent.WithProvider(model), agent.WithSystemPrompt("Be brief."))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	a.On(agent.LifecycleHook{Name: "style", Event: agent.BeforeModel, Func: func(ctx context.Context, d *agent.LifecycleData) error {
		d.Request.System += " Answer in English."
		return nil
	}})
	a.On(agent.LifecycleHook{Name: "report", Event: agent.TurnEnd, Func: func(ctx context.Context, d *agent.LifecycleData) error {
		fmt.Println("turn", d.Turn, "ended")
		return nil
	}})

	reply, err := a.Run(ctx, "Hi")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Text)
	// Output:
	// turn 1 ended
	// system prompt: Be brief. Answer in English.
}
