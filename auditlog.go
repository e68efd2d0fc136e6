package agentsh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agentsh/agentsh/audit"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/internal/userfile"
)

// auditor writes the shell's audit log (Config.AuditFile): a record of
// every call that ends in the pipeline, and of every hook event Hook
// answers. A record that cannot be written is not let pass: the first
// failure is reported through Config.Warn (event "audit_error"), and
// from then on every call is refused before it runs, since a call that
// cannot be recorded must not run unseen. It is safe for concurrent use.
type auditor struct {
	log  *audit.Log
	via  string
	warn func(event, msg string)

	mu     sync.Mutex
	failed error // the first write failure
}

// openAudit opens the audit log of cfg, or returns nil when there is
// none.
func openAudit(cfg Config) (*auditor, error) {
	if cfg.AuditFile == "" {
		return nil, nil
	}
	l, err := audit.Open(cfg.AuditFile)
	if err != nil {
		return nil, &OptionError{Option: "WithAudit", Value: cfg.AuditFile, Err: err}
	}
	return &auditor{log: l, via: cmpOr(cfg.AuditVia, "library"), warn: cfg.Warn}, nil
}

// options are the executor's: the record written as a call ends, and
// the refusal of calls once a record could not be written.
func (a *auditor) options() []executor.Option {
	return []executor.Option{
		executor.WithMiddleware(core.Middleware{Name: "audit", Func: a.refuseUnrecorded}),
		executor.WithOnEnd(func(call *core.Call, res *core.Result) {
			rec := audit.NewRecord(audit.KindCall, a.via, call, res)
			a.append(&rec)
		}),
	}
}

// append writes rec, reporting the first failure.
func (a *auditor) append(rec *audit.Record) error {
	err := a.log.Append(rec)
	if err == nil {
		return nil
	}
	a.mu.Lock()
	first := a.failed == nil
	if first {
		a.failed = err
	}
	a.mu.Unlock()
	if first {
		a.warn("audit_error", fmt.Sprintf("the audit log could not be written (%v): call %s of %s has no record, and from now on every call is refused", err, rec.Call.ID, rec.Call.Tool))
	}
	return err
}

func (a *auditor) refuseUnrecorded(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
	a.mu.Lock()
	err := a.failed
	a.mu.Unlock()
	if err == nil {
		return next(ctx, call)
	}
	return &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: "audit",
		Message: fmt.Sprintf("not run: the audit log %s could not be written (%v), and a call that cannot be recorded does not run", a.log.Path(), err)}}
}

// hookRecord writes the record of one hook event: decide for a pre-tool
// event, observe for a post-tool one; other events (prompts, input that
// was not the protocol's) call no tool and leave none.
func (a *auditor) hookRecord(agent string, hr hookadapter.Record) error {
	ev := hr.Event
	if ev == nil || ev.Kind != hookadapter.KindPreTool && ev.Kind != hookadapter.KindPostTool {
		return nil
	}
	via := "hook " + agent
	ans := hr.Answer
	var rec audit.Record
	switch {
	case ev.Kind == hookadapter.KindPreTool && ans.Ruling != nil:
		rec = rulingRecord(via, ans.Ruling, ans.Args)
	case ev.Kind == hookadapter.KindPostTool && ans.Result != nil:
		res := ans.Result
		call := &core.Call{ID: res.CallID, Name: res.Tool, Args: ans.Args, Origin: core.OriginHook, WorkDir: ev.Cwd}
		rec = audit.NewRecord(audit.KindObserve, via, call, res)
	default:
		// Blocked before a decision: the policies failed to load, no
		// decision in time, input agentsh cannot map. The record holds
		// the agent's own tool and input, and why.
		kind := audit.KindDecide
		if ev.Kind == hookadapter.KindPostTool {
			kind = audit.KindObserve
		}
		rec = audit.Record{Time: time.Now().UTC(), Kind: kind, Via: via,
			Call:      audit.Call{Tool: ev.Tool, Args: ev.Input, Origin: core.OriginHook.String(), WorkDir: ev.Cwd},
			Decisions: []core.Decision{},
			Outcome:   audit.Outcome{Verdict: core.VerdictDeny, Hook: "agentsh", Reason: hr.Stderr, Error: hr.Stderr}}
	}
	rec.Outcome.Answered = ans.Verdict
	if hr.Code == hookadapter.ExitBlock {
		rec.Outcome.Answered = core.VerdictDeny
	}
	return a.log.Append(&rec) // the caller blocks the call: no warning
}

// rulingRecord is the decide record of a ruling: the canonical call as
// decided (sent: its arguments before they were made canonical) and who
// decided it.
func rulingRecord(via string, r *executor.Ruling, sent json.RawMessage) audit.Record {
	call := &core.Call{Name: r.Tool, Args: r.Args, RawArgs: sent, Origin: r.Origin, WorkDir: r.WorkDir, Sandbox: r.Sandbox}
	rec := audit.NewRecord(audit.KindDecide, via, call, &core.Result{Decisions: r.Decisions})
	rec.Outcome = audit.Outcome{Verdict: r.Outcome, Hook: r.Hook, Source: r.Source, Reason: r.Reason, Sandbox: r.Sandbox}
	if r.Err != nil {
		rec.Outcome.ErrorKind, rec.Outcome.Error = string(errorKind(r.Err)), r.Err.Error()
	}
	return rec
}

// VerifyAudit reads the audit log r and checks its chain (audit.Verify);
// a head kept from before ("" for none) must be the hash of one of its
// records (Report.CheckHead).
func VerifyAudit(r io.Reader, head string) (AuditReport, error) {
	rep, err := audit.Verify(r)
	if err == nil && head != "" {
		rep.CheckHead(head)
	}
	return rep, err
}

// AuditReport is what VerifyAudit found (see audit.Report).
type AuditReport = audit.Report

// VerifyAuditFile is VerifyAudit of the audit log at path, which must be
// a regular file (a FIFO or a device is refused at once). A head that is
// not 64 hex digits is an *OptionError of "VerifyAuditFile.Head".
func VerifyAuditFile(path, head string) (AuditReport, error) {
	if head != "" && !audit.IsHash(head) {
		return AuditReport{}, &OptionError{Option: "VerifyAuditFile.Head", Value: head,
			Err: errors.New("want the 64 hex digits of a head that agentsh audit verify printed")}
	}
	f, err := userfile.Open(path, os.O_RDONLY, userfile.FollowLinks)
	if err != nil {
		return AuditReport{}, err
	}
	defer f.Close()
	return VerifyAudit(f, head)
}
