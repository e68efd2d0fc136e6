package hookadapter

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// Kind is what an event asks about.
type Kind int

const (
	KindOther    Kind = iota // an event agentsh does not decide: answered with nothing
	KindPreTool              // a tool call is about to run
	KindPostTool             // a tool call ran
	KindPrompt               // the user submitted a prompt
)

// Event is one hook event, read by a Protocol.
type Event struct {
	Kind Kind
	// Name is the agent's name of the event (PreToolUse, BeforeTool, ...).
	Name      string
	SessionID string
	Cwd       string
	// Tool and Input are the agent's tool name and input object.
	Tool  string
	Input json.RawMessage
	// Response is the tool's response (post-tool events).
	Response json.RawMessage
	// Prompt is the user's prompt (prompt events).
	Prompt string
}

// Answer is agentsh's reply to an event, which a Protocol writes out.
type Answer struct {
	// Verdict is none (no opinion), allow, ask or deny.
	Verdict core.Verdict
	Reason  string
	// Input is the rewritten tool input in the agent's field names; nil
	// when no hook rewrote it.
	Input json.RawMessage
	// Ruling (pre-tool events) and Result (post-tool events: the agent's
	// result as the after hooks left it) are what the answer was decided
	// on, for the audit trail; protocols do not write them.
	Ruling *executor.Ruling
	Result *core.Result
	// Args are the arguments of the call as mapped onto agentsh's tool
	// (ToolMap), before the pipeline made them canonical: what was
	// decided (pre-tool) or observed (post-tool), for the audit trail.
	Args json.RawMessage
}

// Protocol is one agent's hook protocol.
type Protocol interface {
	// Name is the agent's name on the command line: claude-code, gemini
	// or codex.
	Name() string
	// Parse reads one event; an error is malformed input.
	Parse(raw []byte) (*Event, error)
	// Tools maps the agent's tool names and fields onto agentsh's.
	Tools() ToolMap
	// Answer writes the answer to ev and returns the exit code.
	Answer(ev *Event, a Answer, stdout, stderr io.Writer) int
}

// ExitBlock is the exit code every supported agent treats as blocking:
// the action does not happen and stderr is the reason.
const ExitBlock = 2

// block writes the blocking outcome: the reason on stderr, exit 2.
func block(stderr io.Writer, reason string) int {
	fmt.Fprintf(stderr, "agentsh: %s\n", strings.TrimSpace(reason))
	return ExitBlock
}

var protocols = map[string]Protocol{}

func register(p Protocol) { protocols[p.Name()] = p }

// Lookup returns the protocol of the named agent.
func Lookup(name string) (Protocol, error) {
	if p, ok := protocols[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown agent %q: want %s", name, strings.Join(Agents(), ", "))
}

// Agents lists the supported agents' names, sorted.
func Agents() []string {
	names := make([]string, 0, len(protocols))
	for n := range protocols {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// rawObject decodes a JSON object, keeping its values undecoded.
func rawObject(raw json.RawMessage, what string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s is not a JSON object: %s", what, clip(raw))
	}
	return m, nil
}

// stringField reads an optional string field; required makes absence an
// error.
func stringField(m map[string]json.RawMessage, key string, required bool) (string, error) {
	v, ok := m[key]
	if !ok || string(v) == "null" {
		if required {
			return "", fmt.Errorf("%s is missing", key)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s is not a string: %s", key, clip(v))
	}
	if required && s == "" {
		return "", fmt.Errorf("%s is empty", key)
	}
	return s, nil
}

// decodeEvent reads the fields the agents share: one JSON object (nothing
// after it), hook_event_name, session_id, cwd, and by kind tool_name,
// tool_input, tool_response and prompt.
func decodeEvent(raw []byte, kinds map[string]Kind) (*Event, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("the hook input is not JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("the hook input holds more than one JSON value")
	}
	m, err := rawObject(obj, "the hook input")
	if err != nil {
		return nil, err
	}
	ev := &Event{}
	if ev.Name, err = stringField(m, "hook_event_name", true); err != nil {
		return nil, err
	}
	if ev.SessionID, err = stringField(m, "session_id", false); err != nil {
		return nil, err
	}
	if ev.Cwd, err = stringField(m, "cwd", false); err != nil {
		return nil, err
	}
	ev.Kind = kinds[ev.Name]
	switch ev.Kind {
	case KindPreTool, KindPostTool:
		if ev.Tool, err = stringField(m, "tool_name", true); err != nil {
			return nil, err
		}
		in, ok := m["tool_input"]
		if !ok {
			return nil, fmt.Errorf("tool_input is missing")
		}
		if _, err := rawObject(in, "tool_input"); err != nil {
			return nil, err
		}
		ev.Input = in
		if ev.Kind == KindPostTool {
			ev.Response = m["tool_response"]
		}
	case KindPrompt:
		if ev.Prompt, err = stringField(m, "prompt", false); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// clip shortens raw input quoted in an error.
func clip(raw []byte) string {
	const n = 80
	if len(raw) > n {
		return string(raw[:n]) + "…"
	}
	return string(raw)
}
