package durable

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
)

// DefaultApprovalTTL is how long a deferred approval waits for a decision.
const DefaultApprovalTTL = 24 * time.Hour

// Approval is an ask of an unattended run that waits for a decision. It is
// bound to the call (CallHash, of its tool and canonical arguments) and to
// the policy the run loaded (PolicyHash): it is refused when either
// changed, when it expired, and once it is spent.
type Approval struct {
	ID         string    `json:"id"`
	Run        string    `json:"run"`
	Tool       string    `json:"tool"`
	Args       string    `json:"args"` // canonical arguments, as JSON
	Reason     string    `json:"reason"`
	CallHash   string    `json:"call_hash"`
	PolicyHash string    `json:"policy_hash"`
	Created    time.Time `json:"created"`
	Expires    time.Time `json:"expires"`
	// State is pending, approved, denied, expired or spent (approved and
	// used by the call).
	State string `json:"state"`
	// Decided is the reason the decision gave (a denial's reaches the
	// model).
	Decided string `json:"decided_reason,omitempty"`
}

// The states of an Approval.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
	ApprovalExpired  = "expired"
	ApprovalSpent    = "spent"
)

// ErrNoApproval is the error for an approval id the database does not have.
var ErrNoApproval = errors.New("no such approval")

// callHash binds an approval to the call: its tool and canonical arguments.
func callHash(call *core.Call) string {
	b, _ := json.Marshal(struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}{call.Name, call.Args})
	return HashBytes(b)
}

// Approver returns the run's approver: inner's answers journaled as steps,
// or, when the run defers its asks (Spec.Approve "defer"), deferred
// approvals that park the run until a decision.
func (j *Journal) Approver(inner core.Approver) core.Approver {
	return core.ApproverFunc(func(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
		if j.depth.Load() > 0 {
			if j.spec.Approve == "defer" || inner == nil {
				return core.Approval{Verdict: core.VerdictDeny, Reason: "needs approval inside a call's work, which a durable run cannot wait for"}, nil
			}
			return inner.Approve(ctx, req)
		}
		if j.spec.Approve == "defer" {
			return j.defer_(ctx, req)
		}
		if inner == nil {
			return core.Approval{Verdict: core.VerdictDeny, Reason: "needs approval, and no one is asked"}, nil
		}
		type answer struct {
			Approval core.Approval `json:"approval"`
			Err      string        `json:"error,omitempty"`
		}
		ans, _, err := step(j, "approval "+req.Call.Name, func(context.Context) (answer, error) {
			a, err := inner.Approve(ctx, req)
			if err != nil {
				return answer{Err: err.Error()}, nil
			}
			return answer{Approval: a}, nil
		})
		if err != nil {
			return core.Approval{}, err
		}
		if ans.Err != "" {
			return core.Approval{}, errors.New(ans.Err)
		}
		return ans.Approval, nil
	})
}

