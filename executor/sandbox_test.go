package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// shellTool is a sandboxed tool that records the profile its calls reach
// it with.
type shellTool struct {
	mu  sync.Mutex
	got []core.Sandbox
}

func (s *shellTool) tool() core.Tool {
	return core.Tool{Name: "sh", Sandboxed: true, Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		s.mu.Lock()
		s.got = append(s.got, core.SandboxOf(ctx))
		s.mu.Unlock()
		return "ran", nil
	}}
}

func (s *shellTool) runs() []core.Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]core.Sandbox(nil), s.got...)
}

// choose is a before hook that gives verdict v with profile p.
func choose(name string, v core.Verdict, p core.Sandbox) core.BeforeHook {
	return core.BeforeHook{Name: name, Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return nil, &core.VerdictError{Verdict: v, Reason: name + " says so", Sandbox: p}
	}}
}

// askLog is an approver that answers yes and keeps what it was asked.
type askLog struct {
	mu     sync.Mutex
	asked  []core.ApprovalRequest
	always bool
}

func (a *askLog) Approve(_ context.Context, r *core.ApprovalRequest) (core.Approval, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, *r)
	return core.Approval{Verdict: core.VerdictAllow, Always: a.always}, nil
}

var withBwrap = executor.WithSandboxing(executor.Sandboxing{Backend: func() (string, error) { return "bwrap", nil }})

func sandboxDecision(t *testing.T, ds []core.Decision) core.Decision {
	t.Helper()
	for _, d := range ds {
		if d.Stage == core.StageSandbox {
			return d
		}
	}
	t.Fatalf("no sandbox stage in %+v", ds)
	return core.Decision{}
}

// TestSandboxDefaults: a model's and an MCP client's commands run in the
// workspace sandbox, a person's unconfined; another agent's run in that
// agent; a tool that runs no commands has no sandbox stage.
func TestSandboxDefaults(t *testing.T) {
	sh := &shellTool{}
	exec := newExec(t, []core.Tool{sh.tool(), okTool("plain")}, withBwrap,
		executor.WithBeforeHooks(choose("allow", core.VerdictAllow, core.SandboxUnset)))
	ctx := context.Background()
	for _, tc := range []struct {
		origin core.Origin
		want   core.Sandbox
		reason string
	}{
		{core.OriginModel, core.SandboxWorkspace, "runs in the workspace sandbox (bwrap): the default for the model's commands"},
		{core.OriginMCP, core.SandboxWorkspace, "runs in the workspace sandbox (bwrap): the default for an MCP client's commands"},
		{core.OriginPerson, core.SandboxOff, "runs unconfined: the default for your own commands (--sandbox, config(sandbox = ...))"},
	} {
		res := exec.Invoke(ctx, core.Call{Name: "sh", Origin: tc.origin})
		if !res.OK() {
			t.Fatalf("%s: %v", tc.origin, res.Err)
		}
		d := sandboxDecision(t, res.Decisions)
		if d.Sandbox != tc.want || d.Reason != tc.reason || d.Verdict != core.VerdictNone {
			t.Errorf("%s: sandbox stage %q %q %s, want %q %q none", tc.origin, d.Sandbox, d.Reason, d.Verdict, tc.want, tc.reason)
		}
	}
	if got, want := sh.runs(), []core.Sandbox{core.SandboxWorkspace, core.SandboxWorkspace, core.SandboxOff}; !slices.Equal(got, want) {
		t.Errorf("the tool ran in %v, want %v", got, want)
	}
	r := exec.Decide(ctx, core.Call{Name: "sh", Origin: core.OriginHook})
	if r.Sandbox != core.SandboxOff || r.Outcome != core.VerdictAllow {
		t.Errorf("another agent's call: %q %s, want off, allow", r.Sandbox, r.Outcome)
	}
	res := exec.Invoke(ctx, core.Call{Name: "plain", Origin: core.OriginModel})
	for _, d := range res.Decisions {
		if d.Stage == core.StageSandbox {
			t.Errorf("a tool that runs no commands got a sandbox stage: %+v", d)
		}
	}

	exec.SetSandboxing(executor.Sandboxing{Person: core.SandboxReadOnly, Automated: core.SandboxOff, Backend: func() (string, error) { return "landlock", nil }})
	if r := exec.Decide(ctx, core.Call{Name: "sh"}); r.Sandbox != core.SandboxReadOnly {
		t.Errorf("a person's call with Person read-only: %q", r.Sandbox)
	}
	if r := exec.Decide(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); r.Sandbox != core.SandboxOff {
		t.Errorf("a model's call with Automated off: %q", r.Sandbox)
	}
}

