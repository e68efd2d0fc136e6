package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/agentsh/agentsh/core"
)

// NewRecord is the record of a call that went through the pipeline (kind
// KindCall) or was shown to the after hooks (KindObserve), by the command
// via, from the call as it ended and its result. The arguments are the
// canonical ones (and RawArgs what was sent, when it differs); Time is
// now. The chain (Seq, Prev, Hash) is Append's to fill.
func NewRecord(kind, via string, call *core.Call, res *core.Result) Record {
	rec := Record{
		Time: time.Now().UTC(),
		Kind: kind,
		Via:  via,
		Call: Call{
			ID: call.ID, Tool: call.Name,
			Args:    call.Args,
			Origin:  call.Origin.String(),
			WorkDir: call.WorkDir,
			Agent:   call.Agent, ParentAgent: call.ParentAgent,
		},
		Decisions: res.Decisions,
		Outcome:   outcomeOf(call, res),
	}
	if rec.Call.ID == "" {
		rec.Call.ID = res.CallID
	}
	if rec.Call.Tool == "" {
		rec.Call.Tool = res.Tool
	}
	if len(call.RawArgs) > 0 && string(call.RawArgs) != string(call.Args) {
		rec.Call.RawArgs = call.RawArgs
	}
	return rec
}

// outcomeOf summarizes res: who decided the call and what became of it.
func outcomeOf(call *core.Call, res *core.Result) Outcome {
	o := Outcome{
		Sandbox:    call.Sandbox,
		OK:         res.OK(),
		DurationMS: float64(res.Duration.Microseconds()) / 1000,
	}
	if res.Err != nil {
		o.ErrorKind, o.Error = string(res.Kind()), res.Err.Error()
	}
	if out := res.ForLLM; out != "" {
		s := sha256.Sum256([]byte(out))
		o.OutputBytes, o.OutputSHA256 = len(out), hex.EncodeToString(s[:])
	}
	// Who decided, as traces and policy diffs name it. A call that
	// ran outside agentsh (KindObserve) has no verdict of agentsh's.
	d := core.Settled(res.Decisions, res.Err)
	o.Verdict, o.Hook, o.Source, o.Reason = d.Verdict, d.Hook, d.Source, d.Reason
	return o
}

// cleanDecisions are ds with their argument objects made safe for a
// line (see cleanJSON); ds itself is not changed.
func cleanDecisions(ds []core.Decision) []core.Decision {
	if ds == nil {
		return []core.Decision{}
	}
	out := make([]core.Decision, len(ds))
	for i, d := range ds {
		d.ArgsBefore, d.ArgsAfter = cleanJSON(d.ArgsBefore), cleanJSON(d.ArgsAfter)
		out[i] = d
	}
	return out
}
