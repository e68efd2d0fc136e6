package agentsh

import (
	"context"
	"fmt"
	"io"

	"github.com/agentsh/agentsh/hookadapter"
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
// written blocks the call.
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
	if o.Events != nil || s.audit != nil {
		cfg.Audit = func(rec hookadapter.Record) {
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
