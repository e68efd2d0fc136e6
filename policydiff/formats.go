package policydiff

import (
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/audit"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// lineDecoder adds the calls of one line of its format to c.
type lineDecoder func(c *Corpus, line []byte, at Pos) error

// detect tells a file's format from its first line: an audit record has
// seq, kind and call; a session record its type in t; a recording's line
// a provider and a request.
func detect(line []byte) (lineDecoder, Format) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(line, &keys) != nil {
		return nil, ""
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := keys[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("seq", "kind", "call"):
		return auditLine, FormatAudit
	case has("t"):
		return (&sessionReader{}).line, FormatSession
	case has("provider", "request"):
		return recordingLine, FormatRecording
	}
	return nil, ""
}

// auditLine reads one audit.Record.
func auditLine(c *Corpus, line []byte, at Pos) error {
	var r audit.Record
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	switch r.Kind {
	case audit.KindCall, audit.KindDecide:
	case audit.KindObserve:
		c.Skipped[skipObserve]++
		return nil
	default:
		return fmt.Errorf("a record of kind %q, want %s, %s or %s", r.Kind, audit.KindCall, audit.KindDecide, audit.KindObserve)
	}
	if r.Call.Tool == "" {
		return fmt.Errorf("a record without call.tool")
	}
	origin := core.OriginUnset
	if r.Call.Origin != "" {
		o, err := core.ParseOrigin(r.Call.Origin)
		if err != nil {
			return fmt.Errorf("call.origin %q, want person, model, mcp or hook", r.Call.Origin)
		}
		origin = o
	}
	args := r.Call.RawArgs
	if len(args) == 0 {
		args = r.Call.Args
	}
	c.Calls = append(c.Calls, Call{At: at, Format: FormatAudit, ID: r.Call.ID, Tool: r.Call.Tool,
		Args: args, Origin: origin, WorkDir: r.Call.WorkDir})
	return nil
}

// sessionReader reads a session file, whose header gives the workdir of
// the calls after it.
type sessionReader struct{ workdir string }

func (s *sessionReader) line(c *Corpus, line []byte, at Pos) error {
	wd, calls, err := session.LineCalls(line)
	if err != nil {
		return err
	}
	if wd != "" {
		s.workdir = wd
	}
	for _, tc := range calls {
		c.Calls = append(c.Calls, modelCall(tc, at, FormatSession, s.workdir))
	}
	return nil
}

// entry is what a recording's line gives: the response's tool calls. The
// request (the whole conversation so far) is not decoded.
type entry struct {
	Provider *string `json:"provider"`
	Request  ignored `json:"request"`
	Response *struct {
		ToolCalls []provider.ToolCall `json:"tool_calls"`
	} `json:"response"`
}

// ignored is a JSON value that is checked and not kept.
type ignored struct{}

func (*ignored) UnmarshalJSON([]byte) error { return nil }

func recordingLine(c *Corpus, line []byte, at Pos) error {
	var e entry
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	if e.Provider == nil {
		return fmt.Errorf("an entry without provider")
	}
	if e.Response == nil {
		c.Skipped[skipFailed]++
		return nil
	}
	for _, tc := range e.Response.ToolCalls {
		c.Calls = append(c.Calls, modelCall(tc, at, FormatRecording, ""))
	}
	return nil
}

// modelCall is a call the model asked for, as the agent makes it: with
// arguments that are not JSON as they were written (the pipeline answers
// them with invalid_arguments).
func modelCall(tc provider.ToolCall, at Pos, f Format, workdir string) Call {
	args := tc.Args
	if tc.InvalidArgs != "" {
		args = json.RawMessage(tc.InvalidArgs)
	}
	return Call{At: at, Format: f, ID: tc.ID, Tool: tc.Name, Args: args, Origin: core.OriginModel, WorkDir: workdir}
}
