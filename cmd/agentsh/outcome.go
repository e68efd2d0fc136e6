package main

import (
	"errors"
	"fmt"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
)

// The headless contract of the commands that run scripts or ask the model
// (run, -c, piped stdin and ask): the exit code tells how the run ended,
// and with --json one result event ends the stream.
//
// The exit code looks at the script's error and at every top-level ask()
// of the run (agentsh ask has one), whether or not the script handled
// its reply, in this order: a usage error 2; a stop signal 128+N; the
// script's exit(code), code (nothing is printed); a replay
// that left its recording 5 (the script's error, or an ask's error it
// caught); any other error 1, which includes an ask whose answer never
// validated against its schema (stop "schema"); an ask stopped by a
// budget 4; an ask stopped at its turn limit 3; with --fail-on-deny, a
// call that was denied 6; else 0. Subagents' runs count through their
// parent's reply (its denials include theirs). The session ends (its
// session_end hooks run) before the code is chosen: a signal during them
// counts, and a hook that fails makes a 0 a 1.

// headlessCommand reports whether the command is a run the headless
// contract covers.
func (o *options) headlessCommand() bool {
	return o.hasCode || o.command == "" || o.command == "run" || o.command == "ask"
}

// checkHeadlessFlags refuses the flags of the headless contract where they
// do not apply.
func checkHeadlessFlags(o *options) error {
	if o.command == "help" || o.command == "version" {
		return nil
	}
	if o.outputSchema != "" && o.command != "ask" {
		return usagef("--output-schema applies to agentsh ask; in a script, give the schema to ask(): ask(prompt, schema = {...})")
	}
	if !o.headlessCommand() || o.interactive {
		for flag, set := range map[string]bool{"--print": o.printOnly, "--fail-on-deny": o.failOnDeny} {
			if set {
				return usagef("%s applies to run, -c, piped stdin and ask", flag)
			}
		}
	}
	if o.printOnly && o.jsonOut {
		return usagef("--print and --json each choose what stdout holds; give one of them")
	}
	return nil
}

// finish ends a headless run: it reports err (nil for a run that ended
// normally), says why the exit code is not 0, writes the result event with
// --json, and returns the exit code. Other commands report err as before.
func (a *app) finish(err error) int {
	if !a.opts.headlessCommand() {
		if err != nil {
			return a.fail(err)
		}
		return 0
	}
	var (
		outs   []agentsh.Outcome
		endErr error
	)
	if a.sh != nil {
		outs = a.sh.Agent().Outcomes()
		// The session ends here, not when the process closes, so that
		// what its session_end hooks print, and their errors, come
		// before the result, and a signal during them counts.
		endErr = a.endSession(a.runCtx)
	}
	stop := stopCause(a.runCtx)
	code, why := exitCodeOf(err, stop, outs, a.opts.failOnDeny)
	if endErr != nil && code == exitOK {
		code = exitError
	}
	switch {
	case err != nil && !errors.As(err, new(*script.Exit)):
		a.reportCode(err, stop, code)
	case why != "" && a.events == nil:
		fmt.Fprintf(a.io.err, "agentsh: %s\n", why)
	}
	for _, e := range agentsh.EndErrors(endErr) {
		a.reportCode(e, stop, code)
	}
	if a.events != nil {
		a.events.Result(outs, code)
	}
	return code
}

// exitCodeOf chooses the exit code of a headless run (see the order above)
// and, when the outcomes chose it, says why.
func exitCodeOf(err error, stop *stopped, outs []agentsh.Outcome, failOnDeny bool) (int, string) {
	var (
		ue *usageError
		ex *script.Exit
	)
	switch {
	case errors.As(err, &ue):
		return exitUsage, ""
	case stop != nil:
		return stop.exitCode(), ""
	case errors.As(err, &ex):
		return ex.Code, "" // the script chose its exit code
	}
	e, why := agentsh.Ended(err, outs, failOnDeny)
	switch e {
	case agentsh.EndedError:
		return exitError, why
	case agentsh.EndedMaxTurns:
		return exitMaxTurns, why + " (raise it with --max-turns N or ask(..., max_turns = N))"
	case agentsh.EndedBudget:
		return exitBudget, why + "; on the command line, --max-tool-calls, --max-tokens, --max-cost or --max-wall raises a budget"
	case agentsh.EndedDiverged:
		return exitDiverged, why
	case agentsh.EndedDenied:
		return exitDenied, "--fail-on-deny: " + why
	}
	return exitOK, ""
}

// reportCode prints err, or with --json writes its error event, with the
// exit code the run ends with.
func (a *app) reportCode(err error, stop *stopped, code int) {
	if a.events != nil {
		a.events.Error(withFlagHint(err), code)
		return
	}
	a.printError(err, stop, code)
}
