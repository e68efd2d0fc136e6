package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Decisions: what before hooks think of a call, who is asked, and the
// record of it. The executor package applies them (see its package doc);
// this file holds the vocabulary.

// Verdict is a before hook's opinion of a call, or the outcome of the
// approval stage. The order is the precedence: deny > ask > allow > none.
type Verdict uint8

const (
	VerdictNone  Verdict = iota // no opinion: the next hook, or the default, decides
	VerdictAllow                // run, unless another hook asks or denies
	VerdictAsk                  // run only if the approver consents
	VerdictDeny                 // do not run; ends the before stages at once
)

var verdictNames = [...]string{"none", "allow", "ask", "deny"}

// String is the stable name: none, allow, ask or deny.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", v)
}

// MarshalText encodes the stable name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText decodes a stable name.
func (v *Verdict) UnmarshalText(b []byte) error {
	p, err := ParseVerdict(string(b))
	*v = p
	return err
}

// ParseVerdict returns the verdict named s.
func ParseVerdict(s string) (Verdict, error) {
	for i, n := range verdictNames {
		if n == s {
			return Verdict(i), nil
		}
	}
	return VerdictNone, fmt.Errorf("unknown verdict %q: want none, allow, ask or deny", s)
}

// VerdictError carries a verdict out of a BeforeFunc, which returns
// (args, err): return Allow, Ask or Deny as the error, with the rewritten
// arguments (or nil) beside it. Any other error is a deny.
type VerdictError struct {
	Verdict Verdict
	Reason  string
	// Sandbox, when set, is where the hook says the call's commands run
	// (for a Tool.Sandboxed tool): a narrower profile than the call's
	// applies; a wider one leaves the sandbox, which asks.
	Sandbox Sandbox
}

func (e *VerdictError) Error() string {
	if e.Reason == "" {
		return e.Verdict.String()
	}
	return e.Verdict.String() + ": " + e.Reason
}

// Allow is a before hook's allow verdict; reason may be empty.
func Allow(reason string) error { return &VerdictError{Verdict: VerdictAllow, Reason: reason} }

// Ask is a before hook's ask verdict: the call runs only if the
// executor's Approver consents.
func Ask(reason string) error { return &VerdictError{Verdict: VerdictAsk, Reason: reason} }

// Deny is a before hook's deny verdict; returning any other error denies
// too.
func Deny(reason string) error { return &VerdictError{Verdict: VerdictDeny, Reason: reason} }

// HookFailure is the error of a before hook that failed rather than
// decided: a script hook that raised an error, ran out of steps or time,
// or returned something a hook may not. It denies, as every error does,
// and the executor records the deny as the hook's failure
// (Decision.Failed). A Go BeforeFunc's own error stays a deny verdict.
type HookFailure struct{ Err error }

func (e *HookFailure) Error() string { return e.Err.Error() }
func (e *HookFailure) Unwrap() error { return e.Err }

// HookFailed marks err, the error of a before hook, as its failure; nil
// stays nil.
func HookFailed(err error) error {
	if err == nil {
		return nil
	}
	return &HookFailure{Err: err}
}

// VerdictOf reads the verdict a BeforeFunc returned: none for nil, the
// VerdictError's for one, deny (with the error's text) for any other.
func VerdictOf(err error) (Verdict, string) {
	if err == nil {
		return VerdictNone, ""
	}
	var v *VerdictError
	if errors.As(err, &v) {
		return v.Verdict, v.Reason
	}
	return VerdictDeny, err.Error()
}

// ErrNeedsApproval is wrapped by the rejected error of a call that asked
// for approval and got none: no approver is set, or it refuses to ask
// (agentsh --approve never).
var ErrNeedsApproval = errors.New("needs approval")

// Origin says who made a call, which sets the default when no hook
// decides: a person's call runs; a model's, an MCP client's and another
// agent's (through a hook) run only for a read-only tool and ask
// otherwise.
type Origin uint8

const (
	// OriginUnset takes the origin of the call this one is nested in
	// (invoke_tool from a tool the model called is the model's), else
	// OriginPerson.
	OriginUnset  Origin = iota
	OriginPerson        // a script's top level, agentsh call, the REPL
	OriginModel         // the agent loop: agentsh's own model and its subagents
	OriginMCP           // a client of agentsh mcp serve
	OriginHook          // another agent's call, through agentsh hook CLIENT
)

var originNames = [...]string{"", "person", "model", "mcp", "hook"}

// String is the stable name: person, model, mcp or hook ("" when unset).
func (o Origin) String() string {
	if int(o) < len(originNames) {
		return originNames[o]
	}
	return fmt.Sprintf("origin(%d)", o)
}

// Automated reports whether a model made the call, agentsh's own or
// another's (model, mcp, hook): such calls take a model's defaults.
func (o Origin) Automated() bool { return o >= OriginModel }

