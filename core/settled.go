package core

// Settled is the record that settled a call, from its decision trail and
// its error (nil when the call ran and succeeded, or was only decided):
// who decided, with what verdict and why. Traces, audit logs and policy
// diffs all name the decider through it, so they agree.
//
//   - A before hook's deny (or failure) ends the before stages: it decided.
//   - Otherwise the approval step's first record decided: a hook's allow
//     or ask, the default, the permissions or the session's approvals.
//     An ask the Approver answered has the Approver's verdict; the hook
//     that asked stays the decider of an approved call, and the approver
//     is the decider of a refused one.
//   - A deny of schema validation after an allow decided instead.
//   - A call refused with no record to say so (arguments that are not an
//     object or leave the workdir, an ask nobody could answer) is a deny
//     whose reason is err.
//
// A trail that settled nothing (a call whose context was canceled
// first) gives a Decision with VerdictNone.
func Settled(ds []Decision, err error) Decision {
	var settled Decision
	found := false
	for i, d := range ds {
		switch d.Stage {
		case StageToolBefore, StageGlobalBefore:
			if d.Verdict == VerdictDeny && !d.Skipped {
				return d
			}
		case StageCanonical:
			if d.Verdict == VerdictDeny {
				return d
			}
		case StageApproval:
			if found {
				continue
			}
			settled, found = d, true
			if d.Verdict == VerdictAsk {
				if a, ok := approverAnswer(ds[i+1:]); ok {
					settled.Verdict = a.Verdict
					if a.Verdict != VerdictAllow {
						settled.Hook, settled.Source, settled.Reason = a.Hook, "", a.Reason
					}
				}
			}
		case StageValidation:
			if d.Verdict == VerdictDeny {
				return d
			}
		}
	}
	if kind := KindOf(err); kind == KindRejected || kind == KindInvalidArguments || kind == KindUnknownTool {
		if settled.Verdict != VerdictDeny {
			if !found {
				settled = Decision{Stage: StageApproval}
			}
			settled.Verdict, settled.Reason = VerdictDeny, err.Error()
		}
	}
	return settled
}

// approverAnswer is the Approver's record among the approval step's
// records that follow an ask.
func approverAnswer(ds []Decision) (Decision, bool) {
	for _, d := range ds {
		if d.Stage == StageApproval && d.Hook == "approver" {
			return d, true
		}
	}
	return Decision{}, false
}
