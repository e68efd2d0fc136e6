package main

import (
	"errors"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
)

// The library packages say what fixes an error in their own terms — a
// script name such as provider("...") or config(budget = ...), or a Go
// setting — never a flag of this command. agentsh.FixedBy names the
// setting; where the CLI reports an error it adds the flag that sets it.
var fixFlags = map[string]string{
	"Model":                 "--model PROVIDER:MODEL chooses the model",
	"ModelTimeout":          "--model-timeout D gives a slow server longer",
	"RecordFile":            "--record FILE records the run again",
	"SessionStart.Name":     "--session OTHER-NAME, or no --resume or --continue, starts a new session",
	"SessionStart.ResumeID": "--resume ID resumes it",
	"MaxSteps":              "--max-steps N raises it",
	"Sandbox":               "--sandbox off runs it unconfined",
	"PinsFile":              "--pins FILE uses another pins file",
	"ServeOptions.Token":    "--token-file FILE makes clients send its token",
	"HookInstall.User":      "--project installs into the project's settings",
	"HookInstall.Exe":       "--exe PATH names a lasting one (--allow-temp-exe installs this one anyway)",
	"PricesFile":            "--prices FILE adds a price, or drop --max-cost",
	"Budget.tool_calls":     "--max-tool-calls N raises it",
	"Budget.tokens":         "--max-tokens N raises it",
	"Budget.cost":           "--max-cost USD raises it",
	"Budget.wall":           "--max-wall DURATION raises it",
}

// flagHintOf is the flag that fixes err, or "".
func flagHintOf(err error) string { return fixFlags[agentsh.FixedBy(err)] }

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
