package executor

import (
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// The sandbox stage: where a Tool.Sandboxed tool runs a call's commands.
// A policy over command text cannot be complete; the operating-system
// sandbox is the boundary that holds. After the before hooks and before
// the approval step, the call's profile is settled:
//
//   - it starts as its origin's default (Sandboxing.Person for a person,
//     Sandboxing.Automated for a model or an MCP client); another agent's
//     call (OriginHook) runs in that agent, where agentsh confines
//     nothing, so it starts as off;
//   - a hook that names a narrower profile (allow(..., sandbox =
//     "read-only")) narrows it; the narrowest wins;
//   - a hook that names a wider one asks to leave the sandbox: the call
//     asks, whatever the verdicts said, and the Approver is told it would
//     run outside (ApprovalRequest.LeavesSandbox); the session's "always"
//     approvals do not cover it, and it is never approved for the session;
//   - a confined profile that cannot be had (no backend here, or another
//     agent's call that a hook wanted confined) asks to run without it,
//     saying why; a headless run (no approver) refuses it. A command is
//     never run unconfined without a person saying so.
//
// The stage is recorded on the call (core.StageSandbox) with the profile.

// Sandboxing says where the commands of sandboxed tools run.
type Sandboxing struct {
	// Person and Automated are the default profiles of a person's calls
	// and of a model's or an MCP client's; unset means off and workspace.
	Person, Automated core.Sandbox
	// Backend reports the backend that confines commands ("bwrap",
	// "landlock"), or why none can. Nil means none can: no sandbox was set
	// up.
	Backend func() (name string, why error)
}

func (s Sandboxing) withDefaults() Sandboxing {
	if s.Person == core.SandboxUnset {
		s.Person = core.SandboxOff
	}
	if s.Automated == core.SandboxUnset {
		s.Automated = core.SandboxWorkspace
	}
	return s
}

// backend is the confining backend's name, or why there is none.
func (s Sandboxing) backend() (string, error) {
	if s.Backend == nil {
		return "", fmt.Errorf("no sandbox is set up")
	}
	return s.Backend()
}

// WithSandboxing sets where sandboxed tools run commands (see
// SetSandboxing).
func WithSandboxing(s Sandboxing) Option { return func(e *Executor) { e.SetSandboxing(s) } }

// SetSandboxing sets the default profiles and the backend for calls that
// start from now on.
func (e *Executor) SetSandboxing(s Sandboxing) {
	s = s.withDefaults()
	e.sandboxing.Store(&s)
}

// Sandboxing returns the settings SetSandboxing made (the defaults when
// it was not called).
func (e *Executor) Sandboxing() Sandboxing {
	if s := e.sandboxing.Load(); s != nil {
		return *s
	}
	return Sandboxing{}.withDefaults()
}

// defaultSandbox is the profile a call of a sandboxed tool starts from.
func (e *Executor) defaultSandbox(call *core.Call) core.Sandbox {
	if call.Tool == nil || !call.Tool.Sandboxed {
		return core.SandboxUnset
	}
	s := e.Sandboxing()
	switch call.Origin {
	case core.OriginHook:
		return core.SandboxOff
	case core.OriginModel, core.OriginMCP:
		return s.Automated
	}
	return s.Person
}

// sandboxChoice is what the before hooks said about the profile.
type sandboxChoice struct {
	narrowest, widest core.Sandbox
	narrowBy, widenBy string // the hooks that chose them, and why
}

func (c *sandboxChoice) note(base core.Sandbox, d core.Decision) {
	if d.Sandbox == core.SandboxUnset || d.Verdict == core.VerdictDeny {
		return
	}
	why := d.Hook
	if d.Reason != "" {
		why += ": " + d.Reason
	}
	switch {
	case d.Sandbox.Wider(base):
		if c.widest == core.SandboxUnset || d.Sandbox.Wider(c.widest) {
			c.widest, c.widenBy = d.Sandbox, why
		}
	case base.Wider(d.Sandbox):
		if c.narrowest == core.SandboxUnset || c.narrowest.Wider(d.Sandbox) {
			c.narrowest, c.narrowBy = d.Sandbox, why
		}
	}
}

// settleSandbox is the sandbox stage: it sets call.Sandbox and returns
// the opinion, raised to an ask when the call would leave its sandbox,
// and whether it does.
func (e *Executor) settleSandbox(call *core.Call, base core.Sandbox, c sandboxChoice, op opinion) (opinion, bool) {
	if base == core.SandboxUnset || op.verdict == core.VerdictDeny {
		return op, false
	}
	d := core.Decision{Stage: core.StageSandbox, Hook: "sandbox"}
	profile, leaves, why := base, false, ""
	switch {
	case c.narrowest != core.SandboxUnset:
		profile = c.narrowest
		why = "narrowed by " + c.narrowBy
	case c.widest != core.SandboxUnset:
		profile, leaves = c.widest, true
		why = fmt.Sprintf("leaves the %s sandbox to run %s (%s)", base, sandboxWhere(c.widest), c.widenBy)
	}
	if profile.Confined() && call.Origin == core.OriginHook {
		// Another agent runs the command: which backend would confine it
		// here does not matter, and finding out starts a process.
		why = fmt.Sprintf("a policy allows this command only in the %s sandbox (%s), but the agent that asked runs it outside agentsh's sandbox", profile, c.narrowBy)
		profile, leaves = core.SandboxOff, true
	} else if profile.Confined() {
		switch backend, err := e.Sandboxing().backend(); {
		case err != nil:
			why = fmt.Sprintf("no sandbox can confine commands here (%v), so it would run unconfined; install bubblewrap or use a kernel with Landlock, or choose --sandbox off", err)
			profile, leaves = core.SandboxOff, true
		default:
			if why == "" {
				why = originDefault(call.Origin)
			}
			why = fmt.Sprintf("runs in the %s sandbox (%s): %s", profile, backend, why)
		}
	} else if why == "" {
		why = "runs unconfined: " + originDefault(call.Origin)
	}
	call.Sandbox = profile
	d.Sandbox, d.Reason = profile, why
	if leaves && op.verdict != core.VerdictAsk {
		d.Verdict = core.VerdictAsk
		op = opinion{core.VerdictAsk, why, "sandbox", ""}
	} else if leaves && !strings.Contains(why, op.reason) {
		op.reason = why + "; " + op.reason
	} else if leaves {
		op.reason = why // the asking hook is the one that widened
	}
	call.Record(d)
	return op, leaves
}

// originDefault says whose default a profile is.
func originDefault(o core.Origin) string {
	switch o {
	case core.OriginModel:
		return "the default for the model's commands"
	case core.OriginMCP:
		return "the default for an MCP client's commands"
	case core.OriginHook:
		return "another agent runs its own commands"
	}
	return "the default for your own commands (--sandbox, config(sandbox = ...))"
}

// sandboxWhere says where a profile runs a command, for a person.
func sandboxWhere(p core.Sandbox) string {
	if p == core.SandboxOff {
		return "unconfined"
	}
	return "in the " + string(p) + " sandbox"
}
