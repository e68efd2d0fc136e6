package main

import (
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/agentapi"
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
		outs   []agentapi.Outcome
		endErr error
	)
	if a.agent != nil {
		outs = a.agent.session.Outcomes()
		// The session ends here, not when the process closes, so that
		// what its session_end hooks print, and their errors, come
		// before the result, and a signal during them counts.
		endErr = a.agent.endSession(a.runCtx)
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
	for _, e := range sessionEndErrors(endErr) {
		a.reportCode(e, stop, code)
	}
	if a.events != nil {
		a.events.result(resultEvent(outs, code))
	}
	return code
}

// sessionEndErrors splits the error of a session's end into the errors
// of its hooks (and its session file), each to be reported on its own. A
// hook's script error keeps its position and backtrace and says which
// hook it was.
func sessionEndErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, sessionEndErrors(e)...)
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

// exitCodeOf chooses the exit code of a headless run (see the order above)
// and, when the outcomes chose it, says why.
func exitCodeOf(err error, stop *stopped, outs []agentapi.Outcome, failOnDeny bool) (int, string) {
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
	case errors.Is(err, provider.ErrDiverged):
		return exitDiverged, ""
	}
	for _, o := range outs {
		if errors.Is(o.Err, provider.ErrDiverged) {
			return exitDiverged, fmt.Sprintf("an ask left the replay's recording: %v", o.Err)
		}
	}
	if err != nil {
		return exitError, ""
	}
	for _, o := range outs {
		if o.Err != nil {
			return exitError, fmt.Sprintf("an ask failed: %v", o.Err)
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopSchema {
			return exitError, "the answer did not validate against the schema: " + violationsLine(o.Reply)
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopBudget {
			why := o.Reply.Exhausted // which budget, and its config() key
			if why == "" {
				why = "a budget was exhausted (raise it with config(budget = ...))"
			}
			return exitBudget, "an ask stopped: " + why + "; on the command line, --max-tool-calls, --max-tokens, --max-cost or --max-wall raises a budget"
		}
	}
	for _, o := range outs {
		if o.Reply.Stop == agent.StopMaxTurns {
			return exitMaxTurns, fmt.Sprintf("an ask stopped at its turn limit after %s, before the model's final answer (raise it with --max-turns N or ask(..., max_turns = N))", plural(o.Reply.Turns, "turn", "turns"))
		}
	}
	if failOnDeny {
		for _, o := range outs {
			if len(o.Reply.Denials) > 0 {
				d := o.Reply.Denials[0]
				n := 0
				for _, o := range outs {
					n += len(o.Reply.Denials)
				}
				return exitDenied, fmt.Sprintf("%s denied (--fail-on-deny); the first, %s (%s), by %s: %s", plural(n, "call was", "calls were"), d.Tool, d.CallID, d.Hook, d.Reason)
			}
		}
	}
	return exitOK, ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// violationsLine is what was wrong with a reply's last answer.
func violationsLine(r *agent.Reply) string {
	if len(r.Violations) == 0 {
		return "no answer validated"
	}
	var s string
	for i, v := range r.Violations {
		if i == 5 {
			s += fmt.Sprintf("; and %d more", len(r.Violations)-i)
			break
		}
		if i > 0 {
			s += "; "
		}
		s += v.String()
	}
	return s
}

// reportCode prints err, or with --json writes its error event, with the
// exit code the run ends with.
func (a *app) reportCode(err error, stop *stopped, code int) {
	if a.events != nil {
		a.events.error(err, code)
		return
	}
	a.printError(err, stop, code)
}

// resultEvent is the result event of a run that ends with exit code code:
// its asks summed, the last one's stop reason, text and session, and with
// a schema the last structured answer's data (see docs/events.md).
func resultEvent(outs []agentapi.Outcome, code int) map[string]any {
	var (
		turns, calls int
		usage        provider.Usage
		cost         float64
		costKnown    = true
		stops        = []any{}
		denials      = []any{}
		session      string
		stop, text   any
		data         any
		hasSchema    bool
		violations   = []any{}
	)
	for _, o := range outs {
		r := o.Reply
		turns += r.Turns
		calls += r.ToolCalls
		usage = usage.Add(r.Usage)
		cost += r.Cost
		costKnown = costKnown && r.CostKnown
		if r.Stop == "" {
			stops = append(stops, nil) // a run that failed before it stopped
		} else {
			stops = append(stops, r.Stop)
		}
		for _, d := range r.Denials {
			denials = append(denials, map[string]any{"call_id": d.CallID, "tool": d.Tool, "hook": d.Hook, "reason": d.Reason, "agent": d.Agent})
		}
		if r.SessionID != "" {
			session = r.SessionID
		}
		stop, text = r.Stop, r.Text
		if o.Schema {
			hasSchema = true
			data = r.Data
			violations = []any{}
			for _, v := range r.Violations {
				violations = append(violations, map[string]any{"pointer": v.Pointer, "message": v.Message})
			}
		}
	}
	if stop == "" {
		stop = nil
	}
	ev := map[string]any{"event": "result", "exit_code": code, "asks": len(outs), "stop": stop, "stops": stops,
		"text": text, "turns": turns, "tool_calls": calls, "denials": denials, "session": session,
		"usage": map[string]any{"input_tokens": usage.InputTokens, "output_tokens": usage.OutputTokens,
			"cache_read_tokens": usage.CacheReadTokens, "cache_write_tokens": usage.CacheWriteTokens},
		"cost": nil}
	if costKnown {
		ev["cost"] = cost
	}
	if hasSchema {
		ev["data"] = data
		ev["violations"] = violations
	}
	return ev
}

// result writes the result event.
func (e *events) result(ev map[string]any) { e.emit(ev) }