// TestSandboxNarrowing: a hook that names a narrower profile narrows it,
// the narrowest wins, whatever order the hooks ran in; a deny's profile
// counts for nothing.
func TestSandboxNarrowing(t *testing.T) {
	sh := &shellTool{}
	exec := newExec(t, []core.Tool{sh.tool()}, withBwrap, executor.WithBeforeHooks(
		choose("ws", core.VerdictAllow, core.SandboxWorkspace),
		choose("ro", core.VerdictAllow, core.SandboxReadOnly),
		choose("off", core.VerdictNone, core.SandboxOff)))
	res := exec.Invoke(context.Background(), core.Call{Name: "sh"}) // a person's: off by default
	if !res.OK() {
		t.Fatal(res.Err)
	}
	d := sandboxDecision(t, res.Decisions)
	if d.Sandbox != core.SandboxReadOnly || !strings.Contains(d.Reason, "narrowed by ro: ro says so") {
		t.Errorf("stage %q %q, want read-only narrowed by ro", d.Sandbox, d.Reason)
	}
	if got := sh.runs(); !slices.Equal(got, []core.Sandbox{core.SandboxReadOnly}) {
		t.Errorf("ran in %v", got)
	}

	denied := newExec(t, []core.Tool{sh.tool()}, withBwrap, executor.WithBeforeHooks(
		choose("no", core.VerdictDeny, core.SandboxOff)))
	if res := denied.Invoke(context.Background(), core.Call{Name: "sh", Origin: core.OriginModel}); res.Kind() != core.KindRejected {
		t.Errorf("a deny with a profile: %q %v, want rejected", res.Kind(), res.Err)
	}
}

// TestSandboxLeaving: a hook that widens the profile makes the call ask,
// saying it leaves the sandbox; the approver is told; neither an earlier
// "always" for the tool nor this approval covers the next call.
func TestSandboxLeaving(t *testing.T) {
	sh := &shellTool{}
	ap := &askLog{always: true}
	exec := newExec(t, []core.Tool{sh.tool()}, withBwrap, executor.WithApprover(ap),
		executor.WithBeforeHooks(choose("push", core.VerdictAllow, core.SandboxOff)))
	ctx := context.Background()

	r := exec.Decide(ctx, core.Call{Name: "sh", Origin: core.OriginModel})
	if r.Outcome != core.VerdictAsk || r.Sandbox != core.SandboxOff || r.Hook != "sandbox" {
		t.Fatalf("ruling %s %q by %q, want ask, off, by sandbox", r.Outcome, r.Sandbox, r.Hook)
	}
	want := "leaves the workspace sandbox to run unconfined (push: push says so)"
	if r.Reason != want {
		t.Errorf("reason\n got %q\nwant %q", r.Reason, want)
	}
	for i := range 2 {
		if res := exec.Invoke(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); !res.OK() {
			t.Fatalf("call %d: %v", i, res.Err)
		}
	}
	if len(ap.asked) != 2 {
		t.Fatalf("asked %d times, want 2: an approval to leave the sandbox holds for one call", len(ap.asked))
	}
	for _, req := range ap.asked {
		if !req.LeavesSandbox || req.Call.Sandbox != core.SandboxOff {
			t.Errorf("approval request %+v, want LeavesSandbox and the call's profile off", req)
		}
	}
	if got := sh.runs(); !slices.Equal(got, []core.Sandbox{core.SandboxOff, core.SandboxOff}) {
		t.Errorf("ran in %v", got)
	}
	if tools := exec.ApprovedTools(); len(tools) != 0 {
		t.Errorf("approved for the session: %v, want none", tools)
	}

	// An ask in the sandbox approved "always" does not approve leaving it.
	sh2 := &shellTool{}
	ap2 := &askLog{always: true}
	exec2 := newExec(t, []core.Tool{sh2.tool()}, withBwrap, executor.WithApprover(ap2))
	if res := exec2.Invoke(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); !res.OK() {
		t.Fatal(res.Err)
	}
	must(t, exec2.AddBefore(choose("leave", core.VerdictAsk, core.SandboxOff)))
	if res := exec2.Invoke(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); !res.OK() {
		t.Fatal(res.Err)
	}
	if len(ap2.asked) != 2 || ap2.asked[0].LeavesSandbox || !ap2.asked[1].LeavesSandbox {
		t.Errorf("asked %+v, want the sandboxed ask, then the ask to leave", ap2.asked)
	}
	if ap2.asked[1].Reason != "leaves the workspace sandbox to run unconfined (leave: leave says so)" {
		t.Errorf("the ask to leave says %q", ap2.asked[1].Reason)
	}
}

