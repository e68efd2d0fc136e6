package otlpenv_test

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/internal/otlptest"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// cleanEnv unsets every OTEL_ variable and TRACEPARENT for the test, so that what the
// machine has set does not leak into it.
func cleanEnv(t testing.TB) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") || k == "TRACEPARENT" || k == "TRACESTATE" {
			t.Setenv(k, "")
		}
	}
}

// warnings gathers what Options.Warn receives.
type warnings struct {
	mu   sync.Mutex
	errs []string
}

func (w *warnings) warn(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, err.Error())
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.errs, "\n")
}

func TestFromEnvUnsetIsNothing(t *testing.T) {
	cleanEnv(t)
	t.Setenv(otlpenv.EnvCaptureContent, "true") // no endpoint: still nothing
	tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
	if err != nil || tr != nil {
		t.Fatalf("FromEnv with no endpoint = %v, %v; want nil, nil", tr, err)
	}
	// A nil *Traces is tracing off: every method does nothing.
	if tp := tr.TracerProvider(); tp != nil {
		t.Errorf("TracerProvider() = %v, want nil", tp)
	}
	if tr.Content() {
		t.Error("Content() = true with tracing off")
	}
	ctx := context.Background()
	got, end := tr.Start(ctx, otlpenv.Command{Name: "run"})
	if got != ctx {
		t.Error("Start changed the context with tracing off")
	}
	end(1)
	if err := tr.Shutdown(); err != nil {
		t.Errorf("Shutdown() = %v, want nil", err)
	}
}

func TestFromEnvRefusesBadValues(t *testing.T) {
	cleanEnv(t)
	t.Setenv(otlpenv.EnvEndpoint, "http://127.0.0.1:4318")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "team")
	_, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "OTEL_RESOURCE_ATTRIBUTES=team:") || !strings.Contains(err.Error(), "key=value pairs") {
		t.Errorf("FromEnv with OTEL_RESOURCE_ATTRIBUTES=team = %v, want an error naming it and the form it wants", err)
	}
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	t.Setenv(otlpenv.EnvProtocol, "thrift")
	_, err = otlpenv.FromEnv(context.Background(), otlpenv.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL=thrift:") {
		t.Errorf("FromEnv with OTEL_EXPORTER_OTLP_PROTOCOL=thrift = %v, want an error naming it", err)
	}
}

// TestExportsOverEachProtocol sends a command's root span and a child
// over each OTLP protocol to a receiver and reads them back.
func TestExportsOverEachProtocol(t *testing.T) {
	rcv := otlptest.Start(t)
	for _, tc := range []struct{ protocol, endpoint, request string }{
		{"", rcv.HTTP, "application/x-protobuf"},
		{"http/protobuf", rcv.HTTP, "application/x-protobuf"},
		{"http/json", rcv.HTTP, "application/json"},
		{"grpc", rcv.GRPC, "grpc"},
	} {
		t.Run("protocol="+tc.protocol, func(t *testing.T) {
			cleanEnv(t)
			t.Setenv(otlpenv.EnvEndpoint, tc.endpoint)
			t.Setenv(otlpenv.EnvTracesProtocol, tc.protocol)
			before := len(rcv.Requests())
			tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{Version: "v9.9.9"})
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSpace("agentsh hook " + tc.protocol)
			ctx, end := tr.Start(context.Background(), otlpenv.Command{Name: "hook", Detail: tc.protocol, Script: "s.star", RunID: "r1"})
			_, child := tr.TracerProvider().Tracer("test").Start(ctx, "execute_tool bash"+tc.protocol)
			child.End()
			end(6)
			if err := tr.Shutdown(); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			// Shutdown returns once the exporter has sent what it had.
			if got := rcv.Requests()[before:]; len(got) == 0 || got[0] != tc.request {
				t.Errorf("requests %q, want %s", got, tc.request)
			}
			root, tool := find(t, rcv.Spans(), name), find(t, rcv.Spans(), "execute_tool bash"+tc.protocol)
			if root.ParentID != "" || tool.ParentID != root.SpanID || tool.TraceID != root.TraceID {
				t.Errorf("root %+v, tool %+v: want the tool span a child of the root", root, tool)
			}
			if root.Service != "agentsh" || root.Attrs["agentsh.command"] != "hook" || root.Attrs["process.exit.code"] != int64(6) ||
				root.Attrs["agentsh.script"] != "s.star" || root.Attrs["agentsh.run.id"] != "r1" {
				t.Errorf("root span %+v: want service agentsh, agentsh.command hook, agentsh.script s.star, agentsh.run.id r1, process.exit.code 6", root)
			}
			if !root.Failed || root.Error != "exit code 6" {
				t.Errorf("root span status %v %q, want error \"exit code 6\"", root.Failed, root.Error)
			}
		})
	}
}

