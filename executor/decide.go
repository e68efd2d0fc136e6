package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/core"
)

// Ruling is what the pipeline would decide for one call, from Decide.
type Ruling struct {
	Tool string
	// Args are the canonical arguments after every rewrite.
	Args json.RawMessage
	// WorkDir is the working directory the call's paths are relative to,
	// and Effects what the call would do (see core.Call).
	WorkDir string
	Effects *core.Effects
	Origin  core.Origin
	// Sandbox is where a sandboxed tool would run the call's commands
	// (unset for other tools); the sandbox stage's decision says why.
	// SandboxBackend names the backend that confines a confined profile.
	Sandbox        core.Sandbox
	SandboxBackend string
	// Outcome is VerdictAllow when the call would run, VerdictAsk when it
	// would ask the Approver, VerdictDeny when it would not run.
	Outcome core.Verdict
	// Reason, Hook and Source say who decided and why.
	Reason, Hook, Source string
	// Err is the error the call would fail with when Outcome is deny:
	// rejected, invalid_arguments or unknown_tool.
	Err error
	// Decisions is the trail: the before hooks, the approval step and
	// validation, as Result.Decisions would hold them.
	Decisions []core.Decision
	// Session is the throwaway copy of the session the hooks saw, with
	// what they stored. A caller that runs the call elsewhere on this
	// ruling (a hook adapter, whose agent runs the tool) may keep it.
	Session *core.Session
}

// Decide evaluates stages 1 and 2, the approval step and schema
// validation (when on) for call without running middleware, the tool or
// after hooks, and without asking the Approver. Hooks see a throwaway copy
// of the session, so what they store is forgotten; a call a hook makes
// while deciding goes through the before stages too but runs no tool.
// The call's Origin defaults to OriginPerson; set OriginModel to evaluate
// with a model's defaults. Decide is safe for concurrent use.
func (e *Executor) Decide(ctx context.Context, call core.Call) *Ruling {
	start := time.Now()
	p := e.pipe.Load()
	e.startOutside(&call)
	call.Session = e.session.Clone()
	ctx = withAgent(ctx, &call)
	call.RawArgs = call.Args
	ctx = withScope(ctx, scope{origin: call.Origin, session: call.Session, deciding: true})
	r := &Ruling{Tool: call.Name, Origin: call.Origin, Session: call.Session}
	defer func() {
		r.Args, r.Decisions, r.WorkDir, r.Effects, r.Sandbox = call.Args, call.Decisions(), call.WorkDir, call.Effects, call.Sandbox
		if r.Sandbox.Confined() {
			r.SandboxBackend, _ = e.Sandboxing().backend()
		}
	}()

	args, err := core.NormalizeArgs(call.Args)
	if err != nil {
		r.Outcome, r.Reason = core.VerdictDeny, fmt.Sprintf("invalid arguments for %s: %v", call.Name, err)
		r.Err = &core.Error{Kind: core.KindInvalidArguments, Tool: call.Name, CallID: call.ID, Message: r.Reason, Err: err}
		return r
	}
	call.Args = args
	if ce := e.makeCanonical(&call); ce != nil {
		r.Outcome, r.Reason, r.Hook, r.Err = core.VerdictDeny, ce.Message, "canonical", ce
		return r
	}
	res, op := e.runBefore(ctx, p, &call, false, start)
	r.Outcome, r.Reason, r.Hook, r.Source = op.verdict, op.reason, op.hook, op.source
	if res != nil {
		r.Outcome, r.Err = core.VerdictDeny, res.Err
		if r.Reason == "" {
			r.Reason = res.Err.Error()
		}
		return r
	}
	if call.Tool == nil {
		r.Outcome, r.Hook, r.Source = core.VerdictDeny, "", ""
		r.Err = &core.Error{Kind: core.KindUnknownTool, Tool: call.Name, CallID: call.ID,
			Message: unknownToolMessage(call.Name, e.reg.ToolNames())}
		r.Reason = r.Err.Error()
		return r
	}
	if e.validate.Load() {
		v := &core.Result{}
		if !e.validateArgs(&call, v) {
			r.Outcome, r.Reason, r.Hook, r.Source, r.Err = core.VerdictDeny, v.Err.Error(), "schema", "", v.Err
		}
	}
	return r
}

// scope is what a call passes on to the calls nested in it, through the
// context: its origin, and while deciding the throwaway session.
type scope struct {
	origin   core.Origin
	session  *core.Session
	deciding bool
}

type scopeKey struct{}

func scopeOf(ctx context.Context) scope {
	s, _ := ctx.Value(scopeKey{}).(scope)
	return s
}

func withScope(ctx context.Context, s scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// SessionFor returns the session the calls running under ctx use: the
// executor's, or the throwaway copy while Decide evaluates. Host code that
// keeps state for hooks (a script's state module) reads it here.
func (e *Executor) SessionFor(ctx context.Context) *core.Session {
	if s := scopeOf(ctx).session; s != nil {
		return s
	}
	return e.session
}

// Deciding reports whether ctx belongs to a Decide evaluation, in which
// no tool runs; a hook with side effects outside the session can skip
// them.
func Deciding(ctx context.Context) bool { return scopeOf(ctx).deciding }
