package agentsh

import (
	"context"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

// Outcome is how one top-level run of the agent ended: a script's ask()
// or an Ask. Shell.Outcomes lists them.
type Outcome = agentapi.Outcome

// ErrDiverged is the error of a replayed model whose conversation has
// left its recording (a replay:FILE model).
var ErrDiverged = provider.ErrDiverged

// Outcomes returns how the shell's top-level runs ended, in order.
func (s *Shell) Outcomes() []Outcome { return s.agent.Outcomes() }

// End ends the shell's conversation for good: its session_end hooks run
// with ctx. Close does not run them again.
func (s *Shell) End(ctx context.Context) error { return s.agent.End(ctx) }