// TestParentFromEnv: a command started by a traced CI job, which names
// its span in TRACEPARENT, is a child of that span; a TRACEPARENT that is
// not one leaves the command the root of its own trace.
func TestParentFromEnv(t *testing.T) {
	rcv := otlptest.Start(t)
	cleanEnv(t)
	t.Setenv(otlpenv.EnvEndpoint, rcv.HTTP)
	for _, tc := range []struct{ traceparent, trace, parent string }{
		{"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"},
		{"00-not-a-trace-01", "", ""},
		{strings.Repeat("0", 1<<16), "", ""},
	} {
		t.Setenv("TRACEPARENT", tc.traceparent)
		tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		name := "job " + tc.traceparent[:12]
		_, end := tr.Start(context.Background(), otlpenv.Command{Name: name})
		end(0)
		if err := tr.Shutdown(); err != nil {
			t.Fatal(err)
		}
		s := find(t, rcv.Spans(), "agentsh "+name)
		if s.ParentID != tc.parent || tc.trace != "" && s.TraceID != tc.trace {
			t.Errorf("TRACEPARENT=%.40s: span in trace %s under %q, want trace %q under %q", tc.traceparent, s.TraceID, s.ParentID, tc.trace, tc.parent)
		}
	}
}

func TestResourceFromEnv(t *testing.T) {
	rcv := otlptest.Start(t)
	cleanEnv(t)
	t.Setenv(otlpenv.EnvEndpoint, rcv.HTTP)
	t.Setenv("OTEL_SERVICE_NAME", "ci-agent")
	t.Setenv(otlpenv.EnvCaptureContent, "TRUE")
	tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Content() {
		t.Error("Content() = false with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=TRUE")
	}
	_, end := tr.Start(context.Background(), otlpenv.Command{Name: "call"})
	end(0)
	if err := tr.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s := find(t, rcv.Spans(), "agentsh call")
	if s.Service != "ci-agent" || s.Failed {
		t.Errorf("span %+v: want service ci-agent, status not error", s)
	}
}

// TestSamplerFromEnv: OTEL_TRACES_SAMPLER=always_off leaves nothing to
// send; Shutdown has flushed, so nothing arrives later either.
func TestSamplerFromEnv(t *testing.T) {
	rcv := otlptest.Start(t)
	cleanEnv(t)
	t.Setenv(otlpenv.EnvEndpoint, rcv.HTTP)
	t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
	tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, end := tr.Start(context.Background(), otlpenv.Command{Name: "run"})
	if trace.SpanFromContext(ctx).IsRecording() {
		t.Error("the root span records under always_off")
	}
	end(0)
	if err := tr.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if got := rcv.Requests(); len(got) != 0 {
		t.Errorf("always_off sent %d requests, want none", len(got))
	}
}

// TestShutdownIsBoundedWhenTheCollectorHangs: a collector that accepts
// the request and never answers, with the exporter's own timeout an hour,
// costs Shutdown its bound and a warning, not the hour.
func TestShutdownIsBoundedWhenTheCollectorHangs(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			cleanEnv(t)
			t.Setenv(otlpenv.EnvEndpoint, otlptest.Blackhole(t))
			t.Setenv(otlpenv.EnvProtocol, protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "3600000")
			var w warnings
			tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{Warn: w.warn})
			if err != nil {
				t.Fatal(err)
			}
			_, end := tr.Start(context.Background(), otlpenv.Command{Name: "run"})
			end(0)
			testwait.Within(t, "Shutdown with a collector that hangs", func() { err = tr.Shutdown() })
			if err == nil || !strings.Contains(err.Error(), "not delivered") || !strings.Contains(err.Error(), "within 2s") {
				t.Errorf("Shutdown() = %v, want spans not delivered within 2s", err)
			}
			if !strings.Contains(w.String(), "not delivered") {
				t.Errorf("warnings %q, want the undelivered spans", w.String())
			}
		})
	}
}

// TestCollectorDown: nothing listens at the endpoint; the export fails at
// once and says so, once.
func TestCollectorDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cleanEnv(t)
	t.Setenv(otlpenv.EnvEndpoint, "http://"+addr)
	var w warnings
	tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{Warn: w.warn})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, end := tr.Start(context.Background(), otlpenv.Command{Name: "run"})
		end(0)
	}
	testwait.Within(t, "Shutdown with no collector", func() { err = tr.Shutdown() })
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "not delivered") {
		t.Errorf("Shutdown() = %v", err)
	}
	if got := w.String(); !strings.Contains(got, "connection refused") || strings.Count(got, "\n") != 0 {
		t.Errorf("warnings %q, want one, saying the connection was refused", got)
	}
}

func find(t *testing.T, spans []otlptest.Span, name string) otlptest.Span {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q among %q", name, names)
	return otlptest.Span{}
}

// BenchmarkFromEnv: what a process pays at start for traces, with no
// endpoint set (Check reads the variables and finds none) and with one
// (the provider and exporter built, nothing sent).
func BenchmarkFromEnv(b *testing.B) {
	cleanEnv(b)
	b.Run("unset", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{}); tr != nil || err != nil {
				b.Fatal(tr, err)
			}
		}
	})
	b.Run("endpoint", func(b *testing.B) {
		b.Setenv(otlpenv.EnvEndpoint, "http://127.0.0.1:4318")
		b.ReportAllocs()
		for b.Loop() {
			tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
			if err != nil {
				b.Fatal(err)
			}
			tr.Shutdown()
		}
	})
}
