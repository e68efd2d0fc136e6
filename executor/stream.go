package executor

import (
	"context"
	"io"

	"github.com/agentsh/agentsh/core"
)

// streamContext returns the context call's innermost step runs with: ctx
// with stream granted (see core.WithOutputStream) when nothing in p could
// see or change the call's output, else ctx as it is, without a stream.
// invokeResolved has already taken any stream out of ctx, so the before
// hooks, and calls nested in this one, never see one.
func (e *Executor) streamContext(ctx context.Context, p *pipeline, call *core.Call, stream io.Writer) context.Context {
	if stream == nil || !e.outputUnseen(p, call) {
		return ctx
	}
	return core.GrantOutputStream(ctx, stream)
}

// outputUnseen reports whether no middleware, after hook, offload or OnEnd
// callback, nor a journal, would see call's output: only then may it go to a stream
// instead of the result.
func (e *Executor) outputUnseen(p *pipeline, call *core.Call) bool {
	t := call.Tool
	if t == nil || e.journal != nil || len(t.After) > 0 || p.offload != nil || len(p.afterGlobal) > 0 || len(e.onEnd) > 0 {
		return false
	}
	for _, h := range p.afterTool {
		if core.MatchTools(h.Tools, call.Name) {
			return false
		}
	}
	for _, m := range p.middleware {
		if core.MatchTools(m.Tools, call.Name) {
			return false
		}
	}
	return true
}
