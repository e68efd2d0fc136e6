package serve

import (
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/telemetry"
)

// An MCP client's calls are traced like every other: each is a trace of
// its own, an execute_tool span with the origin mcp and the hook that
// settled it.
func TestCallsAreTraced(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ex := executor.New(core.NewRegistry(), executor.WithTracing(telemetry.New(tp, false)))
	t.Cleanup(func() { _ = ex.Close() })
	if err := ex.Registry().RegisterTools(textTool("look", "seen", true), textTool("push", "pushed", true)); err != nil {
		t.Fatal(err)
	}
	noPush := core.BeforeHook{Name: "no_push", Source: "policy.star:4", Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
		if call.Name == "push" {
			return nil, core.Deny("pushing is for people")
		}
		return nil, nil
	}}
	if err := ex.AddBefore(noPush); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, ex, Options{}), nil)
	call(t, cs, "look", map[string]any{})
	if res := call(t, cs, "push", map[string]any{}); !res.IsError {
		t.Fatalf("push was not refused: %s", text(res))
	}

	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want one for each call", len(spans))
	}
	want := []map[string]string{
		{"name": "execute_tool look", "agentsh.call.origin": "mcp", "agentsh.decision.verdict": "allow", "agentsh.decision.hook": "default", "agentsh.outcome": "ok"},
		{"name": "execute_tool push", "agentsh.call.origin": "mcp", "agentsh.decision.verdict": "deny", "agentsh.decision.hook": "no_push",
			"agentsh.decision.source": "policy.star:4", "agentsh.decision.reason": "pushing is for people", "agentsh.outcome": "rejected"},
	}
	for i, s := range spans {
		got := map[string]string{"name": s.Name()}
		for _, a := range s.Attributes() {
			got[string(a.Key)] = a.Value.Emit()
		}
		for k, v := range want[i] {
			if got[k] != v {
				t.Errorf("span %d: %s = %q, want %q", i, k, got[k], v)
			}
		}
		if s.Parent().IsValid() {
			t.Errorf("span %d has a parent; a client's call is a trace of its own", i)
		}
	}
}
