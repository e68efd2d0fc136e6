package core

import "context"

// agentKey is the context key of the agent whose run a call belongs to.
type agentKey struct{}

// agentIDs is the value under agentKey.
type agentIDs struct{ id, parent string }

// WithAgent marks ctx as the context of agent id's run (parent is its
// parent agent's id, "" for a top-level agent): the executor gives every
// call made with it, and the calls nested in them, Call.Agent id and
// Call.ParentAgent parent (see Call). The agent package calls it at the
// start of each Run.
func WithAgent(ctx context.Context, id, parent string) context.Context {
	return context.WithValue(ctx, agentKey{}, agentIDs{id, parent})
}

// AgentOf returns the agent ids WithAgent put on ctx, or "", "" when no
// agent's run made it.
func AgentOf(ctx context.Context) (id, parent string) {
	a, _ := ctx.Value(agentKey{}).(agentIDs)
	return a.id, a.parent
}
