package executor

import "github.com/agentsh/agentsh/telemetry"

// WithTracing traces every call that runs (not the ones Decide only
// evaluates) as an execute_tool span, under the span of the context it
// is made in; the calls nested in it are its children. The span says
// what settled the call (core.Settled), where it ran and how it ended; an
// approval is an event on it. A nil Tracer, the default, traces nothing
// and costs a nil check per call.
func WithTracing(t *telemetry.Tracer) Option { return func(e *Executor) { e.tracer = t } }

// Tracing returns the executor's Tracer (nil when it traces nothing), for
// the agent loop's spans.
func (e *Executor) Tracing() *telemetry.Tracer { return e.tracer }