// TestSandboxUnavailable: where no backend can confine, a model's
// command asks to run unconfined, saying why, and a headless run refuses
// it; another agent's call that a policy allows only confined asks too.
func TestSandboxUnavailable(t *testing.T) {
	sh := &shellTool{}
	exec := newExec(t, []core.Tool{sh.tool()}, executor.WithSandboxing(executor.Sandboxing{
		Backend: func() (string, error) { return "", errors.New("bwrap is not installed; landlock needs ABI 6") }}),
		executor.WithBeforeHooks(choose("fine", core.VerdictAllow, core.SandboxUnset)))
	ctx := context.Background()
	res := exec.Invoke(ctx, core.Call{Name: "sh", Origin: core.OriginModel})
	if !errors.Is(res.Err, core.ErrNeedsApproval) {
		t.Fatalf("headless: %v, want needs approval", res.Err)
	}
	if !strings.Contains(res.Err.Error(), "no sandbox can confine commands here (bwrap is not installed; landlock needs ABI 6), so it would run unconfined") {
		t.Errorf("message %q does not say why", res.Err)
	}
	if n := len(sh.runs()); n != 0 {
		t.Fatalf("the command ran %d times without a sandbox or a person", n)
	}
	ap := &askLog{}
	exec.SetApprover(ap)
	if res := exec.Invoke(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); !res.OK() {
		t.Fatal(res.Err)
	}
	if len(ap.asked) != 1 || !ap.asked[0].LeavesSandbox {
		t.Errorf("asked %+v, want one ask to leave", ap.asked)
	}
	if got := sh.runs(); !slices.Equal(got, []core.Sandbox{core.SandboxOff}) {
		t.Errorf("approved, it ran in %v, want off", got)
	}
	// A person's own call is unconfined by default: nothing to ask.
	if r := exec.Decide(ctx, core.Call{Name: "sh"}); r.Outcome != core.VerdictAllow {
		t.Errorf("a person's call: %s %q", r.Outcome, r.Reason)
	}

	// Which backend would confine it does not matter to another agent's
	// call, so none is looked for (finding one starts a process).
	var probes atomic.Int32
	probed := executor.WithSandboxing(executor.Sandboxing{Backend: func() (string, error) { probes.Add(1); return "bwrap", nil }})
	hooked := newExec(t, []core.Tool{sh.tool()}, probed,
		executor.WithBeforeHooks(choose("confined", core.VerdictAllow, core.SandboxWorkspace)))
	r := hooked.Decide(ctx, core.Call{Name: "sh", Origin: core.OriginHook})
	if r.Outcome != core.VerdictAsk || !strings.Contains(r.Reason, "runs it outside agentsh's sandbox") {
		t.Errorf("another agent's call allowed only confined: %s %q, want ask", r.Outcome, r.Reason)
	}
	if n := probes.Load(); n != 0 {
		t.Errorf("deciding another agent's call looked for a sandbox backend %d times, want 0", n)
	}
	if r := hooked.Decide(ctx, core.Call{Name: "sh", Origin: core.OriginModel}); r.SandboxBackend != "bwrap" || probes.Load() == 0 {
		t.Errorf("the model's call: backend %q after %d looks, want bwrap", r.SandboxBackend, probes.Load())
	}
}
