package agent

import (
	"context"

	"github.com/agentsh/agentsh/provider"
)

// The steps of a Run around each model request, each in its own file:
// compaction (compact.go), budgets and usage (budget.go), structured
// answers (structured.go), the session journal (journal.go) and the
// agent's identity for subagents (subagent.go).

// newReply starts the reply of a Run.
func (a *Agent) newReply() *Reply {
	return &Reply{AgentID: a.ID(), ParentID: a.ParentID(), SessionID: a.SessionID()}
}

// beforeRequest runs before each model request of turn: the conversation
// is compacted if the request would come near the model's context window,
// then the budgets are checked (ErrBudget: the request is not made).
func (a *Agent) beforeRequest(ctx context.Context, p provider.Provider, turn int, reply *Reply) error {
	if err := a.compactIfNeeded(ctx, p, turn, reply); err != nil {
		return err
	}
	return a.admitRequest(ctx, p, reply)
}
