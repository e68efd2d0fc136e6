package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/telemetry"
)

// echo returns its text argument; redact, an after hook, hides "s3cret"
// in what the caller gets.
func tracedExec(t *testing.T, content bool) (*executor.Executor, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reg := core.NewRegistry()
	echo := core.Tool{Name: "echo", Func: func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ Text string }
		json.Unmarshal(args, &a)
		return a.Text, nil
	}}
	if err := reg.RegisterTools(echo); err != nil {
		t.Fatal(err)
	}
	redact := core.AfterHook{Name: "redact", Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
		res.ForLLM = strings.ReplaceAll(res.ForLLM, "s3cret", "[redacted]")
		return nil
	}}
	tr := telemetry.New(tp, content).RedactWith(executor.DefaultRedactor)
	return executor.New(reg, executor.WithAfterHooks(redact), executor.WithTracing(tr)), rec
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, a := range s.Attributes() {
		m[a.Key] = a.Value.Emit()
	}
	return m
}

func TestContentOnlyWhenAsked(t *testing.T) {
	for _, content := range []bool{false, true} {
		exec, rec := tracedExec(t, content)
		sent := json.RawMessage(`{"text":"the s3cret is out","api_key":"k-123"}`)
		if _, err := exec.InvokeTool(context.Background(), "echo", sent); err != nil {
			t.Fatal(err)
		}
		spans := rec.Ended()
		if len(spans) != 1 || spans[0].Name() != "execute_tool echo" {
			t.Fatalf("content %v: spans %v, want one execute_tool echo", content, spans)
		}
		a := attrs(spans[0])
		args, hasArgs := a[telemetry.ToolCallArguments]
		out, hasOut := a[telemetry.ToolCallResult]
		if !content {
			if hasArgs || hasOut {
				t.Errorf("without content capture the span holds arguments %q and output %q", args, out)
			}
			continue
		}
		// The arguments as the tool ran them, with secret fields masked.
		if args != `{"api_key":"[REDACTED]","text":"the s3cret is out"}` {
			t.Errorf("arguments = %q", args)
		}
		// The output is what the caller got: after the redacting hook.
		if out != "the [redacted] is out" {
			t.Errorf("output = %q, want the redacted one", out)
		}
	}
}

func TestContentIsClipped(t *testing.T) {
	exec, rec := tracedExec(t, true)
	big := strings.Repeat("é", 10_000) // 20,000 bytes
	b, _ := json.Marshal(map[string]string{"text": big})
	if _, err := exec.InvokeTool(context.Background(), "echo", b); err != nil {
		t.Fatal(err)
	}
	out := attrs(rec.Ended()[0])[telemetry.ToolCallResult]
	if len(out) > 8<<10+len("…") || !strings.HasSuffix(out, "…") {
		t.Fatalf("output of %d bytes on the span, want at most 8 KiB and a mark that it was cut", len(out))
	}
	if !strings.HasPrefix(big, strings.TrimSuffix(out, "…")) {
		t.Fatalf("the cut output is not a prefix of the output, or splits a character")
	}
}

// Decide evaluates without running: it starts no span, so a trace shows
// only calls that happened.
func TestDecideStartsNoSpan(t *testing.T) {
	exec, rec := tracedExec(t, false)
	exec.Decide(context.Background(), core.Call{Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
	if n := len(rec.Started()); n != 0 {
		t.Fatalf("Decide started %d spans, want none", n)
	}
}

// A nil Tracer is tracing off: every method may be called on it.
func TestNilTracer(t *testing.T) {
	var tr *telemetry.Tracer
	if telemetry.New(nil, true) != nil {
		t.Fatal("New(nil) is not nil")
	}
	ctx := context.Background()
	if got, span := tr.StartAgent(ctx, "main", "", "m"); got != ctx || span != nil {
		t.Fatal("a nil Tracer started an agent span")
	}
	if got, span := tr.StartChat(ctx, "p", "m", 1); got != ctx || span != nil {
		t.Fatal("a nil Tracer started a chat span")
	}
	telemetry.End(nil, nil)
	telemetry.EndChat(nil, telemetry.Usage{}, nil)
	if tr.Tracer() != nil {
		t.Fatal("a nil Tracer has a tracer")
	}
}
