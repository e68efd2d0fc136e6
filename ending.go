package agentsh

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/agent"
)

// Ending is how a run of the shell ended: a script with its top-level
// asks, or an Ask. A batch runner tells a finished run from one cut short
// by it, without reading the output.
type Ending int

const (
	EndedOK       Ending = iota
	EndedError           // the run failed, an ask failed, or no answer matched its schema
	EndedMaxTurns        // an ask stopped at its turn limit
	EndedBudget          // a budget was exhausted
	EndedDiverged        // a replayed model left its recording
	EndedDenied          // a call was denied (when that counts)
)

// Ended reads how a run ended from its error (nil when it ended normally)
// and the outcomes of its top-level asks, whether or not the script
// handled their replies. The first that applies wins: a replay that left
// its recording, any other error of the run, an ask that failed or whose
// answer never matched its schema, an ask stopped by a budget, one
// stopped at its turn limit, and, when failOnDeny, a denied call.
// Subagents count through their parent's reply. why says what decided
// it when an outcome did.
func Ended(err error, outs []Outcome, failOnDeny bool) (e Ending, why string) {
	if errors.Is(err, ErrDiverged) {
		return EndedDiverged, ""
	}
	for _, o := range outs {
		if errors.Is(o.Err, ErrDiverged) {
			return EndedDiverged, fmt.Sprintf("an ask left the replay's recording: %v", o.Err)
		}
	}
	if err != nil {
		return EndedError, ""
	}
	for _, o := range outs {
		if o.Err != nil {
			return EndedError, fmt.Sprintf("an ask failed: %v", o.Err)
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopSchema {
			return EndedError, "the answer did not validate against the schema: " + violationsLine(o.Reply)
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopBudget {
			why := o.Reply.Exhausted // which budget, and how to raise it
			if why == "" {
				why = "a budget was exhausted (raise it with config(budget = ...))"
			}
			return EndedBudget, "an ask stopped: " + why
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopMaxTurns {
			return EndedMaxTurns, fmt.Sprintf("an ask stopped at its turn limit after %s, before the model's final answer", plural(o.Reply.Turns, "turn", "turns"))
		}
	}
	if failOnDeny {
		n := 0
		for _, o := range outs {
			n += len(o.Reply.Denials)
		}
		for _, o := range outs {
			if len(o.Reply.Denials) > 0 {
				d := o.Reply.Denials[0]
				return EndedDenied, fmt.Sprintf("%s denied; the first, %s (%s), by %s: %s", plural(n, "call was", "calls were"), d.Tool, d.CallID, d.Hook, d.Reason)
			}
		}
	}
	return EndedOK, ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// violationsLine is what was wrong with a reply's last answer: the first
// five violations.
func violationsLine(r *agent.Reply) string {
	if len(r.Violations) == 0 {
		return "no answer validated"
	}
	var b strings.Builder
	for i, v := range r.Violations {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(r.Violations)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

func (e Ending) String() string {
	switch e {
	case EndedOK:
		return "ok"
	case EndedError:
		return "error"
	case EndedMaxTurns:
		return "max_turns"
	case EndedBudget:
		return "budget"
	case EndedDiverged:
		return "diverged"
	case EndedDenied:
		return "denied"
	}
	return fmt.Sprintf("Ending(%d)", int(e))
}
