package agentsh

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/hookadapter"
	"github.com/agentsh/agentsh/internal/filelock"
)

// HookLog is the events file of hook processes. One process answers one
// event, and an agent runs many at once; so a process gathers its events
// (what the policies print, then the hook event) and Flush appends them
// to the file in one write under a lock: the lines of concurrent
// processes never interleave, and one process's lines stay together.
// Write is safe for concurrent use.
type HookLog struct {
	f    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	done bool
}

// NewHookLog gathers events for f, opened to append.
func NewHookLog(f *os.File) *HookLog { return &HookLog{f: f} }

func (l *HookLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.buf.Write(b)
	}
	return len(b), nil
}

// Flush appends what was gathered; what a hook still prints after it (a
// policy past the deadline) is dropped.
func (l *HookLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	if l.buf.Len() == 0 {
		return nil
	}
	return filelock.Append(l.f, l.buf.Bytes())
}

// HookEvent is the hook event of one hook process: the agent's event,
// what agentsh answered, and the ruling (pre-tool) or the result the
// after hooks saw (post-tool) in the shapes of RulingJSON and ResultJSON.
func HookEvent(rec hookadapter.Record) map[string]any {
	m := map[string]any{
		"event":     "hook",
		"agent":     rec.Agent,
		"exit_code": rec.Code,
		"verdict":   rec.Answer.Verdict.String(),
		"reason":    rec.Answer.Reason,
	}
	if ev := rec.Event; ev != nil {
		m["hook_event_name"] = ev.Name
		if ev.SessionID != "" {
			m["session_id"] = ev.SessionID
		}
		if ev.Cwd != "" {
			m["cwd"] = ev.Cwd
		}
		if ev.Tool != "" {
			m["tool_name"] = ev.Tool
			m["tool_input"] = argsValue(ev.Input)
		}
	}
	if in := rec.Answer.Input; in != nil && json.Valid(in) {
		m["updated_input"] = json.RawMessage(in)
	}
	if s := strings.TrimSpace(rec.Stderr); s != "" {
		m["stderr"] = s
	}
	if r := rec.Answer.Ruling; r != nil {
		m["ruling"] = RulingJSON(r)
	}
	if res := rec.Answer.Result; res != nil {
		m["result"] = ResultJSON(res)
	}
	return m
}
