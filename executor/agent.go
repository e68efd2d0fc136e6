package executor

import (
	"context"

	"github.com/agentsh/agentsh/core"
)

// TopAgent is the id of a top-level agent: agentsh's own, an MCP
// client, another agent through a hook.
const TopAgent = "main"

// withAgent gives call the agent of ctx (core.WithAgent) unless it names
// one already, and returns the context its nested calls use: ctx, or ctx
// marked with the call's own agent when that differs.
func withAgent(ctx context.Context, call *core.Call) context.Context {
	id, parent := core.AgentOf(ctx)
	if id == "" && call.Agent == "" && call.Origin.Automated() {
		// A model's call outside agentsh's own agent run (an MCP client,
		// another agent's hook, Decide as a model) is a top-level agent's.
		call.Agent = TopAgent
		return core.WithAgent(ctx, TopAgent, "")
	}
	if call.Agent == "" {
		call.Agent, call.ParentAgent = id, parent
		return ctx
	}
	if call.Agent != id || call.ParentAgent != parent {
		return core.WithAgent(ctx, call.Agent, call.ParentAgent)
	}
	return ctx
}
