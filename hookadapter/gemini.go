package hookadapter

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// gemini is Gemini CLI's hook protocol (docs/hooks/reference.md in
// @google/gemini-cli): the event on stdin with hook_event_name,
// session_id, cwd, tool_name, tool_input and tool_response; an answer on
// stdout as {decision: allow|deny, reason, hookSpecificOutput.tool_input},
// where tool_input merges with and overrides the model's arguments; exit
// 2 blocks with stderr as the reason. It has no ask: an ask is a deny that
// says approval is needed, never a silent allow.
type gemini struct{}

func init() { register(gemini{}) }

func (gemini) Name() string { return "gemini" }

var geminiEvents = map[string]Kind{"BeforeTool": KindPreTool, "AfterTool": KindPostTool, "BeforeAgent": KindPrompt}

func (gemini) Parse(raw []byte) (*Event, error) { return decodeEvent(raw, geminiEvents) }

// geminiTools is every tool of the pinned Gemini CLI (the *_TOOL_NAME
// constants of its bundle and what it offers its model), with the
// parameters of docs/reference/tools.md. Paths are relative to the
// project or absolute. TestClientToolListsAreMapped holds it to the
// client's own list.
var geminiTools = ToolMap{
	"run_shell_command":   {Name: "bash", Fields: [][2]string{{"dir_path", "workdir"}}, CwdArg: "workdir"},
	"read_file":           {Name: "read_file", Fields: [][2]string{{"file_path", "path"}}},
	"write_file":          {Name: "write_file", Fields: [][2]string{{"file_path", "path"}}},
	"replace":             {Name: "edit_file", Fields: [][2]string{{"file_path", "path"}, {"allow_multiple", "replace_all"}}},
	"glob":                {Name: "glob", Fields: [][2]string{{"dir_path", "path"}}},
	"grep_search":         {Name: "grep", Fields: geminiGrep},
	"search_file_content": {Name: "grep", Fields: geminiGrep},
	"list_directory":      {Name: "list_dir", Fields: [][2]string{{"dir_path", "path"}}},
	"read_many_files": {Name: "read_many_files", ReadOnly: true, Effects: []core.ArgEffect{
		{Arg: "include", Kind: core.ArgRead}, {Arg: "paths", Kind: core.ArgRead}}},
	// web_fetch's prompt holds the URLs it fetches.
	"web_fetch":         {Name: "web_fetch", Effects: []core.ArgEffect{{Arg: "prompt", Kind: core.ArgURL}}},
	"google_web_search": webSearch,
	"save_memory":       acting("save_memory"),
	"invoke_agent":      subagent,

	"activate_skill":            readOnly("activate_skill"),
	"ask_user":                  readOnly("ask_user"),
	"complete_task":             readOnly("complete_task"),
	"enter_plan_mode":           readOnly("enter_plan_mode"),
	"exit_plan_mode":            readOnly("exit_plan_mode"),
	"get_internal_docs":         readOnly("get_internal_docs"),
	"list_background_processes": readOnly("list_background_processes"),
	"list_mcp_resources":        readOnly("list_mcp_resources"),
	"read_background_output":    readOnly("read_background_output"),
	"read_mcp_resource":         readOnly("read_mcp_resource"),
	"take_snapshot":             readOnly("take_snapshot"),
	"tracker_add_dependency":    readOnly("tracker_add_dependency"),
	"tracker_create_task":       readOnly("tracker_create_task"),
	"tracker_get_task":          readOnly("tracker_get_task"),
	"tracker_list_tasks":        readOnly("tracker_list_tasks"),
	"tracker_update_task":       readOnly("tracker_update_task"),
	"tracker_visualize":         readOnly("tracker_visualize"),
	"update_topic":              readOnly("update_topic"),
	"write_todos":               readOnly("write_todos"),
}

var geminiGrep = [][2]string{{"dir_path", "path"}, {"include_pattern", "glob"}, {"after", "after_context"}, {"before", "before_context"}}

func (gemini) Tools() ToolMap { return geminiTools }

// isMCP: Gemini CLI names an MCP server's tools mcp_SERVER_TOOL, and
// takes every name that starts mcp_ for one (its isMcpToolName).
func (gemini) isMCP(tool string) bool { return strings.HasPrefix(tool, "mcp_") }

var _ mcpNamer = gemini{}

// AbsolutePaths: Gemini CLI takes paths relative to the project.
func (gemini) AbsolutePaths() bool { return false }

func (gemini) Answer(ev *Event, a Answer, stdout, stderr io.Writer) int {
	if ev.Kind != KindPreTool {
		if a.Verdict == core.VerdictDeny {
			return block(stderr, a.Reason)
		}
		return 0
	}
	out := map[string]any{}
	switch a.Verdict {
	case core.VerdictDeny:
		out["decision"], out["reason"] = "deny", a.Reason
	case core.VerdictAsk:
		out["decision"], out["reason"] = "deny", "needs approval, which a Gemini CLI hook cannot ask for: "+a.Reason
	case core.VerdictAllow:
		out["decision"] = "allow"
		if a.Reason != "" {
			out["reason"] = a.Reason
		}
	}
	if a.Input != nil && a.Verdict != core.VerdictDeny && a.Verdict != core.VerdictAsk {
		if removed := removedFields(ev.Input, a.Input); removed != "" {
			// tool_input merges: a field a policy removed would stay.
			out = map[string]any{"decision": "deny", "reason": "a policy removed the field " + removed + ", which a Gemini CLI hook cannot remove"}
		} else {
			out["hookSpecificOutput"] = map[string]any{"tool_input": json.RawMessage(a.Input)}
		}
	}
	if len(out) == 0 {
		return 0
	}
	b, _ := json.Marshal(out)
	stdout.Write(append(b, '\n'))
	return 0
}

// removedFields names a field of before that after lacks, or "".
func removedFields(before, after json.RawMessage) string {
	var b, a map[string]json.RawMessage
	if json.Unmarshal(before, &b) != nil || json.Unmarshal(after, &a) != nil {
		return ""
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k
		}
	}
	return ""
}
