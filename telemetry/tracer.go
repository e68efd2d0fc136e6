package telemetry

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/core"
)

// ScopeName is the instrumentation scope of agentsh's spans.
const ScopeName = "github.com/agentsh/agentsh"

// contentLimit bounds a captured argument or output, in bytes: a span
// is not the place for a 10 MB file.
const contentLimit = 8 << 10

// Tracer starts agentsh's spans. A nil *Tracer starts none; every method
// may be called on it.
type Tracer struct {
	tracer  trace.Tracer
	content bool
	redact  Redactor
}

// Redactor masks secrets in captured content: arguments (JSON) and
// outputs (text). executor.Redactor is one.
type Redactor interface {
	JSON(json.RawMessage) json.RawMessage
	String(string) string
}

// RedactWith returns a Tracer like t whose captured content r masks
// first; nil for a nil t.
func (t *Tracer) RedactWith(r Redactor) *Tracer {
	if t == nil {
		return nil
	}
	c := *t
	c.redact = r
	return &c
}

// New returns a Tracer over tp, or nil when tp is nil. With content on,
// tool spans carry the call's arguments and output (see the package doc).
func New(tp trace.TracerProvider, content bool) *Tracer {
	if tp == nil {
		return nil
	}
	return &Tracer{tracer: tp.Tracer(ScopeName), content: content}
}

// Tracer returns the OpenTelemetry tracer spans start on, for a caller's
// own spans (a command's root span); nil for a nil Tracer.
func (t *Tracer) Tracer() trace.Tracer {
	if t == nil {
		return nil
	}
	return t.tracer
}

// StartTool starts the execute_tool span of call, under the span in ctx.
// The call's ID, name and origin must be settled.
func (t *Tracer) StartTool(ctx context.Context, call *core.Call) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{
		OperationName.String(OpExecuteTool),
		ToolName.String(call.Name),
		ToolCallID.String(call.ID),
		ToolType.String("function"),
		CallOrigin.String(call.Origin.String()),
	}
	if call.Agent != "" {
		attrs = append(attrs, AgentName.String(call.Agent))
	}
	return t.tracer.Start(ctx, OpExecuteTool+" "+call.Name,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// EndTool ends a call's span with what settled the call and how it
// ended.
func (t *Tracer) EndTool(span trace.Span, call *core.Call, res *core.Result) {
	span.SetAttributes(DecisionAttributes(core.Settled(res.Decisions, res.Err))...)
	if call.Tool != nil && call.Tool.Sandboxed && call.Sandbox != core.SandboxUnset {
		span.SetAttributes(Sandbox.String(string(call.Sandbox)))
	}
	if t.content {
		args, out := call.Args, res.ForLLM
		if t.redact != nil {
			args, out = t.redact.JSON(args), t.redact.String(out)
		}
		span.SetAttributes(ToolCallArguments.String(clip(string(args))))
		if res.Err == nil {
			span.SetAttributes(ToolCallResult.String(clip(out)))
		}
	}
	endWith(span, res.Err)
}

// DecisionAttributes are a settling record's attributes (see
// core.Settled): the verdict, and the hook, its file:line and reason when
// known.
func DecisionAttributes(d core.Decision) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, DecisionVerdict.String(d.Verdict.String()))
	if d.Hook != "" {
		attrs = append(attrs, DecisionHook.String(d.Hook))
	}
	if d.Source != "" {
		attrs = append(attrs, DecisionSource.String(d.Source))
	}
	if d.Reason != "" {
		attrs = append(attrs, DecisionReason.String(d.Reason))
	}
	return attrs
}

// Approval adds the approval event of an ask the approver answered to the
// span in ctx.
func Approval(ctx context.Context, d core.Decision) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.AddEvent(EventApproval, trace.WithAttributes(
		ApprovalVerdict.String(d.Verdict.String()),
		ApprovalReason.String(d.Reason)))
}

// StartAgent starts the invoke_agent span of the agent named name (its
// parent's name, or "" for a top-level agent) that asks model.
func (t *Tracer) StartAgent(ctx context.Context, name, parent, model string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{OperationName.String(OpInvokeAgent), AgentName.String(name)}
	if parent != "" {
		attrs = append(attrs, ParentAgent.String(parent))
	}
	if model != "" {
		attrs = append(attrs, RequestModel.String(model))
	}
	return t.tracer.Start(ctx, OpInvokeAgent+" "+name, trace.WithAttributes(attrs...))
}

// StartChat starts the chat span of one model request: the turn-th of its
// agent, to model of the provider named providerName.
func (t *Tracer) StartChat(ctx context.Context, providerName, model string, turn int) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	name := OpChat
	if model != "" {
		name += " " + model
	}
	attrs := []attribute.KeyValue{OperationName.String(OpChat), ProviderName.String(providerName), Turn.Int(turn)}
	if model != "" {
		attrs = append(attrs, RequestModel.String(model))
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// Usage is what a model request used and how its answer finished.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int
	FinishReason                                                 string
}

// EndChat ends a chat span with the request's usage, or its error.
func EndChat(span trace.Span, u Usage, err error) {
	if span == nil {
		return
	}
	if err == nil {
		span.SetAttributes(UsageInputTokens.Int(u.InputTokens), UsageOutputTokens.Int(u.OutputTokens))
		if u.CacheReadTokens > 0 {
			span.SetAttributes(UsageCacheRead.Int(u.CacheReadTokens))
		}
		if u.CacheWriteTokens > 0 {
			span.SetAttributes(UsageCacheCreation.Int(u.CacheWriteTokens))
		}
		if u.FinishReason != "" {
			span.SetAttributes(FinishReasons.StringSlice([]string{u.FinishReason}))
		}
	}
	endWith(span, err)
}

// End ends a span (nil: none) with err's status.
func End(span trace.Span, err error) {
	if span != nil {
		endWith(span, err)
	}
}

func endWith(span trace.Span, err error) {
	if err != nil {
		kind := core.KindOf(err)
		span.SetAttributes(Outcome.String(string(kind)), ErrorType.String(string(kind)))
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(Outcome.String("ok"))
	}
	span.End()
}

// clip cuts s to contentLimit bytes, between characters.
func clip(s string) string {
	if len(s) <= contentLimit {
		return s
	}
	cut := contentLimit
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
