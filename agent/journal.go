package agent

import "context"

// SessionID names the session the conversation is saved in, or "".
func (a *Agent) SessionID() string { return "" }

// endRun runs when a Run stops without an error.
func (a *Agent) endRun(ctx context.Context, reply *Reply) error { return nil }
