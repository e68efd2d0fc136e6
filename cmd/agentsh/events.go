package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
)

// events writes --json output: one JSON object per line, with an "event"
// field. Lines from concurrent calls never interleave. No timestamps or
// durations, so runs can be compared byte for byte. docs/events.md
// documents every event; TestEventsDoc keeps it true.
type events struct {
	mu sync.Mutex
	w  io.Writer
}

func newEvents(w io.Writer) *events { return &events{w: w} }

func (e *events) emit(v map[string]any) {
	b, err := core.MarshalJSON(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"event": "error", "message": "cannot encode event: " + err.Error()})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(append(b, '\n'))
}

// printer is the script output stream as print events.
func (e *events) printer() io.Writer { return printWriter{e} }

type printWriter struct{ e *events }

func (p printWriter) Write(b []byte) (int, error) {
	text := string(b)
	if n := len(text); n > 0 && text[n-1] == '\n' {
		text = text[:n-1]
	}
	p.e.emit(map[string]any{"event": "print", "text": text})
	return len(b), nil
}

func (e *events) toolStart(call *core.Call) {
	var args any = string(call.Args)
	if json.Valid(call.Args) {
		args = json.RawMessage(call.Args)
	}
	ev := map[string]any{"event": "tool_start", "call_id": call.ID, "tool": call.Name, "args": args}
	subagentCall(ev, call)
	e.emit(ev)
}

// subagentCall names the subagent that made call, and its parent, in
// the call's events; a top-level agent's calls leave them out.
func subagentCall(ev map[string]any, call *core.Call) {
	if call.ParentAgent != "" {
		ev["agent"], ev["parent_agent"] = call.Agent, call.ParentAgent
	}
}

func (e *events) toolEnd(call *core.Call, res *core.Result) {
	ev := resultJSON(res)
	ev["event"] = "tool_end"
	subagentCall(ev, call)
	e.emit(ev)
}

func (e *events) error(err error, code int) {
	err = withFlagHint(err)
	ev := map[string]any{"event": "error", "message": err.Error(), "exit_code": code}
	var se *script.Error
	if errors.As(err, &se) {
		ev["message"] = se.Msg
		ev["position"] = se.Pos()
		if se.Backtrace != "" {
			ev["backtrace"] = se.Backtrace
		}
	}
	e.emit(ev)
}

func (e *events) exit(code int) {
	e.emit(map[string]any{"event": "exit", "exit_code": code})
}

// openEvents opens --events FILE to append to it (created with mode
// 0600), for mcp serve and hook; app.close closes it.
func (a *app) openEvents() (*os.File, error) {
	f, err := os.OpenFile(a.opts.events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--events: %w; give a file agentsh can append to", err)
	}
	a.eventsFile = f
	return f, nil
}
