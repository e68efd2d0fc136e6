package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/telemetry"
)

// Stages 1 and 2 and the approval step: every before hook gives a verdict
// (see core.Verdict), the strongest wins, and the default or the Approver
// settles what no hook settled. Each step is recorded on the call.

// opinion is the strongest verdict so far and who gave it.
type opinion struct {
	verdict              core.Verdict
	reason, hook, source string
}

// beforeStep is one before hook as the stages see it.
type beforeStep struct {
	stage  core.Stage
	name   hookName
	source string
	fn     core.BeforeFunc
}

// runBefore runs stages 1 and 2 and the approval step. It returns a
// result only when the call must not run. With consult false (Decide) an
// ask is not put to the Approver; the opinion says so.
//
// Each hook's duration runs from the end of the one before (from start
// for the first): one monotonic clock reading per hook, none without
// hooks.
func (e *Executor) runBefore(ctx context.Context, p *pipeline, call *core.Call, consult bool, start time.Time) (*core.Result, opinion) {
	var (
		best   opinion
		stop   *core.Result
		last   time.Duration // since start
		choice sandboxChoice
	)
	base := e.defaultSandbox(call)
	call.Sandbox = base
	step := func(s beforeStep) {
		if stop != nil {
			call.Record(core.Decision{Stage: s.stage, Hook: s.name.bare(), Source: s.source, Skipped: true})
			return
		}
		d, res := e.before(ctx, call, s)
		now := time.Since(start)
		d.Duration, last = now-last, now
		call.Record(d)
		choice.note(base, d)
		if res != nil {
			stop = res
			best = opinion{core.VerdictDeny, d.Reason, d.Hook, d.Source}
		} else if d.Verdict > best.verdict {
			best = opinion{d.Verdict, d.Reason, d.Hook, d.Source}
		}
	}
	if t := call.Tool; t != nil {
		for i, fn := range t.Before {
			step(beforeStep{core.StageToolBefore, hookName{tool: t.Name, index: i + 1, stage: "before"}, "", fn})
		}
	}
	for _, h := range p.beforeTool {
		if core.MatchTools(h.Tools, call.Name) {
			step(beforeStep{core.StageToolBefore, hookName{name: h.Name}, h.Source, h.Func})
		}
	}
	for _, h := range p.beforeGlobal {
		step(beforeStep{core.StageGlobalBefore, hookName{name: h.Name}, h.Source, h.Func})
	}
	if stop != nil {
		return stop, best
	}
	best, leaves := e.settleSandbox(call, base, choice, best)
	return e.approval(ctx, call, best, consult, leaves)
}

// before runs one before hook and applies its rewrite. The decision
// comes back with a result when the hook denied, failed, panicked or
// rewrote the arguments into something that is not an object.
func (e *Executor) before(ctx context.Context, call *core.Call, s beforeStep) (d core.Decision, res *core.Result) {
	d = core.Decision{Stage: s.stage, Hook: s.name.bare(), Source: s.source}
	defer func() {
		if v := recover(); v != nil {
			pe := panicError(call, "before hook "+s.name.String(), v)
			pe.Hook = d.Hook
			d.Verdict, d.Reason, d.Failed = core.VerdictDeny, pe.Message, true
			res = &core.Result{Err: pe}
		}
	}()
	argsBefore := call.Args
	args, err := s.fn(ctx, call)
	d.Verdict, d.Reason = core.VerdictOf(err)
	var ve *core.VerdictError
	if errors.As(err, &ve) {
		d.Sandbox = ve.Sandbox
	}
	if d.Verdict == core.VerdictDeny {
		d.Failed = hookFailed(ctx, err)
		if ctx.Err() != nil {
			return d, &core.Result{Err: contextError(ctx, call, err)}
		}
		return d, &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: d.Hook,
			Message: fmt.Sprintf("rejected by %s: %s", s.name, d.Reason), Err: err}}
	}
	if args != nil {
		norm, err := core.NormalizeArgs(args)
		if err != nil {
			d.Verdict, d.Reason, d.Failed = core.VerdictDeny, fmt.Sprintf("rewrote the arguments badly: %v", err), true
			return d, &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: d.Hook,
				Message: fmt.Sprintf("rejected: %s rewrote the arguments badly: %v", s.name, err), Err: err}}
		}
		call.Args = norm
		if err := e.canonicalize(call, false); err != nil {
			d.Verdict, d.Reason = core.VerdictDeny, fmt.Sprintf("rewrote the arguments to ones that cannot run: %s: argument %v", call.Name, err)
			return d, &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: d.Hook,
				Message: fmt.Sprintf("rejected: %s %s", s.name, d.Reason), Err: err}}
		}
		d.Rewrote, d.ArgsBefore, d.ArgsAfter = true, argsBefore, call.Args
	}
	return d, nil
}

// hookFailed reports whether a before hook's error is its failure rather
// than a deny verdict: one it marked so (core.HookFailure), or any error
// but a verdict once its context is done (it ran out of time).
func hookFailed(ctx context.Context, err error) bool {
	var f *core.HookFailure
	if errors.As(err, &f) {
		return true
	}
	var v *core.VerdictError
	return ctx.Err() != nil && !errors.As(err, &v)
}