// defer_ stores the ask as a pending approval and answers with its
// decision, parking the run while there is none.
func (j *Journal) defer_(ctx context.Context, req *core.ApprovalRequest) (core.Approval, error) {
	if req.LeavesSandbox {
		return core.Approval{Verdict: core.VerdictDeny, Reason: "leaving the sandbox is approved by a person at a terminal, one call at a time, never deferred"}, nil
	}
	j.asks++
	ttl := DefaultApprovalTTL
	if j.spec.ApprovalTTL > 0 {
		ttl = time.Duration(j.spec.ApprovalTTL) * time.Second
	}
	want := Approval{ID: fmt.Sprintf("%s.a%d", j.spec.ID, j.asks), Run: j.spec.ID, Tool: req.Call.Name,
		Args: string(req.Call.Args), Reason: req.Reason, CallHash: callHash(req.Call), PolicyHash: j.policy}
	stored, _, err := step(j, "ask "+want.ID, func(ctx context.Context) (Approval, error) {
		return j.e.insertApproval(context.WithoutCancel(ctx), want, ttl)
	})
	if err != nil {
		return core.Approval{}, j.orJournalFailed(err)
	}
	ans, _, err := step(j, "answer "+want.ID, func(context.Context) (core.Approval, error) {
		a, err := j.e.Approval(context.WithoutCancel(ctx), stored.ID)
		if err != nil {
			return core.Approval{}, err
		}
		switch {
		case a.State == ApprovalPending && time.Now().Before(a.Expires):
			return core.Approval{}, j.halt(&Stopped{Run: j.spec.ID, Approval: &a})
		case a.State == ApprovalPending, a.State == ApprovalExpired:
			j.e.expire(context.WithoutCancel(ctx), a.ID)
			return core.Approval{Verdict: core.VerdictDeny, Reason: fmt.Sprintf("approval %s expired at %s without a decision", a.ID, a.Expires.UTC().Format(time.RFC3339))}, nil
		case a.State == ApprovalDenied:
			reason := a.Decided
			if reason == "" {
				reason = "denied"
			}
			return core.Approval{Verdict: core.VerdictDeny, Reason: fmt.Sprintf("approval %s denied: %s", a.ID, reason)}, nil
		case a.CallHash != want.CallHash || a.PolicyHash != want.PolicyHash:
			return core.Approval{Verdict: core.VerdictDeny, Reason: fmt.Sprintf("approval %s was given for another call or policy than the run makes now (the script or its settings changed); it is not used", a.ID)}, nil
		}
		// Approved (or spent by an execution that stopped before it
		// journaled this answer): the call's work claims it.
		return core.Approval{Verdict: core.VerdictAllow, Reason: fmt.Sprintf("approval %s: %s", a.ID, a.Decided)}, nil
	})
	if err != nil {
		return core.Approval{}, j.orJournalFailed(err)
	}
	if ans.Verdict == core.VerdictAllow {
		j.claim = claim{id: stored.ID, call: req.Call.ID}
	}
	return ans, nil
}

// orJournalFailed is err of an approval's step: the run's stop, or a
// failure of the database, which stops the run rather than reaching the
// script as a denial.
func (j *Journal) orJournalFailed(err error) error {
	var st *Stopped
	if errors.As(err, &st) {
		return err
	}
	return j.journalFailed(err)
}

const approvalColumns = `id, run, tool, args, reason, call_hash, policy_hash, created_ms, expires_ms, state, decided_reason`

func scanApproval(row interface{ Scan(...any) error }) (Approval, error) {
	var a Approval
	var created, expires int64
	err := row.Scan(&a.ID, &a.Run, &a.Tool, &a.Args, &a.Reason, &a.CallHash, &a.PolicyHash, &created, &expires, &a.State, &a.Decided)
	a.Created, a.Expires = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
	return a, err
}

// insertApproval stores a pending approval, or returns the one stored
// under its id by an earlier execution.
func (e *Engine) insertApproval(ctx context.Context, a Approval, ttl time.Duration) (Approval, error) {
	now := time.Now()
	_, err := e.db.ExecContext(ctx, `INSERT INTO agentsh_approvals (`+approvalColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '') ON CONFLICT (id) DO NOTHING`,
		a.ID, a.Run, a.Tool, a.Args, a.Reason, a.CallHash, a.PolicyHash, now.UnixMilli(), now.Add(ttl).UnixMilli(), ApprovalPending)
	if err != nil {
		return Approval{}, fmt.Errorf("store approval %s: %v", a.ID, err)
	}
	return e.Approval(ctx, a.ID)
}

// Approval returns the approval id.
func (e *Engine) Approval(ctx context.Context, id string) (Approval, error) {
	a, err := scanApproval(e.db.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM agentsh_approvals WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, fmt.Errorf("approval %q: %w; list them with agentsh approvals", id, ErrNoApproval)
	}
	if err != nil {
		return Approval{}, fmt.Errorf("read approval %s: %v", id, err)
	}
	return a, nil
}

// Approvals lists approvals, oldest first: the pending ones, or all.
func (e *Engine) Approvals(ctx context.Context, all bool) ([]Approval, error) {
	q := `SELECT ` + approvalColumns + ` FROM agentsh_approvals`
	now := time.Now()
	args := []any{}
	if !all {
		// One past its expiry waits no more, whether or not a resume has
		// marked it expired yet.
		q += ` WHERE state = 'pending' AND expires_ms > $1`
		args = append(args, now.UnixMilli())
	}
	rows, err := e.db.QueryContext(ctx, q+` ORDER BY created_ms, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list approvals: %v", err)
	}
	defer rows.Close()
	var list []Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, fmt.Errorf("list approvals: %v", err)
		}
		if a.State == ApprovalPending && !now.Before(a.Expires) {
			a.State = ApprovalExpired
		}
		list = append(list, a)
	}
	return list, rows.Err()
}

