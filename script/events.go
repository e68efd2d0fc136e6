package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// Events for on(event, fn): "approve", declared here, and whatever a Go
// program adds (the agent adds its lifecycle events: session_start,
// user_prompt, ...).

// Event is one name on(event, fn) accepts.
type Event struct {
	Name string
	// On installs fn for the event.
	On func(fn Func) error
}

// AddEvent makes on(e.Name, fn) install fn with e.On; an event of the
// same name is replaced. Add events before scripts run.
func (h *Host) AddEvent(e Event) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	for i, old := range h.events {
		if old.Name == e.Name {
			h.events[i] = e
			return
		}
	}
	h.events = append(h.events, e)
}

// apiOn is on(event, fn).
func (h *Host) apiOn(_ context.Context, a Args) (any, error) {
	name := a["event"].(string)
	h.cfgMu.Lock()
	var (
		ev    *Event
		names []string
	)
	for i, e := range h.events {
		names = append(names, e.Name)
		if e.Name == name {
			ev = &h.events[i]
		}
	}
	h.cfgMu.Unlock()
	if ev == nil {
		msg := fmt.Sprintf("on: unknown event %q; the events are %s", name, strings.Join(names, ", "))
		if len(names) == 1 {
			msg += " (the agent's lifecycle events, such as session_start, exist when an agent is set up)"
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return nil, ev.On(a["fn"].(Func))
}

// approveEvent is on("approve", fn): fn becomes the executor's Approver.
func (h *Host) approveEvent() Event {
	return Event{Name: "approve", On: func(fn Func) error {
		h.exec.SetApprover(&scriptApprover{fn: fn})
		return nil
	}}
}

// scriptApprover asks a script function whether a call may run:
// fn(request) with request .tool .args .reason .hook .source .call_id
// .origin .agent .parent_agent (see core.Call.Agent) .workdir .effects (as
// a call's), answering allow(reason?, always = True?), deny(reason), True
// or False. Anything else, or an error, denies the call. fn may run on
// several goroutines at once (parallel batches); script functions can.
type scriptApprover struct{ fn Func }

var _ core.Approver = (*scriptApprover)(nil)

// approverReturns lists what an approver may return, for messages.
const approverReturns = "allow(reason?) (allow(always = True) for the rest of the session), deny(reason), True or False"

func (a *scriptApprover) Approve(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
	call := req.Call
	args := argsValue(call.Args)
	if args == nil {
		args = map[string]any{}
	}
	rec := Record{"tool": call.Name, "args": args, "reason": req.Reason, "hook": req.Hook, "source": req.Source,
		"call_id": call.ID, "origin": call.Origin.String(), "agent": call.Agent, "parent_agent": call.ParentAgent,
		"workdir": call.WorkDir, "effects": EffectsValue(call.Effects),
		"sandbox": sandboxValue(call.Sandbox), "leaves_sandbox": req.LeavesSandbox}
	out, err := a.fn.Call(LeaveBeforeHook(ctx), rec)
	if err != nil {
		return core.Approval{}, fmt.Errorf("%s: %w", a.fn.Name(), boundError(err))
	}
	switch o := out.(type) {
	case bool:
		if o {
			return core.Approval{Verdict: core.VerdictAllow}, nil
		}
		return core.Approval{Verdict: core.VerdictDeny}, nil
	case Verdict:
		o = o.bounded()
		switch {
		case o.Args != "":
			return core.Approval{}, fmt.Errorf("%s returned %s; an approver cannot rewrite the arguments (a before hook can)", a.fn.Name(), o)
		case o.Verdict == core.VerdictAllow:
			return core.Approval{Verdict: core.VerdictAllow, Reason: o.Reason, Always: o.Always}, nil
		case o.Verdict == core.VerdictDeny:
			return core.Approval{Verdict: core.VerdictDeny, Reason: o.Reason}, nil
		}
	}
	return core.Approval{}, fmt.Errorf("%s returned %s; want %s", a.fn.Name(), describe(out), approverReturns)
}
