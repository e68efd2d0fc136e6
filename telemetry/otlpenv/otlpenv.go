// Package otlpenv exports agentsh's traces over OTLP, configured the way
// every OpenTelemetry SDK is: by the standard OTEL_* environment variables
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL,
// OTEL_SERVICE_NAME, ...).
//
// It is the one package of the module that links the OpenTelemetry SDK
// and the OTLP exporters (and, through them, gRPC). The shell itself (package agentsh and the
// packages below it) speaks only the OpenTelemetry API and takes a
// trace.TracerProvider (agentsh.WithTracerProvider): a program that embeds
// it and exports nothing links none of this, and one that exports already
// has a provider of its own to pass.
//
// FromEnv is what the agentsh command calls once per process:
//
//	tr, err := otlpenv.FromEnv(ctx, otlpenv.Options{Warn: warn})
//	if err != nil { ... exit 2 ... }
//	defer tr.Shutdown()
//	sh, err := agentsh.New(agentsh.WithTracerProvider(tr.TracerProvider()), ...)
//	ctx, end := tr.Start(ctx, otlpenv.Command{Name: "run", Script: path})
//	code := work(ctx)
//	end(code)
//
// With no endpoint set, FromEnv returns nil and every method of a nil
// *Traces does nothing: nothing is started and nothing is exported.
package otlpenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/telemetry"
)

// ShutdownTimeout bounds Shutdown: how long the last spans may take to
// reach the collector at exit. Over HTTP a collector that refuses the
// connection fails at once; one that does not answer, or any that cannot
// be reached over gRPC (whose exporter retries), costs this much, never
// more.
const ShutdownTimeout = 2 * time.Second

// ServiceName is the service.name of agentsh's spans unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names another.
const ServiceName = "agentsh"

// Options are what FromEnv takes besides the environment.
type Options struct {
	// Version is the service.version of the spans; "" leaves it out.
	Version string
	// Warn receives what goes wrong while spans are exported (a collector
	// that cannot be reached, spans not delivered by Shutdown's bound),
	// each distinct message once, starting "traces" and ending with what
	// to check; nil drops them. It may be called from the exporter's
	// goroutine.
	Warn func(error)
}

// Traces is an SDK TracerProvider that exports over OTLP, with what the
// environment says about content. A nil *Traces is tracing turned off:
// its methods do nothing. Its methods are safe to call concurrently.
type Traces struct {
	provider *sdktrace.TracerProvider
	settings Settings
	warn     func(error)
}

// FromEnv builds the tracing the OTEL_* variables ask for (see Check): an
// SDK TracerProvider with a batch span processor and an OTLP exporter
// (HTTP with protobuf or JSON, or gRPC), with a resource from
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name "agentsh"
// by default) and the sampler of OTEL_TRACES_SAMPLER. It returns nil, nil
// when they ask for none. Nothing is sent until a span ends; no
// connection is made before.
//
// FromEnv installs o.Warn as OpenTelemetry's global error handler, which
// is where the SDK reports failed exports.
func FromEnv(ctx context.Context, o Options) (*Traces, error) {
	s, err := Check(nil)
	if err != nil || !s.On {
		return nil, err
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", ServiceName)}
	if o.Version != "" {
		attrs = append(attrs, attribute.String("service.version", o.Version))
	}
	// Later detectors win: the environment's names over the default.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES=%s: %v; want comma-separated key=value pairs, values URL-encoded, such as deployment.environment.name=ci", show(os.Getenv("OTEL_RESOURCE_ATTRIBUTES")), err)
	}
	exp, err := exporter(ctx, s.Protocol)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.Endpoint, err)
	}
	t := &Traces{settings: s, warn: report(s, o.Warn)}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.warn))
	t.provider = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return t, nil
}

// exporter is the OTLP exporter of protocol; it reads the endpoint,
// headers, timeout, compression and TLS settings from the environment.
func exporter(ctx context.Context, protocol string) (*otlptrace.Exporter, error) {
	switch protocol {
	case ProtocolGRPC:
		return otlptracegrpc.New(ctx)
	case ProtocolHTTPJSON:
		return otlptracehttp.New(ctx, otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON))
	}
	return otlptracehttp.New(ctx)
}

// report passes err to warn, each distinct message once, saying what it
// is about and what to do.
func report(s Settings, warn func(error)) func(error) {
	if warn == nil {
		return func(error) {}
	}
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	return func(err error) {
		mu.Lock()
		defer mu.Unlock()
		msg := err.Error()
		if seen[msg] {
			return
		}
		seen[msg] = true
		if !strings.HasPrefix(msg, "traces") {
			err = fmt.Errorf("traces: %w", err)
		}
		warn(fmt.Errorf("%w; is the collector at %s up? (%s=true exports nothing)", err, s.Endpoint, EnvSDKDisabled))
	}
}

// TracerProvider is the provider to pass to agentsh.WithTracerProvider;
// nil when t is nil.
func (t *Traces) TracerProvider() trace.TracerProvider {
	if t == nil {
		return nil
	}
	return t.provider
}

// Content reports whether tool arguments and outputs go on the spans
// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true): what to pass
// to agentsh.WithTraceContent.
func (t *Traces) Content() bool { return t != nil && t.settings.Content }

// Settings are the checked variables t was built from.
func (t *Traces) Settings() Settings {
	if t == nil {
		return Settings{}
	}
	return t.settings
}

// Command is the root span of one agentsh command.
type Command struct {
	// Name is the command (telemetry.Command): run, call, hook, ...
	Name string
	// Detail follows it in the span's name: the agent of agentsh hook.
	Detail string
	// Script and RunID are telemetry.Script and telemetry.RunID; ""
	// leaves them out.
	Script, RunID string
}

// Start opens the root span of c, "agentsh NAME [DETAIL]", under the span
// in ctx, else under the one the environment names (TRACEPARENT and
// TRACESTATE, as a CI job that traces itself sets them), else as the root
// of a trace. It returns the context that carries it and the function
// that ends it with the command's exit code (process.exit.code, and an
// error status for a code other than 0). With t nil it returns ctx and a
// function that does nothing.
func (t *Traces) Start(ctx context.Context, c Command) (context.Context, func(code int)) {
	if t == nil {
		return ctx, func(int) {}
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		env := propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT"), "tracestate": os.Getenv("TRACESTATE")}
		ctx = propagation.TraceContext{}.Extract(ctx, env)
	}
	name, attrs := "agentsh "+c.Name, []attribute.KeyValue{telemetry.Command.String(c.Name)}
	if c.Detail != "" {
		name += " " + c.Detail
	}
	if c.Script != "" {
		attrs = append(attrs, telemetry.Script.String(c.Script))
	}
	if c.RunID != "" {
		attrs = append(attrs, telemetry.RunID.String(c.RunID))
	}
	ctx, span := t.provider.Tracer(tracerName).Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(code int) {
		span.SetAttributes(telemetry.ExitCode.Int(code))
		if code != 0 {
			span.SetStatus(codes.Error, fmt.Sprintf("exit code %d", code))
		}
		span.End()
	}
}

// tracerName is the instrumentation scope of the command's own spans.
const tracerName = "github.com/agentsh/agentsh/cmd/agentsh"

// Shutdown sends the spans not yet sent and stops the exporter, waiting at
// most ShutdownTimeout, and reports through Options.Warn when spans were
// left undelivered. Call it once, as the process exits; spans that end
// later are dropped.
func (t *Traces) Shutdown() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := t.provider.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("traces: spans not delivered within %s", ShutdownTimeout)
	}
	if err != nil {
		t.warn(err)
	}
	return err
}