// DecideOptions say what Decide decides.
type DecideOptions struct {
	Approve bool
	Reason  string
	// Run, when set, is the run the approval must belong to.
	Run string
}

// Decide approves or denies a pending approval, from any process. A
// decision already made, an expired approval and one of another run are
// refused with what happened to it.
func (e *Engine) Decide(ctx context.Context, id string, opts DecideOptions) (Approval, error) {
	a, err := e.Approval(ctx, id)
	if err != nil {
		return Approval{}, err
	}
	if opts.Run != "" && a.Run != opts.Run {
		return Approval{}, fmt.Errorf("approval %s belongs to run %s, not %s; list the approvals of a run with agentsh approvals", id, a.Run, opts.Run)
	}
	now := time.Now()
	if a.State == ApprovalPending && !now.Before(a.Expires) {
		e.expire(ctx, id)
		a.State = ApprovalExpired
	}
	if a.State != ApprovalPending {
		return Approval{}, refusal(a)
	}
	state := ApprovalDenied
	if opts.Approve {
		state = ApprovalApproved
	}
	res, err := e.db.ExecContext(ctx, `UPDATE agentsh_approvals SET state = $1, decided_reason = $2, decided_ms = $3 WHERE id = $4 AND state = 'pending' AND expires_ms > $5`,
		state, opts.Reason, now.UnixMilli(), id, now.UnixMilli())
	if err != nil {
		return Approval{}, fmt.Errorf("decide approval %s: %v", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// Decided (or expired) between the read and the write.
		if a, err = e.Approval(ctx, id); err != nil {
			return Approval{}, err
		}
		return Approval{}, refusal(a)
	}
	a.State, a.Decided = state, opts.Reason
	return a, nil
}

func refusal(a Approval) error {
	switch a.State {
	case ApprovalExpired:
		return fmt.Errorf("approval %s expired at %s without a decision; agentsh resume %s goes on with the call refused, or start the run again to be asked anew", a.ID, a.Expires.UTC().Format(time.RFC3339), a.Run)
	case ApprovalSpent:
		return fmt.Errorf("approval %s was approved and its call has run; an approval is used once", a.ID)
	}
	return fmt.Errorf("approval %s is already %s%s; a decision is made once", a.ID, a.State, suffix(a.Decided))
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + strings.TrimSpace(reason) + ")"
}

func (e *Engine) expire(ctx context.Context, id string) {
	_, _ = e.db.ExecContext(ctx, `UPDATE agentsh_approvals SET state = 'expired' WHERE id = $1 AND state = 'pending'`, id)
}

// spend uses approved approval id for the call about to run: once, by one
// execution, however many processes resume the run at the same time.
func (e *Engine) spend(ctx context.Context, id, by string) error {
	res, err := e.db.ExecContext(ctx, `UPDATE agentsh_approvals SET state = 'spent', spent_by = $1 WHERE id = $2 AND state = 'approved'`, by, id)
	if err != nil {
		return fmt.Errorf("use approval %s: %v", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("approval %s was already used by another execution of run %s, whose call may have run: it is not run again", id, strings.SplitN(id, ".a", 2)[0])
	}
	return nil
}
