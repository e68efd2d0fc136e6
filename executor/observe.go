package executor

import (
	"context"
	"time"

	"github.com/agentsh/agentsh/core"
)

// Observe runs the after hooks on a call that ran outside this executor,
// with res as its result: an agent's own tool, seen by a hook adapter, so
// that audit logs see every call the agent made. No before hook,
// middleware or tool runs. An after hook's failure is added to res.Err as
// in Invoke; res is returned with the after decisions appended. The
// call's Origin defaults to OriginPerson. Observe is safe for concurrent
// use.
func (e *Executor) Observe(ctx context.Context, call core.Call, res *core.Result) *core.Result {
	start := time.Now()
	p := e.pipe.Load()
	e.startOutside(&call)
	call.Session = e.session
	call.RawArgs = call.Args
	if args, err := core.NormalizeArgs(call.Args); err == nil {
		call.Args = args
		// The call ran already: arguments that cannot be made canonical
		// reach the after hooks as they were, which they can see.
		if e.canonicalize(&call, true) != nil {
			call.Args = args
		}
	}
	ctx = withScope(ctx, scope{origin: call.Origin, session: e.session})
	ctx = withAgent(ctx, &call)
	if res == nil {
		res = &core.Result{}
	}
	res.CallID, res.Tool = call.ID, call.Name
	res.Agent, res.ParentAgent = call.Agent, call.ParentAgent
	res.Duration = e.runAfter(ctx, p, &call, res, start, 0)
	return res
}

// startOutside readies a call that Decide or Observe handles outside the
// pipeline: its ID, its tool, a trail of its own, and a person's origin
// when none is given (no enclosing call lends one).
func (e *Executor) startOutside(call *core.Call) {
	if call.ID == "" {
		call.ID = e.newID()
	}
	call.Tool = e.reg.GetTool(call.Name)
	call.ClearDecisions()
	if call.Origin == core.OriginUnset {
		call.Origin = core.OriginPerson
	}
}
