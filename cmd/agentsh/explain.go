package main

import (
	"context"
	"io"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
)

// explain runs: agentsh explain TOOL [JSON]. It prints what the loaded
// policies would decide (executor.Decide) and runs nothing: no
// middleware, no tool, and hooks see a throwaway copy of the session.
// Exit 0 when the call would run, 1 when it would not (an ask counts as
// not running: explain asks nobody), 2 on usage errors. Arguments that
// are not a JSON object are a ruling too (invalid_arguments, exit 1).
func (a *app) explain(ctx context.Context) int {
	c, err := a.callArgs()
	if err != nil {
		return a.fail(err)
	}
	r := a.sh.Executor().Decide(ctx, c)
	if stop := stopCause(a.runCtx); stop != nil {
		return a.report(stop, stop)
	}
	if a.opts.jsonOut {
		a.events.Emit(agentsh.RulingJSON(r))
	} else {
		io.WriteString(a.io.out, agentsh.ExplainText(r))
	}
	if r.Outcome == core.VerdictAllow {
		return 0
	}
	return 1
}
