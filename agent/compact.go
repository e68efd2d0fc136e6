package agent

import (
	"context"

	"github.com/agentsh/agentsh/provider"
)

// compactIfNeeded compacts the conversation before a request that would
// come near the model's context window.
func (a *Agent) compactIfNeeded(ctx context.Context, p provider.Provider, turn int, reply *Reply) error {
	return nil
}
