package hookadapter

import (
	"encoding/json"
	"io"

	"github.com/agentsh/agentsh/core"
)

// claudeCode is Claude Code's hook protocol (code.claude.com/docs/en/hooks):
// the event on stdin with hook_event_name, session_id, transcript_path,
// cwd, tool_name, tool_input and tool_response; a pre-tool answer on stdout
// as hookSpecificOutput {hookEventName, permissionDecision allow|deny|ask,
// permissionDecisionReason, updatedInput}; exit 2 blocks with stderr shown
// to the model.
type claudeCode struct{}

func init() { register(claudeCode{}) }

func (claudeCode) Name() string { return "claude-code" }

var claudeEvents = map[string]Kind{"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindPrompt}

func (claudeCode) Parse(raw []byte) (*Event, error) { return decodeEvent(raw, claudeEvents) }

// claudeTools follow the tool input types Claude Code ships (sdk-tools.d.ts:
// BashInput, FileReadInput, FileWriteInput, FileEditInput, GlobInput,
// GrepInput, WebFetchInput). mcp__ tools keep their names.
var claudeTools = ToolMap{
	"Bash":  {Name: "bash", Fields: [][2]string{{"timeout", "timeout_ms"}}},
	"Read":  {Name: "read_file", Fields: [][2]string{{"file_path", "path"}}},
	"Write": {Name: "write_file", Fields: [][2]string{{"file_path", "path"}}},
	"Edit":  {Name: "edit_file", Fields: [][2]string{{"file_path", "path"}}},
	"Glob":  {Name: "glob"},
	"Grep": {Name: "grep", Fields: [][2]string{
		{"-i", "ignore_case"}, {"-n", "line_numbers"}, {"-A", "after_context"}, {"-B", "before_context"},
	}},
	"WebFetch": {Name: "fetch"},
}

func (claudeCode) Tools() ToolMap { return claudeTools }

func (claudeCode) Answer(ev *Event, a Answer, stdout, stderr io.Writer) int {
	if ev.Kind != KindPreTool {
		if a.Verdict == core.VerdictDeny {
			return block(stderr, a.Reason)
		}
		return 0
	}
	return writeDecision(ev, a, stdout, true)
}

// writeDecision writes the hookSpecificOutput answer Claude Code and Codex
// share. A rewrite without a verdict asks, so that the person sees the
// rewritten input (updatedInput goes with allow or ask).
func writeDecision(ev *Event, a Answer, stdout io.Writer, rewrites bool) int {
	v := a.Verdict
	if v == core.VerdictNone && a.Input == nil {
		return 0
	}
	if v == core.VerdictNone {
		v = core.VerdictAsk
	}
	out := map[string]any{
		"hookEventName":      ev.Name,
		"permissionDecision": v.String(),
	}
	if a.Reason != "" {
		out["permissionDecisionReason"] = a.Reason
	}
	if a.Input != nil && rewrites && v != core.VerdictDeny {
		out["updatedInput"] = json.RawMessage(a.Input)
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": out})
	stdout.Write(append(b, '\n'))
	return 0
}
