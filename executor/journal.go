package executor

import (
	"context"

	"github.com/agentsh/agentsh/core"
)

// Journal records the work of the calls that run, so that a run can be
// resumed without doing that work again (see the durable package). The
// executor hands it each call once the pipeline has decided to run it:
// after the before hooks, the approval, every middleware and argument
// validation, at the innermost step. Execute returns what run returns, or
// the result the journal recorded for the same call in an earlier
// execution of the run; either way the after hooks then see it.
//
// A journal sees every output, so an executor with one never streams a
// call's output past it (see core.WithOutputStream); and it records the
// calls in the order they run, so an executor with one runs a batch
// (ExecuteAll) serially, whatever its mode.
type Journal interface {
	Execute(ctx context.Context, call *core.Call, run func(context.Context) *core.Result) *core.Result
}

// WithJournal records the tools' work in j (see Journal).
func WithJournal(j Journal) Option { return func(e *Executor) { e.journal = j } }
