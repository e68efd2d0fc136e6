package main

import (
	"errors"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/mcp"
	"github.com/agentsh/agentsh/tools/mcp/serve"
	"github.com/agentsh/agentsh/tools/process"
)

// The library packages say what fixes an error in their own terms — a
// script name such as provider("...") or config(budget = ...), or a Go
// option — never a flag of this command. Where the CLI reports an error it
// adds the flag that fixes it, from this one table of the libraries'
// error sentinels and types.

// flagHint is the flag that fixes the errors hint matches.
type flagHint struct {
	match func(err error) bool
	flag  func(err error) string
}

// hintIs matches errors.Is(err, target).
func hintIs(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// hintSays is a fixed hint.
func hintSays(hint string) func(error) string { return func(error) string { return hint } }

var flagHints = []flagHint{
	{hintIs(agent.ErrNoProvider), hintSays("--model PROVIDER:MODEL chooses the model")},
	{hintIs(script.ErrNoModel), hintSays("--model PROVIDER:MODEL chooses the model")},
	{hintIs(provider.ErrUnknownModel), hintSays("check the model name in --model PROVIDER:MODEL")},
	{hintIs(provider.ErrTimeout), hintSays("--model-timeout D gives a slow server longer")},
	{hintIs(provider.ErrDiverged), hintSays("--record FILE records the run again")},
	{hintIs(replay.ErrRecording), hintSays("--record FILE records the run again")},
	{hintIs(session.ErrLocked), hintSays("--session OTHER-NAME, or no --resume or --continue, starts a new session")},
	{hintIs(session.ErrExists), hintSays("--resume ID resumes it")},
	{hintIs(session.ErrUnusable), hintSays("--session OTHER-NAME starts one of another name")},
	{func(err error) bool { return errors.As(err, new(*script.StepBudgetError)) }, hintSays("--max-steps N raises it")},
	{hintIs(tools.ErrNoSandbox), hintSays("--sandbox off runs it unconfined")},
	{hintIs(process.ErrInsideSandbox), hintSays("--sandbox off runs it unconfined")},
	{hintIs(process.ErrNoSandbox), hintSays("--sandbox off runs it unconfined")},
	{hintIs(mcp.ErrPinsFile), hintSays("--pins FILE uses another pins file")},
	{hintIs(serve.ErrNotLoopback), hintSays("--token-file FILE makes clients send its token")},
	{hintIs(hookadapter.ErrNoHome), hintSays("--project installs into the project's settings")},
	{hintIs(hookadapter.ErrTemporaryExe), hintSays("--exe PATH names a lasting one (--allow-temp-exe installs this one anyway)")},
	{func(err error) bool { return errors.As(err, new(*agent.CostUnknownError)) },
		hintSays("--prices FILE adds a price, or drop --max-cost")},
	{func(err error) bool { return errors.As(err, new(*agent.Exhaustion)) }, func(err error) string {
		var e *agent.Exhaustion
		errors.As(err, &e)
		return budgetFlag(e.Budget)
	}},
}

// budgetFlag is the flag that raises a budget, or "" for one with none
// (a single tool's).
func budgetFlag(budget string) string {
	switch budget {
	case "tool_calls":
		return "--max-tool-calls N raises it"
	case "tokens":
		return "--max-tokens N raises it"
	case "cost":
		return "--max-cost USD raises it"
	case "wall":
		return "--max-wall DURATION raises it"
	}
	return ""
}

// flagHintOf is the flag that fixes err, or "".
func flagHintOf(err error) string {
	if err == nil {
		return ""
	}
	for _, h := range flagHints {
		if h.match(err) {
			return h.flag(err)
		}
	}
	return ""
}

// withFlagHint returns err with the flag that fixes it at the end of its
// message ("...; on the command line, --model PROVIDER:MODEL chooses the
// model"); errors.Is and errors.As see what they saw in err. An error
// that holds a script error is that *script.Error, with its position and
// backtrace, for printing.
func withFlagHint(err error) error {
	hint := flagHintOf(err)
	if hint == "" {
		return err
	}
	hint = "; on the command line, " + hint
	var se *script.Error
	if errors.As(err, &se) {
		c := *se
		c.Msg += hint
		return &c
	}
	return &hinted{err: err, hint: hint}
}

// hinted is an error with a hint after its message.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + h.hint }
func (h *hinted) Unwrap() error { return h.err }