// approval settles the call after the before hooks: an allow runs, no
// opinion takes the default, and an ask goes to the session's approvals,
// then to the Approver. An ask to leave the sandbox (leaves) skips the
// session's approvals and is never approved for the session.
func (e *Executor) approval(ctx context.Context, call *core.Call, op opinion, consult, leaves bool) (*core.Result, opinion) {
	if op.verdict == core.VerdictNone {
		op = e.defaultOpinion(call)
	}
	switch op.verdict {
	case core.VerdictAllow:
		call.Record(core.Decision{Stage: core.StageApproval, Hook: op.hook, Source: op.source, Verdict: op.verdict, Reason: op.reason})
		return nil, op
	case core.VerdictDeny: // deny-unlisted
		call.Record(core.Decision{Stage: core.StageApproval, Hook: op.hook, Verdict: op.verdict, Reason: op.reason})
		return e.rejected(call, op.hook, "rejected: "+op.reason, nil), op
	}
	if _, ok := e.approved.Load(call.Name); ok && !leaves {
		asked := op
		op = opinion{core.VerdictAllow, fmt.Sprintf("%s was approved for the rest of the session (asked: %s)", call.Name, asked.reason), "session", ""}
		call.Record(core.Decision{Stage: core.StageApproval, Hook: op.hook, Verdict: op.verdict, Reason: op.reason})
		return nil, op
	}
	call.Record(core.Decision{Stage: core.StageApproval, Hook: op.hook, Source: op.source, Verdict: core.VerdictAsk, Reason: op.reason})
	if !consult {
		return nil, op
	}
	return e.ask(ctx, call, op, leaves), op
}

// ask puts an ask to the Approver; a missing approver, an error or a
// panic denies (fail closed).
func (e *Executor) ask(ctx context.Context, call *core.Call, op opinion, leaves bool) (res *core.Result) {
	ap := e.Approver()
	if ap == nil {
		return e.rejected(call, op.hook, "needs approval: "+op.reason+"; no approver is set", core.ErrNeedsApproval)
	}
	d := core.Decision{Stage: core.StageApproval, Hook: "approver"}
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			pe := panicError(call, "the approver", v)
			pe.Hook = d.Hook
			d.Verdict, d.Reason = core.VerdictDeny, pe.Message
			res = &core.Result{Err: pe}
		}
		d.Duration = time.Since(start)
		call.Record(d)
		telemetry.Approval(ctx, d)
	}()
	a, err := ap.Approve(ctx, &core.ApprovalRequest{Call: call, Reason: op.reason, Hook: op.hook, Source: op.source, LeavesSandbox: leaves})
	switch {
	case err != nil && ctx.Err() != nil:
		d.Verdict, d.Reason = core.VerdictDeny, err.Error()
		return &core.Result{Err: contextError(ctx, call, err)}
	case err != nil && errors.Is(err, core.ErrNeedsApproval):
		d.Verdict, d.Reason = core.VerdictDeny, err.Error()
		return e.rejected(call, op.hook, err.Error(), err)
	case err != nil:
		d.Verdict, d.Reason = core.VerdictDeny, "the approver failed: "+err.Error()
		return e.rejected(call, d.Hook, "rejected: "+d.Reason, err)
	case a.Verdict != core.VerdictAllow:
		d.Verdict, d.Reason = core.VerdictDeny, a.Reason
		msg := "not approved"
		if a.Reason != "" {
			msg += ": " + a.Reason
		}
		return e.rejected(call, d.Hook, msg, nil)
	}
	d.Verdict, d.Reason = core.VerdictAllow, a.Reason
	if a.Always && !leaves {
		e.approved.Store(call.Name, struct{}{})
	}
	return nil
}

func (e *Executor) rejected(call *core.Call, hook, msg string, cause error) *core.Result {
	return &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: hook, Message: msg, Err: cause}}
}

// defaultOpinion decides a call no hook decided, by the permissions and
// the call's origin.
func (e *Executor) defaultOpinion(call *core.Call) opinion {
	switch e.Permissions() {
	case PermissionsAllowAll:
		return opinion{core.VerdictAllow, "permissions is allow-all", "permissions", ""}
	case PermissionsDenyUnlisted:
		return opinion{core.VerdictDeny, fmt.Sprintf("no policy allowed %s and permissions is deny-unlisted; allow it in a policy", call.Name), "permissions", ""}
	}
	switch t := call.Tool; {
	case t == nil:
		return opinion{core.VerdictAllow, "no tool has this name", "default", ""}
	case !call.Origin.Automated():
		return opinion{core.VerdictAllow, "a person's calls run unless a policy decides", "default", ""}
	case t.ReadOnly:
		return opinion{core.VerdictAllow, t.Name + " is read-only", "default", ""}
	}
	return opinion{core.VerdictAsk, fmt.Sprintf("the model called %s, which is not read-only", call.Name), "default", ""}
}
