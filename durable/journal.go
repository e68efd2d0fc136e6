package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// Journal is one execution of a run: the steps a Runner puts into the
// shell it composes. Every step is journaled the first time it runs and
// returns the journaled result on later executions of the run.
//
// A run's steps happen one at a time, in the same order on every
// execution, so the Runner must run tool calls one at a time (the
// executor's concurrency 1). Work nested in a step (the calls a tool
// makes, a subagent's model requests) is part of that step.
type Journal struct {
	e     *Engine
	ctx   dbos.Context
	spec  Spec
	nonce string // this execution, among the processes that may resume the run

	recorded []string // the names of the steps journaled before this execution, in order
	next     int      // the index of the next step
	depth    atomic.Int32
	asks     int
	claim    claim // the approval that allowed the call about to run

	policy string
	rerun  core.Approver
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	stop      error
	takenOver bool // stopped because another execution owns the run now
}

var _ executor.Journal = (*Journal)(nil)

func newJournal(e *Engine, ctx dbos.Context, spec Spec) (*Journal, error) {
	j := &Journal{e: e, ctx: ctx, spec: spec, nonce: newRunID()}
	steps, err := dbos.GetWorkflowSteps(e.dbos, spec.ID, dbos.WithStepsLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("read the journal of run %s: %v", spec.ID, err)
	}
	for _, s := range steps {
		j.recorded = append(j.recorded, s.StepName)
	}
	return j, nil
}

// ID is the run's id.
func (j *Journal) ID() string { return j.spec.ID }

// SetPolicy sets the hash of the policy the run loaded (its scripts and
// settings): deferred approvals are bound to it.
func (j *Journal) SetPolicy(hash string) { j.policy = hash }

// SetRerunApprover sets who is asked before a call that was in flight
// when the run stopped runs again (its tool not Idempotent): the run's
// approver. Unset, such a call is not run again.
func (j *Journal) SetRerunApprover(a core.Approver) { j.rerun = a }

// stopped returns why the run stopped, or nil.
func (j *Journal) stopped() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stop
}

// halt stops the run: the script's context is cancelled, and the
// workflow is cancelled in the database so that the step in progress is
// not journaled and a resume runs it.
func (j *Journal) halt(stop error) error { return j.stopWith(stop, true) }

// yield stops this execution of a run that another execution owns now
// (its process put it back on the queue, or resumed it): the run is not
// cancelled in the database, for the other execution goes on with it.
func (j *Journal) yield(stop error) error { return j.stopWith(stop, false) }

func (j *Journal) stopWith(stop error, cancelRun bool) error {
	j.mu.Lock()
	first := j.stop == nil
	if first {
		j.stop, j.takenOver = stop, !cancelRun
	}
	j.mu.Unlock()
	if first {
		if cancelRun {
			_ = dbos.CancelWorkflow(j.e.dbos, j.spec.ID)
		}
		if j.cancel != nil {
			j.cancel(stop)
		}
	}
	return stop
}

// yielded reports whether this execution stopped for another one.
func (j *Journal) yielded() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.takenOver
}

// claim is an approved deferred approval waiting for its call's work to
// use it.
type claim struct {
	id   string
	call string // its ID (middleware passes copies of a call; they keep it)
}

// step runs fn as the run's next step, or returns its journaled result;
// fresh says fn ran.
func step[R any](j *Journal, name string, fn func(context.Context) (R, error)) (r R, fresh bool, err error) {
	if err := j.stopped(); err != nil {
		return r, false, err
	}
	j.next++
	fault := j.e.cfg.Fault
	fault("before", name)
	var fnErr error
	r, err = dbos.RunAsStep(j.ctx, func(ctx context.Context) (R, error) {
		fresh = true
		fault("start", name)
		defer fault("end", name)
		r, fnErr = fn(ctx)
		return r, fnErr
	}, dbos.WithStepName(name))
	if err == nil {
		fault("after", name)
	}
	if err != nil {
		if stop := j.stopped(); stop != nil {
			return r, fresh, stop
		}
		if errors.Is(err, dbos.ErrConflictingWorkflowID) {
			return r, fresh, j.yield(&Stopped{Run: j.spec.ID, Reason: "another process took it over; this process stops here"})
		}
		if errors.Is(err, dbos.ErrWorkflowCancelled) {
			return r, fresh, j.halt(&Stopped{Run: j.spec.ID, Reason: "it was cancelled; this process stops here"})
		}
		if fresh && fnErr == nil {
			// The step's work is done and the journal could not keep it:
			// the run must not go on as if it had.
			return r, fresh, j.journalFailed(err)
		}
	}
	return r, fresh, err
}

// journalFailed stops the run because its journal could not be written
// (a full disk, a database gone): the script does not go on past a step
// that is not journaled.
func (j *Journal) journalFailed(err error) error {
	return j.halt(&Stopped{Run: j.spec.ID, Reason: fmt.Sprintf("its journal in %s could not be written (%v); free space or fix the database, then agentsh resume %s goes on", j.e.DB(), err, j.spec.ID)})
}

// recordedAt is the name of the step journaled at index i, or "".
func (j *Journal) recordedAt(i int) string {
	if i < len(j.recorded) {
		return j.recorded[i]
	}
	return ""
}

