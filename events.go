package agentsh

import (
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
)

// Events writes the shell's events as JSON lines: one object per line,
// with an "event" field (docs/events.md documents every one). Lines from
// concurrent calls never interleave. They hold no timestamps or
// durations, so runs can be compared byte for byte. An Events is safe
// for concurrent use.
type Events struct {
	mu sync.Mutex
	w  io.Writer
}

// NewEvents returns an Events that writes to w.
func NewEvents(w io.Writer) *Events { return &Events{w: w} }

// Emit writes one event.
func (e *Events) Emit(v map[string]any) {
	b, err := core.MarshalJSON(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"event": "error", "message": "cannot encode event: " + err.Error()})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(append(b, '\n'))
}

// Printer is a script's output as print events (for Config.Output).
func (e *Events) Printer() io.Writer { return printWriter{e} }

type printWriter struct{ e *Events }

func (p printWriter) Write(b []byte) (int, error) {
	text := string(b)
	if n := len(text); n > 0 && text[n-1] == '\n' {
		text = text[:n-1]
	}
	p.e.Emit(map[string]any{"event": "print", "text": text})
	return len(b), nil
}

// Observe returns the executor options that write a tool_start and a
// tool_end event for every call (for Config.ExecutorOptions).
func (e *Events) Observe() []executor.Option {
	return []executor.Option{executor.WithOnStart(e.toolStart), executor.WithOnEnd(e.toolEnd)}
}

func (e *Events) toolStart(call *core.Call) {
	var args any = string(call.Args)
	if json.Valid(call.Args) {
		args = json.RawMessage(call.Args)
	}
	ev := map[string]any{"event": "tool_start", "call_id": call.ID, "tool": call.Name, "args": args}
	subagentCall(ev, call)
	e.Emit(ev)
}

func (e *Events) toolEnd(call *core.Call, res *core.Result) {
	ev := ResultJSON(res)
	ev["event"] = "tool_end"
	subagentCall(ev, call)
	e.Emit(ev)
}

// subagentCall names the subagent that made call, and its parent, in
// the call's events; a top-level agent's calls leave them out.
func subagentCall(ev map[string]any, call *core.Call) {
	if call.ParentAgent != "" {
		ev["agent"], ev["parent_agent"] = call.Agent, call.ParentAgent
	}
}

// Agent writes an agent event (for Config.Observer).
func (e *Events) Agent(ev agent.Event) {
	b, _ := json.Marshal(ev)
	var m map[string]any
	json.Unmarshal(b, &m)
	e.Emit(m)
}

// Error writes the error event of a run that ends with exit code code; a
// script error keeps its position and backtrace.
func (e *Events) Error(err error, code int) {
	ev := map[string]any{"event": "error", "message": err.Error(), "exit_code": code}
	var se *script.Error
	if errors.As(err, &se) {
		ev["message"] = se.Msg
		ev["position"] = se.Pos()
		if se.Backtrace != "" {
			ev["backtrace"] = se.Backtrace
		}
	}
	e.Emit(ev)
}

// Exit writes the exit event that ends a server's stream.
func (e *Events) Exit(code int) {
	e.Emit(map[string]any{"event": "exit", "exit_code": code})
}

// Result writes the result event that ends a run's stream.
func (e *Events) Result(outs []Outcome, code int) { e.Emit(ResultEvent(outs, code)) }

// ResultJSON is a tool's result as JSON (the tool_end event's fields).
func ResultJSON(r *core.Result) map[string]any {
	info := (&script.ResultInfo{R: r}).Fields()
	var e *core.Error
	if errors.As(r.Err, &e) && len(e.Violations) > 0 {
		vs := make([]any, len(e.Violations))
		for i, v := range e.Violations {
			vs[i] = map[string]any{"pointer": v.Pointer, "message": v.Message}
		}
		info["violations"] = vs
	}
	return info
}

// RulingJSON is a ruling (what the policies would decide of a call) as
// JSON, with its decisions in the shape of tool_end's and a script's
// r.decisions, so one reader reads both.
func RulingJSON(r *executor.Ruling) map[string]any {
	m := map[string]any{
		"tool":      r.Tool,
		"origin":    r.Origin.String(),
		"args":      argsValue(r.Args),
		"outcome":   r.Outcome.String(),
		"would_run": r.Outcome == core.VerdictAllow,
		"reason":    r.Reason,
		"hook":      r.Hook,
		"source":    r.Source,
		"decisions": script.DecisionsValue(r.Decisions),
		"workdir":   r.WorkDir,
		"effects":   script.EffectsValue(r.Effects),
	}
	if d, ok := sandboxDecision(r); ok {
		m["sandbox"] = map[string]any{"profile": string(d.Sandbox), "backend": r.SandboxBackend, "reason": d.Reason}
	}
	if r.Err != nil {
		m["error"] = r.Err.Error()
		m["error_kind"] = string(errorKind(r.Err))
	}
	return m
}

// sandboxDecision is the ruling's sandbox stage: where a sandboxed tool
// would run the call's commands, and why.
func sandboxDecision(r *executor.Ruling) (core.Decision, bool) {
	for _, d := range r.Decisions {
		if d.Stage == core.StageSandbox {
			return d, true
		}
	}
	return core.Decision{}, false
}

// argsValue is arguments as a JSON value, or as a string when they are
// not valid JSON.
func argsValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return raw
	}
	return string(raw)
}

// ResultEvent is the result event of a run that ends with exit code code:
// its asks summed, the last one's stop reason, text and session, and with
// a schema the last structured answer's data.
func ResultEvent(outs []Outcome, code int) map[string]any {
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

// errorKind is the Kind of the *core.Error in err's chain, or "".
func errorKind(err error) core.Kind {
	var e *core.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}