// ParseOrigin returns the origin named s: person, model, mcp or hook.
func ParseOrigin(s string) (Origin, error) {
	for i, n := range originNames {
		if n == s && i > 0 {
			return Origin(i), nil
		}
	}
	return OriginUnset, fmt.Errorf("unknown origin %q: want person, model, mcp or hook", s)
}

// Stage names the pipeline step a Decision was made in.
type Stage string

const (
	StageCanonical    Stage = "canonical"     // the call made canonical, before any hook (see Tool.Effects)
	StageToolBefore   Stage = "tool-before"   // the tool's own and tool-specific before hooks
	StageGlobalBefore Stage = "global-before" // global before hooks
	StageSandbox      Stage = "sandbox"       // where a sandboxed tool's commands run, and whether that asks
	StageApproval     Stage = "approval"      // the default, the session's approvals, the Approver
	StageValidation   Stage = "validation"    // schema validation of the final arguments
	StageAfter        Stage = "after"         // after hooks (they observe; no verdict)
)

// Decision records one step of a call's decision trail.
type Decision struct {
	Stage Stage `json:"stage"`
	// Hook names the hook as registered ("bash before hook 1" for a tool's
	// own), or the approval step: "default", "permissions", "session",
	// "approver".
	Hook string `json:"hook"`
	// Source is where a script hook was defined (file:line), if known.
	Source  string  `json:"source,omitempty"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
	// Skipped marks a hook that did not run because an earlier one denied;
	// a hook that ran without an opinion has verdict none and Skipped false.
	Skipped bool `json:"skipped,omitempty"`
	// Failed marks a deny that is the hook failing, not a verdict it gave:
	// it raised an error (a HookFailure), panicked, ran out of time, or
	// rewrote the arguments into something that is not an object. Reason
	// is then the error.
	Failed bool `json:"failed,omitempty"`
	// Sandbox is the profile a hook chose for the call's commands, or,
	// at the sandbox stage, the one they will run in.
	Sandbox Sandbox `json:"sandbox,omitempty"`
	// Rewrote says the hook replaced the arguments; ArgsBefore and
	// ArgsAfter are then the objects before and after.
	Rewrote    bool            `json:"rewrote,omitempty"`
	ArgsBefore json.RawMessage `json:"args_before,omitempty"`
	ArgsAfter  json.RawMessage `json:"args_after,omitempty"`
	Duration   time.Duration   `json:"-"`
}

// Record appends d to the call's decision trail. The executor records
// every step; copies of a call (middleware passes copies to next) share
// the trail. A call's steps run one at a time, so Record needs no lock; a
// middleware that runs next concurrently must not record.
func (c *Call) Record(d Decision) {
	if c.trail == nil {
		c.trail = &trail{}
		c.trail.list = c.trail.buf[:0]
	}
	c.trail.list = append(c.trail.list, d)
}

// ClearDecisions starts an empty trail; the executor calls it when a call
// starts, so a call built from another does not share its trail.
func (c *Call) ClearDecisions() { c.trail = nil }

// Decisions returns the call's trail so far; middleware sees the before
// and approval stages.
func (c *Call) Decisions() []Decision {
	if c.trail == nil {
		return nil
	}
	return c.trail.list
}

// trail holds a call's decisions, with room for a typical pipeline so
// that recording costs one allocation.
type trail struct {
	list []Decision
	buf  [4]Decision
}

// ApprovalRequest is what an Approver is asked about.
type ApprovalRequest struct {
	// Call is the call with its final arguments (Name, Args, ID, Origin,
	// Tool); treat it as read-only.
	Call *Call
	// Reason says why approval is needed, and Hook and Source who asked
	// (a hook, or "default" when the call's origin asks by default).
	Reason, Hook, Source string
	// LeavesSandbox says the approval is to run the call's commands
	// outside the sandbox they would run in (Call.Sandbox is the profile
	// asked for, SandboxOff to run unconfined): a person approves that
	// on its own, never with the call, and never for the session.
	LeavesSandbox bool
}

// Approval is an Approver's answer.
type Approval struct {
	// Verdict is VerdictAllow to run the call; anything else denies it.
	Verdict Verdict
	// Reason reaches the caller (the model) with a denial.
	Reason string
	// Always allows the tool for the rest of the session without asking
	// again.
	Always bool
}

// Approver is asked whether a call whose verdict is ask may run. An
// error denies the call (fail closed). An Approver may be called from
// several goroutines at once (parallel batches); one that talks to a
// person serializes its prompts.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (Approval, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req *ApprovalRequest) (Approval, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req *ApprovalRequest) (Approval, error) {
	return f(ctx, req)
}

var _ Approver = ApproverFunc(nil)
