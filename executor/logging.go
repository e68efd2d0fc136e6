package executor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/agentsh/agentsh/core"
)

// LogRecord describes one finished call without its payloads.
type LogRecord struct {
	Tool        string        `json:"tool"`
	CallID      string        `json:"call_id"`
	ArgBytes    int           `json:"arg_bytes"`
	ResultBytes int           `json:"result_bytes"`
	Duration    time.Duration `json:"duration_ns"`
	// Outcome is "ok" or the error kind.
	Outcome string `json:"outcome"`
	// Hook names the hook that rejected or failed the call, if any.
	Hook string `json:"hook,omitempty"`
	// Verdict is the approval step's outcome (allow, ask or deny; deny
	// for a call a hook rejected; empty when the call stopped earlier) and
	// DecidedBy who settled it: a hook, "default", "permissions",
	// "session" or "approver".
	Verdict   string `json:"verdict,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
}

// Logging returns a global after hook that reports every call to sink:
// identity, call ID, argument and result sizes, duration, outcome and who
// decided it may run, never the payloads. Because it is an after hook it also sees calls that were
// rejected or never reached a tool. Register it with AddAfter. sink may be
// called concurrently.
func Logging(sink func(LogRecord)) core.AfterHook {
	return core.AfterHook{
		Name: "logging",
		Func: func(_ context.Context, call *core.Call, res *core.Result) error {
			rec := LogRecord{
				Tool: call.Name, CallID: call.ID,
				ArgBytes:    len(call.Args),
				ResultBytes: len(res.ForLLM),
				Duration:    res.Duration,
				Outcome:     "ok",
			}
			for _, d := range res.Decisions {
				if d.Stage == core.StageApproval {
					rec.Verdict, rec.DecidedBy = d.Verdict.String(), d.Hook
				}
			}
			if res.Err != nil {
				rec.Outcome = string(res.Kind())
				var e *core.Error
				if errors.As(res.Err, &e) {
					rec.Hook = e.Hook
				}
				if rec.Verdict == "" && rec.Outcome == string(core.KindRejected) {
					rec.Verdict, rec.DecidedBy = core.VerdictDeny.String(), rec.Hook
				}
			}
			sink(rec)
			return nil
		},
	}
}

// JSONLines returns a Logging sink that writes one JSON object per record
// to w, serialized so concurrent calls never interleave.
func JSONLines(w io.Writer) func(LogRecord) {
	var mu sync.Mutex
	return func(r LogRecord) {
		b, _ := json.Marshal(r)
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write(append(b, '\n'))
	}
}
