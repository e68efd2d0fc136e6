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
// to the model. Its file tools take absolute paths.
type claudeCode struct{}

func init() { register(claudeCode{}) }

func (claudeCode) Name() string { return "claude-code" }

var claudeEvents = map[string]Kind{"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindPrompt}

func (claudeCode) Parse(raw []byte) (*Event, error) { return decodeEvent(raw, claudeEvents) }

// claudeTools is every tool of the pinned Claude Code (the list the
// binary carries, its ToolSearch-deferred tools, and the ones other
// builds enable: REPL, Eval, PowerShell, MultiEdit, LS, ...), with the
// input types of sdk-tools.d.ts. TestClientToolListsAreMapped holds it to
// the client's own list.
var claudeTools = ToolMap{
	"Bash":         {Name: "bash", Fields: [][2]string{{"timeout", "timeout_ms"}}, CwdArg: "workdir"},
	"Monitor":      {Name: "bash", Fields: [][2]string{{"timeout", "timeout_ms"}}, CwdArg: "workdir"},
	"PowerShell":   code("powershell", [2]string{"command", "code"}),
	"REPL":         code("javascript"),
	"Eval":         code("javascript"),
	"Code":         code("javascript"),
	"Read":         {Name: "read_file", Fields: [][2]string{{"file_path", "path"}}},
	"Write":        {Name: "write_file", Fields: [][2]string{{"file_path", "path"}}},
	"Edit":         {Name: "edit_file", Fields: [][2]string{{"file_path", "path"}}},
	"MultiEdit":    {Name: "edit_file", Fields: [][2]string{{"file_path", "path"}}},
	"NotebookEdit": {Name: "edit_file", Fields: [][2]string{{"notebook_path", "path"}}},
	"Glob":         {Name: "glob"},
	"Grep": {Name: "grep", Fields: [][2]string{
		{"-i", "ignore_case"}, {"-n", "line_numbers"}, {"-A", "after_context"}, {"-B", "before_context"}, {"-C", "context"},
	}},
	"LS":        {Name: "list_dir"},
	"WebFetch":  {Name: "fetch"},
	"WebSearch": webSearch,
	"Agent":     subagent,
	"Task":      subagent,
	"Workflow": {Name: "Workflow", Effects: []core.ArgEffect{
		{Arg: "script", Kind: core.ArgCode, Language: "javascript"}, {Arg: "scriptPath", Kind: core.ArgRead}}},
	"Artifact": {Name: "Artifact", Effects: []core.ArgEffect{
		{Arg: "file_path", Kind: core.ArgRead}, {Arg: "file_paths", Kind: core.ArgRead}, {Arg: "out_dir", Kind: core.ArgWrite}}},
	"SendUserFile":  {Name: "SendUserFile", Effects: []core.ArgEffect{{Arg: "file_path", Kind: core.ArgRead}}},
	"EnterWorktree": {Name: "EnterWorktree", Effects: []core.ArgEffect{{Arg: "path", Kind: core.ArgWrite}}},
	"ExitWorktree":  acting("ExitWorktree"),

	"BashOutput":               readOnly("BashOutput"),
	"KillShell":                acting("KillShell"),
	"TaskStop":                 acting("TaskStop"),
	"ClaudeDesign":             acting("ClaudeDesign"),
	"CronCreate":               acting("CronCreate"),
	"CronDelete":               acting("CronDelete"),
	"CronList":                 readOnly("CronList"),
	"EndConversation":          readOnly("EndConversation"),
	"EnterPlanMode":            readOnly("EnterPlanMode"),
	"ExitPlanMode":             readOnly("ExitPlanMode"),
	"AskUserQuestion":          readOnly("AskUserQuestion"),
	"ListAgents":               readOnly("ListAgents"),
	"ListMcpResourcesTool":     readOnly("ListMcpResourcesTool"),
	"ReadMcpResourceTool":      readOnly("ReadMcpResourceTool"),
	"ReadMcpResourceDirTool":   readOnly("ReadMcpResourceDirTool"),
	"LSP":                      readOnly("LSP"),
	"OfferChromeSetup":         readOnly("OfferChromeSetup"),
	"Projects":                 readOnly("Projects"),
	"propose_skills":           readOnly("propose_skills"),
	"PushNotification":         acting("PushNotification"),
	"ReadNotifications":        readOnly("ReadNotifications"),
	"RemoteTrigger":            acting("RemoteTrigger"),
	"ReportFindings":           readOnly("ReportFindings"),
	"ScheduleWakeup":           acting("ScheduleWakeup"),
	"SendFeedback":             acting("SendFeedback"),
	"SendMessage":              acting("SendMessage"),
	"SendUserMessage":          readOnly("SendUserMessage"),
	"SetGoal":                  readOnly("SetGoal"),
	"ShareOnboardingGuide":     readOnly("ShareOnboardingGuide"),
	"ShowOnboardingRolePicker": readOnly("ShowOnboardingRolePicker"),
	"Skill":                    readOnly("Skill"),
	"SlashCommand":             readOnly("SlashCommand"),
	"SubagentHandback":         readOnly("SubagentHandback"),
	"TaskCreate":               readOnly("TaskCreate"),
	"TaskGet":                  readOnly("TaskGet"),
	"TaskList":                 readOnly("TaskList"),
	"TaskUpdate":               readOnly("TaskUpdate"),
	"TodoWrite":                readOnly("TodoWrite"),
	"ToolSearch":               readOnly("ToolSearch"),
	// Offered so that deferred loading stays on; a call of it is refused
	// ("No such tool available") before any hook.
	"DeferredToolPlaceholder": readOnly("DeferredToolPlaceholder"),
	"WaitForMcpServers":       readOnly("WaitForMcpServers"),
}

func (claudeCode) Tools() ToolMap { return claudeTools }

// AbsolutePaths: Claude Code's file tools take absolute paths, so a
// rewritten path goes back absolute.
func (claudeCode) AbsolutePaths() bool { return true }

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
