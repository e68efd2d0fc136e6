package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// BenchmarkSubagents: a parent run whose first turn has n calls and whose
// second answers, where each call is a task whose child answers at once
// (children), or the same calls of a tool that answers at once (inline).
// The difference per call is what a subagent costs over the call it
// replaces: a child agent, its Run (one model request) and its events.
//
//	go test ./agent/ -run '^$' -bench BenchmarkSubagents -benchmem
func BenchmarkSubagents(b *testing.B) {
	for _, n := range []int{1, 8} {
		for _, kind := range []string{"inline", "children"} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				name := "answer"
				if kind == "children" {
					name = TaskToolName
				}
				p := provider.Func{Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
					if req.Messages[0].Content != "go" {
						return provider.Response{Content: "child done"}, nil // a child answers at once
					}
					if len(req.Messages) > 1 {
						return provider.Response{Content: "done"}, nil
					}
					resp := provider.Response{Content: "working"}
					for i := 0; i < n; i++ {
						resp.ToolCalls = append(resp.ToolCalls, provider.ToolCall{ID: fmt.Sprintf("c%d", i), Name: name, Args: json.RawMessage(`{"prompt":"do it"}`)})
					}
					return resp, nil
				}}
				a, err := New(WithProvider(p), WithValidateArguments(true), WithPermissions(executor.PermissionsAllowAll),
					WithSubagentLimits(SubagentLimits{PerRun: n}))
				if err != nil {
					b.Fatal(err)
				}
				answer := core.Tool{Name: "answer", Parameters: json.RawMessage(taskParams), ReadOnly: true,
					Func: func(context.Context, json.RawMessage) (any, error) {
						return core.DualToolOutput{ForLLM: "child done", ForUser: "answered"}, nil
					}}
				if err := a.RegisterTools(answer, a.TaskTool()); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { a.Close() })
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					a.Reset(ctx)
					if r, err := a.Run(ctx, "go"); err != nil || r.ToolCalls != n || r.Text != "done" {
						b.Fatalf("reply %+v, err %v", r, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
			})
		}
	}
}
