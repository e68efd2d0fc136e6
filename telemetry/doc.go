// Package telemetry names what agentsh puts on OpenTelemetry traces and
// starts its spans, after the GenAI semantic conventions: invoke_agent
// for an agent's run, chat for a model request, execute_tool for a tool
// call. A tool span carries, beside the conventions' attributes, the
// verdict of agentsh's pipeline, the hook that settled it with its
// file:line and reason, the sandbox the call ran in and its outcome; an
// approval is an event on its span.
//
// The package speaks the OpenTelemetry API only. A program chooses the
// SDK and the exporter, and gives agentsh a trace.TracerProvider; without
// one, a nil *Tracer, nothing is started and the instrumented code pays a
// nil check. Package otlpenv builds a provider from the standard OTEL_*
// environment variables, as the agentsh command does.
//
// Arguments and outputs of calls are on spans only when a Tracer is made
// with content capture on; they are the canonical arguments after every
// before hook's rewrite and the output after every after hook, so a
// redacting hook redacts them too.
//
// A Tracer is safe for concurrent use.
package telemetry
