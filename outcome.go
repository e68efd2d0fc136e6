package agentsh

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
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

// EndErrors splits the error of End (or of a session's end) into the errors
// of its hooks (and its session file), each to be reported on its own. A
// hook's script error keeps its position and backtrace and says which
// hook it was.
func EndErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, EndErrors(e)...)
		}
		return out
	}
	var he *agent.HookError
	var se *script.Error
	if errors.As(err, &he) && errors.As(he.Err, &se) {
		named := *se
		named.Msg = fmt.Sprintf("%s hook %q failed: %s", he.Event, he.Hook, se.Msg)
		return []error{&named}
	}
	return []error{err}
}
