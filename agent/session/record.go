package session

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// Record types, the "t" of each line.
const (
	recSession = "session"
	recMsg     = "msg"
	recReplace = "replace"
	recTurn    = "turn"
	recRun     = "run"
	recResume  = "resume"
)

// formatVersion is the "v" of the header.
const formatVersion = 1

// record is one line of a session file. Which fields are set depends on T.
type record struct {
	T string `json:"t"`

	// session: the header.
	V        int    `json:"v,omitempty"`
	ID       string `json:"id,omitempty"`
	Workdir  string `json:"workdir,omitempty"`
	Provider string `json:"provider,omitempty"`
	Created  string `json:"created,omitempty"` // RFC 3339, UTC
	// session, resume: the process that writes from here on.
	PID int `json:"pid,omitempty"`

	// msg: the message (see wireMsg), with the decision records of a
	// tool result.
	Msg          *provider.Message `json:"msg,omitempty"`
	Args         []*string         `json:"args,omitempty"`
	ContentBytes []byte            `json:"content_bytes,omitempty"`
	Decisions    []core.Decision   `json:"decisions,omitempty"`

	// replace: why, and the whole new conversation.
	Why  string    `json:"why,omitempty"`
	Msgs []wireMsg `json:"msgs,omitempty"`

	// turn: the session's turn count after it, and its usage.
	Turn  int             `json:"turn,omitempty"`
	Usage *provider.Usage `json:"usage,omitempty"`

	// resume: the conversation's size as loaded.
	Messages int `json:"messages,omitempty"`
	Turns    int `json:"turns,omitempty"`
}

// loadRecord is what the loader decodes of a line: the decision records
// are kept undecoded, since replaying the conversation does not need them.
type loadRecord struct {
	record
	Decisions json.RawMessage `json:"decisions,omitempty"`
}

// wireMsg is a message as saved. encoding/json would compact tool-call
// arguments (and escape <, > and &) and replace invalid UTF-8 in strings,
// so the arguments are saved verbatim as strings beside the message, and
// content that is not UTF-8 as bytes.
type wireMsg struct {
	Msg provider.Message `json:"msg"`
	// Args are the tool calls' arguments verbatim, one per call; null
	// for a call without arguments.
	Args []*string `json:"args,omitempty"`
	// ContentBytes holds Content when it is not valid UTF-8.
	ContentBytes []byte `json:"content_bytes,omitempty"`
}

func toWire(m provider.Message) wireMsg {
	w := wireMsg{Msg: m}
	if len(m.ToolCalls) > 0 {
		w.Msg.ToolCalls = make([]provider.ToolCall, len(m.ToolCalls))
		w.Args = make([]*string, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			if tc.Args != nil {
				s := string(tc.Args)
				w.Args[i] = &s
			}
			tc.Args = nil
			w.Msg.ToolCalls[i] = tc
		}
	}
	if !utf8.ValidString(m.Content) {
		w.ContentBytes = []byte(m.Content)
		w.Msg.Content = ""
	}
	return w
}

// message restores the message w saved.
func (w *wireMsg) message() (provider.Message, error) {
	m := w.Msg
	switch m.Role {
	case provider.RoleUser, provider.RoleAssistant, provider.RoleTool, provider.RoleSystem:
	default:
		return m, fmt.Errorf("a message with role %q", m.Role)
	}
	if len(w.Args) != len(m.ToolCalls) {
		return m, fmt.Errorf("%d tool calls with %d arguments", len(m.ToolCalls), len(w.Args))
	}
	for i := range m.ToolCalls {
		if a := w.Args[i]; a != nil {
			// Saved arguments were JSON (or empty); others would fail
			// every later request of the conversation.
			if *a != "" && !json.Valid([]byte(*a)) {
				return m, fmt.Errorf("tool call %d's arguments %.40q are not JSON", i, *a)
			}
			m.ToolCalls[i].Args = json.RawMessage(*a)
		} else {
			m.ToolCalls[i].Args = nil
		}
	}
	if w.ContentBytes != nil {
		m.Content = string(w.ContentBytes)
	}
	return m, nil
}

// msgRecord is the record of a message joining the conversation.
func msgRecord(m provider.Message, decisions []core.Decision) *record {
	w := toWire(m)
	return &record{T: recMsg, Msg: &w.Msg, Args: w.Args, ContentBytes: w.ContentBytes, Decisions: decisions}
}

// wire is the message part of a msg record.
func (r *record) wire() (wireMsg, error) {
	if r.Msg == nil {
		return wireMsg{}, fmt.Errorf("a msg record without msg")
	}
	return wireMsg{Msg: *r.Msg, Args: r.Args, ContentBytes: r.ContentBytes}, nil
}

func encode(r *record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
