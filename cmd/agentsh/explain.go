package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// explain runs: agentsh explain TOOL [JSON]. It prints what the loaded
// policies would decide (executor.Decide) and runs nothing: no
// middleware, no tool, and hooks see a throwaway copy of the session.
// Exit 0 when the call would run, 1 when it would not (an ask counts as
// not running: explain asks nobody), 2 on usage errors. Arguments that
// are not a JSON object are a ruling too (invalid_arguments, exit 1).
func (a *app) explain(ctx context.Context) int {
	c, err := a.callArgs()
	if err != nil {
		return a.fail(err)
	}
	r := a.exec.Decide(ctx, c)
	if stop := stopCause(a.runCtx); stop != nil {
		return a.report(stop, stop)
	}
	if a.opts.jsonOut {
		a.events.Emit(agentsh.RulingJSON(r))
	} else {
		io.WriteString(a.io.out, renderRuling(r))
	}
	if r.Outcome == core.VerdictAllow {
		return 0
	}
	return 1
}

// renderRuling is explain's text: the trail, one decision a line (stage,
// hook and where it was defined, verdict, reason; a rewrite on a line of
// its own), then the final arguments and the outcome.
func renderRuling(r *executor.Ruling) string {
	var trail strings.Builder
	tw := tabwriter.NewWriter(&trail, 0, 4, 2, ' ', 0)
	for _, d := range r.Decisions {
		hook := d.Hook
		if d.Source != "" {
			hook += " at " + d.Source
		}
		verdict := d.Verdict.String()
		switch {
		case d.Skipped:
			verdict = "skipped"
		case d.Failed:
			verdict = "deny (the hook failed)"
		case d.Stage == core.StageValidation && d.Verdict == core.VerdictNone:
			verdict = "ok"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Stage, hook, verdict, oneLine(d.Reason))
		if d.Rewrote {
			fmt.Fprintf(tw, "\t\t\trewrote %s → %s\n", argsText(d.ArgsBefore), argsText(d.ArgsAfter))
		}
	}
	tw.Flush()
	var b strings.Builder
	for line := range strings.Lines(trail.String()) {
		b.WriteString(strings.TrimRight(line, " \n"))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "arguments: %s\n", argsText(r.Args))
	if fx := effectsText(r.Effects); fx != "" {
		fmt.Fprintf(&b, "effects: %s\n", fx)
	}
	if d, ok := agentsh.SandboxDecision(r); ok {
		fmt.Fprintf(&b, "sandbox: %s\n", oneLine(d.Reason))
	}
	fmt.Fprintf(&b, "%s\n", outcomeText(r))
	return b.String()
}

// effectsText says what a call would do, on one line: "reads a, b;
// writes c; runs bash `ls` in src; ...", or "" when it declares nothing.
func effectsText(fx *core.Effects) string {
	if fx == nil {
		return ""
	}
	if fx.Unknown {
		return "unknown (no tool declares them)"
	}
	var parts []string
	list := func(verb string, ps []string) {
		if len(ps) > 0 {
			parts = append(parts, verb+" "+strings.Join(ps, ", "))
		}
	}
	list("reads", fx.Reads)
	list("writes", fx.Writes)
	list("deletes", fx.Deletes)
	for _, sh := range fx.Shell {
		parts = append(parts, fmt.Sprintf("runs bash %s in %s", oneLine(sh.Command), sh.Dir))
	}
	for _, c := range fx.Code {
		lang := c.Language
		if lang == "" {
			lang = "unnamed"
		}
		parts = append(parts, "runs "+lang+" code")
	}
	list("reaches", fx.Hosts)
	return strings.Join(parts, "; ")
}

// outcomeText is the last line of explain: would run, would ask: REASON,
// denied by HOOK at FILE:LINE: REASON (", which failed" before the colon
// when the hook failed), or why the call cannot run at all.
func outcomeText(r *executor.Ruling) string {
	switch r.Outcome {
	case core.VerdictAllow:
		return "would run"
	case core.VerdictAsk:
		return "would ask: " + oneLine(r.Reason)
	}
	switch k := agentsh.ErrorKind(r.Err); k {
	case core.KindInvalidArguments, core.KindUnknownTool:
		return fmt.Sprintf("would not run (%s): %s", k, oneLine(r.Err.Error()))
	}
	if r.Hook == "" {
		return "denied: " + oneLine(r.Reason)
	}
	by := r.Hook
	if r.Source != "" {
		by += " at " + r.Source
	}
	for _, d := range r.Decisions {
		if d.Failed {
			by += ", which failed"
			break
		}
	}
	return fmt.Sprintf("denied by %s: %s", by, oneLine(r.Reason))
}

func argsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	if json.Valid(raw) {
		return showJSON(raw, "", "")
	}
	return fmt.Sprintf("%q (not valid JSON)", raw)
}

// oneLine keeps a reason on its line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }
