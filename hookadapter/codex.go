package hookadapter

import (
	"io"

	"github.com/agentsh/agentsh/core"
)

// codex is Codex's hook protocol (developers.openai.com/codex/hooks), on
// the same wire format as Claude Code's: hook_event_name, session_id, cwd,
// tool_name (Bash, apply_patch, mcp__SERVER__TOOL), tool_input and
// tool_response; hookSpecificOutput.permissionDecision on stdout; exit 2
// blocks with stderr as the reason. Codex enforces only deny: it lets an
// ask or an updatedInput through as if unsaid, so both are answered as a
// deny that says why.
type codex struct{}

func init() { register(codex{}) }

func (codex) Name() string { return "codex" }

var codexEvents = map[string]Kind{"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindPrompt}

func (codex) Parse(raw []byte) (*Event, error) { return decodeEvent(raw, codexEvents) }

// codexTools: Bash's input is {command}; apply_patch (the patch text in
// command) and MCP tools keep their names.
var codexTools = ToolMap{"Bash": {Name: "bash"}}

func (codex) Tools() ToolMap { return codexTools }

func (codex) Answer(ev *Event, a Answer, stdout, stderr io.Writer) int {
	if ev.Kind != KindPreTool {
		if a.Verdict == core.VerdictDeny {
			return block(stderr, a.Reason)
		}
		return 0
	}
	switch {
	case a.Verdict == core.VerdictAsk:
		a = Answer{Verdict: core.VerdictDeny, Reason: "needs approval, which a Codex hook cannot ask for: " + a.Reason}
	case a.Input != nil && a.Verdict != core.VerdictDeny:
		a = Answer{Verdict: core.VerdictDeny, Reason: "a policy rewrote the arguments to " + string(a.Input) + ", which a Codex hook cannot apply"}
	}
	return writeDecision(ev, a, stdout, false)
}
