package agent

import (
	"context"

	"github.com/agentsh/agentsh/provider"
)

// SessionID names the session the conversation is saved in, or "".
func (a *Agent) SessionID() string { return "" }

// endRun runs when a Run stops without an error.
func (a *Agent) endRun(ctx context.Context, reply *Reply) error { return nil }

// journalAppend records a message that joined the conversation.
func (a *Agent) journalAppend(m provider.Message) {}

// journalReplace records that the conversation was replaced by msgs.
func (a *Agent) journalReplace(msgs []provider.Message, why string) {}
