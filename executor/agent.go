package executor

import (
	"context"

	"github.com/agentsh/agentsh/core"
)

// withAgent gives call the agent of ctx (core.WithAgent) unless it names
// one already, and returns the context its nested calls use: ctx, or ctx
// marked with the call's own agent when that differs.
func withAgent(ctx context.Context, call *core.Call) context.Context {
	id, parent := core.AgentOf(ctx)
	if call.Agent == "" {
		call.Agent, call.ParentAgent = id, parent
		return ctx
	}
	if call.Agent != id || call.ParentAgent != parent {
		return core.WithAgent(ctx, call.Agent, call.ParentAgent)
	}
	return ctx
}
