package agentsh

// What people read: explain's text, the agent's progress, JSON for eyes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// ExplainText is agentsh explain's text: the trail, one decision a line (stage,
// hook and where it was defined, verdict, reason; a rewrite on a line of
// its own), then the final arguments and the outcome.
func ExplainText(r *executor.Ruling) string {
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
	if d, ok := sandboxDecision(r); ok {
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
	switch k := errorKind(r.Err); k {
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
		return ShowJSON(raw, "", "")
	}
	return fmt.Sprintf("%q (not valid JSON)", raw)
}

// oneLine keeps a reason on its line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// display shows people what the agent does: the model's text as it
// streams, what tools show (ForUser, unless silent), the calls that
// were refused or failed, and the subagents that start and end (a
// subagent's tool lines name it: [main/1 read]).
//
// NewDisplay returns the display of w as an observer of the agent's
// events (Config.Observer); it is safe for concurrent use.
type display struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool
}

func NewDisplay(w io.Writer) func(agent.Event) { return (&display{w: w}).event }

func (d *display) event(e agent.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	tool := e.Tool
	if e.Agent != "" {
		tool = e.Agent + " " + tool
	}
	switch e.Type {
	case "subagent_start", "subagent_end":
		d.endLine()
		d.subagent(e)
	case "text":
		io.WriteString(d.w, e.Text)
		d.midLine = !strings.HasSuffix(e.Text, "\n")
	case "model_response":
		d.endLine()
	case "budget_exhausted":
		d.endLine()
		fmt.Fprintf(d.w, "stopped: %s\n", e.Text)
	case "tool_output":
		d.endLine()
		text := strings.TrimSuffix(e.Text, "\n")
		fmt.Fprintf(d.w, "[%s] %s\n", tool, strings.ReplaceAll(text, "\n", "\n    "))
	case "tool_error":
		d.endLine()
		text := strings.TrimSuffix(e.Text, "\n")
		fmt.Fprintf(d.w, "[%s] error (%s): %s\n", tool, e.ErrorKind, strings.ReplaceAll(text, "\n", "\n    "))
	case "compaction":
		d.endLine()
		fmt.Fprintln(d.w, compactionLine(e))
	}
}

// subagent shows a subagent starting (with the first line of its
// prompt) or ending.
func (d *display) subagent(e agent.Event) {
	if e.Type == "subagent_start" {
		prompt, _, _ := strings.Cut(e.Text, "\n")
		fmt.Fprintf(d.w, "[%s] subagent started: %s\n", e.Agent, prompt)
		return
	}
	if e.Text != "" {
		fmt.Fprintf(d.w, "[%s] subagent failed: %s\n", e.Agent, e.Text)
		return
	}
	fmt.Fprintf(d.w, "[%s] subagent ended: %s after %d turns\n", e.Agent, e.Stop, e.Turns)
}

func (d *display) endLine() {
	if d.midLine {
		io.WriteString(d.w, "\n")
		d.midLine = false
	}
}

// compactionLine is how the display shows a compaction event.
func compactionLine(e agent.Event) string {
	s := fmt.Sprintf("[compacted] %d messages -> %d, about %d -> %d tokens: a summary replaced %d",
		e.MessagesBefore, e.MessagesAfter, e.TokensBefore, e.TokensAfter, e.Summarised)
	if e.Pinned > 0 {
		s += fmt.Sprintf(", %d pinned", e.Pinned)
	}
	return s
}

// ShowJSON renders JSON for a person (the approval prompt's arguments,
// explain's): keys sorted, numbers as they were written, and nothing
// escaped that JSON does not require, so &&, > and < read as themselves.
// With an indent, one key a line, each line after the first starting
// with prefix. Text that is not one JSON value comes back as it is.
// JSON for programs (--json) keeps its own encoding.
func ShowJSON(raw json.RawMessage, prefix, indent string) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return string(raw)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
