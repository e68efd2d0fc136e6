package jaegertest_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentsh/agentsh/internal/jaegertest"
	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// TestJaegerTakesOTLP sends a root span and a child to Jaeger over each
// OTLP protocol with otlpenv and reads them back from its query API.
func TestJaegerTakesOTLP(t *testing.T) {
	j := jaegertest.Start(t)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") || k == "TRACEPARENT" || k == "TRACESTATE" {
			t.Setenv(k, "")
		}
	}
	for _, tc := range []struct{ protocol, endpoint string }{
		{"http/protobuf", j.OTLPHTTP},
		{"grpc", j.OTLPGRPC},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			t.Setenv(otlpenv.EnvEndpoint, tc.endpoint)
			t.Setenv(otlpenv.EnvProtocol, tc.protocol)
			t.Setenv("OTEL_SERVICE_NAME", "jaegertest")
			tr, err := otlpenv.FromEnv(context.Background(), otlpenv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, end := tr.Start(context.Background(), otlpenv.Command{Name: "root", Detail: tc.protocol})
			_, child := tr.TracerProvider().Tracer("test").Start(ctx, "child "+tc.protocol)
			child.SetAttributes(attribute.String("agentsh.decision.hook", "h"))
			child.End()
			end(0)
			if err := tr.Shutdown(); err != nil {
				t.Fatal(err)
			}
			var root, kid *jaegertest.Span
			for _, trace := range j.Traces(t, "jaegertest", "child "+tc.protocol) {
				for i, s := range trace.Spans {
					switch s.OperationName {
					case "agentsh root " + tc.protocol:
						root = &trace.Spans[i]
					case "child " + tc.protocol:
						kid = &trace.Spans[i]
					}
				}
			}
			if root == nil || kid == nil {
				t.Fatalf("root %v, child %v: want both in jaeger", root, kid)
			}
			if kid.Parent() != root.SpanID || root.Parent() != "" || kid.Tag("agentsh.decision.hook") != "h" {
				t.Errorf("root %+v\nchild %+v\nwant the child under the root with its attribute", root, kid)
			}
		})
	}
}
