package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

func TestExtendPrompt(t *testing.T) {
	for _, c := range []struct {
		e    agent.Exhaustion
		want string
	}{
		{agent.Exhaustion{Budget: "tool_calls", Limit: 3, Spent: 3, Need: 1, Extend: 3}, "budget exhausted: 3 tool calls of 3; extend by 3? [y/N] "},
		{agent.Exhaustion{Budget: "tool_calls", Limit: 1, Spent: 1, Need: 1, Extend: 1}, "budget exhausted: 1 tool call of 1; extend by 1? [y/N] "},
		{agent.Exhaustion{Budget: "tool", Tool: "bash", Limit: 2, Spent: 2, Need: 1, Extend: 2}, "budget exhausted: 2 bash calls of 2; extend by 2? [y/N] "},
		{agent.Exhaustion{Budget: "tool", Tool: "bash", Limit: 1, Spent: 1, Need: 1, Extend: 1}, "budget exhausted: 1 bash call of 1; extend by 1? [y/N] "},
		{agent.Exhaustion{Budget: "tokens", Limit: 1, Spent: 1, Need: 1, Extend: 1}, "budget exhausted: 1 token of 1; extend by 1? [y/N] "},
		{agent.Exhaustion{Budget: "tokens", Limit: 1000, Spent: 900, Need: 600, Extend: 1000}, "budget exhausted: 900 tokens of 1000; extend by 1000? [y/N] "},
		{agent.Exhaustion{Budget: "cost", Limit: 0.5, Spent: 0.48, Need: 0.05, Extend: 0.5}, "budget exhausted: $0.48 of $0.50 spent; extend by $0.50? [y/N] "},
		{agent.Exhaustion{Budget: "wall", Limit: 600, Spent: 601, Extend: 600}, "budget exhausted: 10m1s of 10m0s wall time used; extend by 10m0s? [y/N] "},
	} {
		if got := extendPrompt(&c.e); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

func TestExtendAtPrompt(t *testing.T) {
	e := &agent.Exhaustion{Budget: "tool_calls", Limit: 1, Spent: 1, Need: 1, Extend: 1}
	for _, c := range []struct {
		answer string
		err    error
		want   bool
		out    string
	}{
		{"y", nil, true, ""},
		{" YES \n", nil, true, ""},
		{"", nil, false, ""},
		{"n", nil, false, ""},
		{"sure", nil, false, ""},
		{"", errAborted, false, "not extended (Ctrl-C)\n"},
		{"", io.EOF, false, ""},
	} {
		var out strings.Builder
		var mu sync.Mutex
		var asked []string
		got := extendAtPrompt(context.Background(), &mu, func(p string) (string, error) {
			asked = append(asked, p)
			return c.answer, c.err
		}, &out, e)
		if got != c.want || out.String() != c.out || len(asked) != 1 {
			t.Errorf("answer %q err %v: got %v, out %q, asked %q", c.answer, c.err, got, out.String(), asked)
		}
	}
	// A canceled run is not asked.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var mu sync.Mutex
	if extendAtPrompt(ctx, &mu, func(string) (string, error) { return "", errors.New("asked") }, io.Discard, e) {
		t.Error("extended a canceled run")
	}
}

// TestExtendThroughBudget: a yes at the prompt raises the limit by what
// it offered, and the refused call runs; the run goes on to its answer.
func TestExtendThroughBudget(t *testing.T) {
	b := agent.NewBudget(agent.Limits{ToolCalls: 2}, nil)
	var mu sync.Mutex
	var prompts []string
	b.SetOnExhausted(func(ctx context.Context, e *agent.Exhaustion) bool {
		return extendAtPrompt(ctx, &mu, func(p string) (string, error) { prompts = append(prompts, p); return "y", nil }, io.Discard, e)
	})
	turn := 0
	model := provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		turn++
		if turn == 1 {
			return provider.Response{ToolCalls: []provider.ToolCall{{ID: "1", Name: "t", Args: json.RawMessage(`{}`)},
				{ID: "2", Name: "t", Args: json.RawMessage(`{}`)}, {ID: "3", Name: "t", Args: json.RawMessage(`{}`)}}}, nil
		}
		return provider.Response{Content: "done"}, nil
	}}
	a, err := agent.New(agent.WithBudget(b), agent.WithProvider(model), agent.WithPermissions(executor.PermissionsAllowAll))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var ran int
	a.RegisterTools(core.Tool{Name: "t", Description: "t", Func: func(context.Context, json.RawMessage) (any, error) { ran++; return "ok", nil }})
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if ran != 3 || reply.Stop != agent.StopFinal || len(reply.Denials) != 0 {
		t.Errorf("ran %d, reply %+v", ran, reply)
	}
	if strings.Join(prompts, "|") != "budget exhausted: 2 tool calls of 2; extend by 2? [y/N] " || b.Limits().ToolCalls != 4 {
		t.Errorf("prompts %q, limit %d", prompts, b.Limits().ToolCalls)
	}
}
