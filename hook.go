package agentsh

import (
	"context"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/telemetry"
)

// HookOptions are the streams and policies of one hook event.
type HookOptions struct {
	In       io.Reader
	Out, Err io.Writer
	// Scripts are the policies; one that fails to load blocks the call.
	Scripts []string
	// Events, when set, receives the hook event of the decision as Hook
	// returns (docs/events.md).
	Events *Events
	// NoAfter says the agent's entries leave out the event after a tool
	// call (HookChange.NoAfter): a call is blocked when the policies have
	// gained an after hook since, which would never run.
	NoAfter bool
}

// Hook answers one hook event of another agent ("claude-code", "gemini",
// "codex"): it reads the event from In, decides it with the shell's
// pipeline as that agent's call, answers on Out in the agent's protocol
// and returns the exit code the agent reads. Anything that goes wrong
// blocks the call (hookadapter.ExitBlock, the reason on Err). With
// Config.AuditFile, a tool event leaves a record in the audit log: decide
// for a pre-tool event, observe for a post-tool one; one that cannot be
// written blocks the call. The span in ctx, when it records, gets the
// event's decision (see traceHook): the agent runs the call, so no
// execute_tool span of agentsh's says it.
func (s *Shell) Hook(ctx context.Context, agent string, o HookOptions) int {
	proto, err := hookadapter.Lookup(agent)
	if err != nil {
		fmt.Fprintf(o.Err, "agentsh: hook: %v\n", err)
		return hookadapter.ExitBlock
	}
	// The agent runs the tool and validates its own input; the shell's
	// schemas would only approximate the agent's.
	s.exec.SetValidateArguments(false)
	cfg := hookadapter.Config{
		Protocol: proto,
		Exec:     s.exec,
		Load: func(ctx context.Context) error {
			for _, f := range o.Scripts {
				if err := s.Load(ctx, f); err != nil {
					return err
				}
			}
			return nil
		},
		Prompt:  s.agent.Agent().SubmitPrompt,
		NoAfter: o.NoAfter,
	}
	var auditErr error
	span := trace.SpanFromContext(ctx)
	if o.Events != nil || s.audit != nil || span.IsRecording() {
		cfg.Audit = func(rec hookadapter.Record) {
			traceHook(span, rec)
			if o.Events != nil {
				o.Events.Emit(HookEvent(rec))
			}
			if s.audit != nil {
				auditErr = s.audit.hookRecord(agent, rec)
			}
		}
	}
	if dir, err := hookadapter.DefaultStateDir(); err == nil {
		cfg.StateDir = dir
	}
	code := hookadapter.Run(ctx, cfg, o.In, o.Out, o.Err)
	if auditErr != nil {
		// No record, no call: the audit log is part of the policy.
		fmt.Fprintf(o.Err, "agentsh: hook: the audit log could not be written (%v), so the call is blocked\n", auditErr)
		return hookadapter.ExitBlock
	}
	return code
}

// traceHook puts the decision of a hook event on span: the agent's event
// and tool, and, for an event before a call, the canonical tool, the
// record that settled the call (telemetry.DecisionAttributes) and the
// sandbox it would run in; after a call, its outcome.
func traceHook(span trace.Span, rec hookadapter.Record) {
	if !span.IsRecording() || rec.Event == nil {
		return
	}
	span.SetAttributes(telemetry.CallOrigin.String(core.OriginHook.String()), telemetry.HookEvent.String(rec.Event.Name))
	if rec.Event.Tool != "" {
		span.SetAttributes(telemetry.ToolName.String(rec.Event.Tool))
	}
	if r := rec.Answer.Ruling; r != nil {
		span.SetAttributes(telemetry.ToolName.String(r.Tool))
		span.SetAttributes(telemetry.DecisionAttributes(core.Settled(r.Decisions, r.Err))...)
		if r.Sandbox != core.SandboxUnset {
			span.SetAttributes(telemetry.Sandbox.String(string(r.Sandbox)))
		}
	}
	if res := rec.Answer.Result; res != nil {
		outcome := "ok"
		if res.Err != nil {
			outcome = string(core.KindOf(res.Err))
		}
		span.SetAttributes(telemetry.Outcome.String(outcome))
	}
}
