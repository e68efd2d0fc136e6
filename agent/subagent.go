package agent

import "context"

// ID names the agent in hook calls, decision records and replies.
func (a *Agent) ID() string { return "" }

// ParentID names the agent's parent, or "" for a top-level agent.
func (a *Agent) ParentID() string { return "" }

// agentContext marks ctx as this agent's, for the calls it makes.
func (a *Agent) agentContext(ctx context.Context) context.Context { return ctx }