// Execute journals a call's work (see executor.Journal): first its
// canonical form and decisions, then what the tool did.
func (j *Journal) Execute(ctx context.Context, call *core.Call, run func(context.Context) *core.Result) *core.Result {
	if j.depth.Load() > 0 {
		return run(ctx) // part of the work of the step around it
	}
	now := decisionOf(call)
	was, fresh, err := step(j, "decide "+call.Name, func(context.Context) (decision, error) { return now, nil })
	if err != nil {
		return j.failed(call, err)
	}
	if !fresh {
		if diff := was.differs(now); diff != "" {
			return j.failed(call, j.halt(&Stopped{Run: j.spec.ID, Reason: fmt.Sprintf(
				"it decides %s differently than its journal: %s; the policy or the script changed since the run started: restore them and agentsh resume %s, or start a new run",
				call.ID, diff, j.spec.ID)}))
		}
	}
	workName := "run " + call.Name
	if !fresh && j.recordedAt(j.next) != workName && (call.Tool == nil || !call.Tool.Idempotent) {
		// The decision is journaled and the work is not: it was in flight
		// when the run stopped, and may have had its effect.
		if res := j.confirmRerun(ctx, call); res != nil {
			return res
		}
	}
	// The approval is this call's only if it was given for it (a call
	// approved, then refused by a later stage, leaves one for no one).
	spend := ""
	if j.claim.call == call.ID {
		spend = j.claim.id
	}
	j.claim = claim{}
	rec, _, err := step(j, workName, func(context.Context) (result, error) {
		if spend != "" {
			if err := j.e.spend(context.WithoutCancel(ctx), spend, j.nonce); err != nil {
				return resultOf(&core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: "approval", Message: err.Error()}})
			}
		}
		j.depth.Add(1)
		defer j.depth.Add(-1)
		return resultOf(run(ctx))
	})
	if err != nil {
		return j.failed(call, err)
	}
	return rec.toResult(call)
}

// confirmRerun asks before a call that was in flight runs again; nil
// means it may.
func (j *Journal) confirmRerun(ctx context.Context, call *core.Call) *core.Result {
	req := &core.ApprovalRequest{Call: call, Hook: "durable", Source: "resume",
		Reason: fmt.Sprintf("%s (%s) was running when run %s stopped and may have had its effect; %s is not idempotent: run it again?", call.ID, call.Name, j.spec.ID, call.Name)}
	var ans core.Approval
	var err error
	if j.rerun == nil {
		ans = core.Approval{Verdict: core.VerdictDeny, Reason: req.Reason + " (no one to ask)"}
	} else {
		ans, err = j.rerun.Approve(ctx, req)
	}
	if err == nil && ans.Verdict == core.VerdictAllow {
		return nil
	}
	if stop := j.stopped(); stop != nil {
		return j.failed(call, stop)
	}
	msg := ans.Reason
	if err != nil {
		msg = err.Error()
	}
	if msg == "" {
		msg = "not run again: " + req.Reason
	}
	call.Record(core.Decision{Stage: core.StageApproval, Hook: "durable", Verdict: core.VerdictDeny, Reason: msg})
	return &core.Result{CallID: call.ID, Tool: call.Name, Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: "durable", Message: msg}}
}

// failed is the result of a call the journal could not record.
func (j *Journal) failed(call *core.Call, err error) *core.Result {
	return &core.Result{CallID: call.ID, Tool: call.Name, Err: &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID, Message: err.Error(), Err: err}}
}

// Clock returns the run's clock: each reading is a step.
func (j *Journal) Clock() func() time.Time {
	return func() time.Time {
		if j.depth.Load() > 0 {
			return time.Now()
		}
		t, _, err := step(j, "clock", func(context.Context) (time.Time, error) { return time.Now(), nil })
		if err != nil {
			return time.Now() // the run is stopping; this reading is never seen
		}
		return t
	}
}

// Provider returns p with each model request a step.
func (j *Journal) Provider(p provider.Provider) provider.Provider {
	if p == nil {
		return nil
	}
	return &journaledModel{j: j, p: p}
}

type journaledModel struct {
	j *Journal
	p provider.Provider
}

var _ provider.Proxy = (*journaledModel)(nil)

func (m *journaledModel) Name() string    { return m.p.Name() }
func (m *journaledModel) Proxied() string { return provider.Identity(m.p) }

func (m *journaledModel) Complete(ctx context.Context, req provider.Request, stream func(string)) (provider.Response, error) {
	if m.j.depth.Load() > 0 {
		return m.p.Complete(ctx, req, stream)
	}
	resp, fresh, err := step(m.j, "model "+m.p.Name(), func(context.Context) (provider.Response, error) {
		return m.p.Complete(ctx, req, stream)
	})
	if !fresh {
		// Answered by the journal: a provider that keeps count (a
		// recording) passes over the request too.
		if s, ok := m.p.(provider.Skipper); ok {
			s.Skip(req)
		}
		if err == nil && stream != nil && resp.Content != "" {
			stream(resp.Content)
		}
	}
	return resp, err
}
