package core_test

import (
	"errors"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestSettled(t *testing.T) {
	allowAB := core.Decision{Stage: core.StageApproval, Hook: "a", Source: "p.star:3", Verdict: core.VerdictAllow, Reason: "fine"}
	ask := core.Decision{Stage: core.StageApproval, Hook: "guard", Source: "p.star:9", Verdict: core.VerdictAsk, Reason: "write x"}
	rejected := &core.Error{Kind: core.KindRejected, Message: "needs approval: write x; no approver is set"}
	for _, tc := range []struct {
		name string
		ds   []core.Decision
		err  error
		want core.Decision
	}{
		{"nothing decided", nil, nil, core.Decision{}},
		{"a canceled call", nil, &core.Error{Kind: core.KindCanceled, Message: "canceled"}, core.Decision{}},
		{"the approval step's allow", []core.Decision{
			{Stage: core.StageGlobalBefore, Hook: "a", Verdict: core.VerdictAllow, Reason: "fine"},
			allowAB,
			{Stage: core.StageAfter, Hook: "log"},
		}, nil, allowAB},
		{"a deny ends the before stages; the hooks it skipped are not the decider", []core.Decision{
			{Stage: core.StageToolBefore, Hook: "own", Verdict: core.VerdictNone},
			{Stage: core.StageGlobalBefore, Hook: "d", Source: "p.star:5", Verdict: core.VerdictDeny, Reason: "no"},
			{Stage: core.StageGlobalBefore, Hook: "later", Skipped: true, Verdict: core.VerdictDeny},
		}, &core.Error{Kind: core.KindRejected, Message: `rejected by "d": no`},
			core.Decision{Stage: core.StageGlobalBefore, Hook: "d", Source: "p.star:5", Verdict: core.VerdictDeny, Reason: "no"}},
		{"an approved ask: the asking hook, allowed", []core.Decision{
			ask, {Stage: core.StageApproval, Hook: "approver", Verdict: core.VerdictAllow, Reason: "ok"},
		}, nil, core.Decision{Stage: core.StageApproval, Hook: "guard", Source: "p.star:9", Verdict: core.VerdictAllow, Reason: "write x"}},
		{"a refused ask: the approver denied", []core.Decision{
			ask, {Stage: core.StageApproval, Hook: "approver", Verdict: core.VerdictDeny, Reason: "not now"},
		}, &core.Error{Kind: core.KindRejected, Message: "not approved: not now"},
			core.Decision{Stage: core.StageApproval, Hook: "approver", Verdict: core.VerdictDeny, Reason: "not now"}},
		{"an ask only decided", []core.Decision{ask}, nil, ask},
		{"an ask nobody could answer is a deny", []core.Decision{ask}, rejected,
			core.Decision{Stage: core.StageApproval, Hook: "guard", Source: "p.star:9", Verdict: core.VerdictDeny, Reason: rejected.Error()}},
		{"validation denies after an allow", []core.Decision{
			allowAB, {Stage: core.StageValidation, Hook: "schema", Verdict: core.VerdictDeny, Reason: "path is required"},
		}, &core.Error{Kind: core.KindInvalidArguments, Message: "path is required"},
			core.Decision{Stage: core.StageValidation, Hook: "schema", Verdict: core.VerdictDeny, Reason: "path is required"}},
		{"arguments refused before any hook", nil, &core.Error{Kind: core.KindInvalidArguments, Message: "not an object"},
			core.Decision{Stage: core.StageApproval, Verdict: core.VerdictDeny, Reason: "not an object"}},
		{"a tool's failure is no decision", []core.Decision{allowAB}, errors.New("disk full"), allowAB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := core.Settled(tc.ds, tc.err)
			if got.Stage != tc.want.Stage || got.Hook != tc.want.Hook || got.Source != tc.want.Source ||
				got.Verdict != tc.want.Verdict || got.Reason != tc.want.Reason {
				t.Errorf("Settled = %+v\nwant      %+v", got, tc.want)
			}
		})
	}
}
