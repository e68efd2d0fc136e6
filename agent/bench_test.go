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

// benchModel answers with calls tool calls for turns-1 turns, then a final
// answer; it is the cheapest possible scripted model, so the benchmarks
// measure the loop.
func benchModel(turns, calls int) provider.Provider {
	return provider.Func{Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
		done := 0
		for _, m := range req.Messages {
			if m.Role == provider.RoleAssistant {
				done++
			}
		}
		if done+1 >= turns {
			return provider.Response{Content: "done"}, nil
		}
		resp := provider.Response{Content: "working"}
		for i := 0; i < calls; i++ {
			name := "read"
			if i == calls-1 {
				name = "write" // unsafe: a barrier in mixed mode
			}
			resp.ToolCalls = append(resp.ToolCalls, provider.ToolCall{ID: fmt.Sprintf("c%d_%d", done, i), Name: name, Args: json.RawMessage(`{"n":1}`)})
		}
		return resp, nil
	}}
}

func benchAgent(b *testing.B, p provider.Provider) *Agent {
	b.Helper()
	a, err := New(WithProvider(p), WithValidateArguments(true), WithExecutionMode(executor.ModeMixed), WithMaxTurns(100), WithPermissions(executor.PermissionsAllowAll))
	if err != nil {
		b.Fatal(err)
	}
	yes, no := true, false
	params := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	noop := func(context.Context, json.RawMessage) (any, error) { return "ok", nil }
	if err := a.RegisterTools(
		core.Tool{Name: "read", Parameters: params, ConcurrencySafe: &yes, Func: noop},
		core.Tool{Name: "write", Parameters: params, ConcurrencySafe: &no, Func: noop},
	); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
}

// BenchmarkTurn: the loop's cost for one conversation of one turn (a final
// answer) and of two turns (one tool call, then the answer), with a
// model that costs nothing. ns/op divided by the turns is the overhead per
// turn.
func BenchmarkTurn(b *testing.B) {
	for _, tc := range []struct {
		name         string
		turns, calls int
	}{{"final", 1, 0}, {"one_tool_call", 2, 1}} {
		b.Run(tc.name, func(b *testing.B) {
			a := benchAgent(b, benchModel(tc.turns, tc.calls))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				a.Reset(ctx)
				if r, err := a.Run(ctx, "go"); err != nil || r.Turns != tc.turns {
					b.Fatalf("reply %+v, err %v", r, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tc.turns), "ns/turn")
		})
	}
}

// BenchmarkConversation50x3: a 50-turn conversation with 3 tool calls per
// turn in mixed mode (two safe calls and an unsafe one), validated
// arguments, the whole history sent every turn.
func BenchmarkConversation50x3(b *testing.B) {
	a := benchAgent(b, benchModel(50, 3))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(ctx)
		r, err := a.Run(ctx, "go")
		if err != nil || r.Turns != 50 || r.ToolCalls != 49*3 {
			b.Fatalf("reply %+v, err %v", r, err)
		}
	}
}

// BenchmarkSchemaFinal: a one-turn run whose answer is checked against a
// schema (WithSchema), to compare with BenchmarkTurn/final: the cost of
// finding, validating and decoding a structured answer.
func BenchmarkSchemaFinal(b *testing.B) {
	answer := `{"name": "Ada", "age": 36, "tags": ["a", "b", "c"]}`
	a := benchAgent(b, provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{Content: answer}, nil
	}})
	s, err := CompileOutputSchema(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","age"]}`))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(ctx)
		if r, err := a.Run(ctx, "go", WithSchema(s)); err != nil || r.Data == nil {
			b.Fatalf("reply %+v, err %v", r, err)
		}
	}
}
