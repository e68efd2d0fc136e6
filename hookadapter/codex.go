package hookadapter

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// codex is Codex's hook protocol (developers.openai.com/codex/hooks), on
// the same wire format as Claude Code's: hook_event_name, session_id, cwd,
// tool_name (Bash, apply_patch, mcp__SERVER__TOOL), tool_input and
// tool_response; hookSpecificOutput.permissionDecision on stdout; exit 2
// blocks with stderr as the reason. Codex enforces only deny: it lets an
// ask or an updatedInput through as if unsaid, so both are answered as a
// deny that says why. The cwd of a shell event is the command's own
// directory.
type codex struct{}

func init() { register(codex{}) }

func (codex) Name() string { return "codex" }

var codexEvents = map[string]Kind{"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindPrompt}

func (codex) Parse(raw []byte) (*Event, error) { return decodeEvent(raw, codexEvents) }

// codexTools is every tool of the pinned Codex (what it offers a model,
// plain and in code mode, and the names its hooks report: exec_command
// as Bash, a namespace's tools as in codexNamespaces). A shell command
// that is an apply_patch invocation is the patch: Codex applies it
// itself rather than running it. TestClientToolListsAreMapped holds it
// to the client's own list.
var codexTools = ToolMap{
	"Bash":         {Name: "bash", CwdArg: "workdir", Convert: codexPatchCommand},
	"exec_command": {Name: "bash", Fields: [][2]string{{"cmd", "command"}}, CwdArg: "workdir", Convert: codexPatchCommand},
	"shell":        {Name: "bash", CwdArg: "workdir", Convert: codexArgv},
	"local_shell":  {Name: "bash", CwdArg: "workdir", Convert: codexArgv},
	"apply_patch":  {Name: "apply_patch", Fields: [][2]string{{"command", "patch"}}, CwdArg: "workdir", Effects: applyPatch.Effects},
	"view_image":   {Name: "read_file"},
	// Input to a running session (python3 -i, a shell): code whose
	// interpreter only the session knows.
	"write_stdin": {Name: "write_stdin", Effects: []core.ArgEffect{{Arg: "chars", Kind: core.ArgCode, Language: "interactive"}}},
	// Code mode: JavaScript that calls the other tools, whose calls come
	// through the hooks on their own.
	"exec":       code("javascript", [2]string{"input", "code"}),
	"web_search": webSearch,

	"spawn_agent":            subagent,
	"send_input":             acting("send_input"),
	"resume_agent":           acting("resume_agent"),
	"close_agent":            acting("close_agent"),
	"followup_task":          acting("followup_task"),
	"interrupt_agent":        acting("interrupt_agent"),
	"send_message":           acting("send_message"),
	"request_permissions":    acting("request_permissions"),
	"request_plugin_install": acting("request_plugin_install"),

	"create_goal":                 readOnly("create_goal"),
	"get_goal":                    readOnly("get_goal"),
	"update_goal":                 readOnly("update_goal"),
	"update_plan":                 readOnly("update_plan"),
	"list_agents":                 readOnly("list_agents"),
	"wait":                        readOnly("wait"),
	"wait_agent":                  readOnly("wait_agent"),
	"sleep":                       readOnly("sleep"),
	"curr_time":                   readOnly("curr_time"),
	"request_user_input":          readOnly("request_user_input"),
	"request_user_input_async":    readOnly("request_user_input_async"),
	"send_message_to_user_async":  readOnly("send_message_to_user_async"),
	"list_mcp_resources":          readOnly("list_mcp_resources"),
	"list_mcp_resource_templates": readOnly("list_mcp_resource_templates"),
	"read_mcp_resource":           readOnly("read_mcp_resource"),
	"tool_search":                 readOnly("tool_search"),
	"wait_for_environment":        readOnly("wait_for_environment"),
}

// codexNamespaces are the namespaces the pinned Codex offers tools in,
// other than functions, its default. Its hooks report a namespace's tool
// as the namespace and the name run together (clock's sleep as
// clocksleep, collaboration's spawn_agent as collaborationspawn_agent;
// measured), which maps as the tool of that name does.
var codexNamespaces = map[string][]string{
	"clock":          {"curr_time", "sleep"},
	"collaboration":  {"followup_task", "interrupt_agent", "list_agents", "send_message", "spawn_agent", "wait_agent"},
	"multi_agent_v1": {"close_agent", "resume_agent", "send_input", "spawn_agent", "wait_agent"},
}

func init() {
	for ns, names := range codexNamespaces {
		for _, name := range names {
			codexTools[ns+name] = codexTools[name]
		}
	}
}

// patchCommand is a shell command Codex applies as a patch: apply_patch
// (or applypatch) with the patch as a here-document or an argument,
// optionally after cd DIR &&.
var patchCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:cd\s+(\S+)\s*&&\s*)?(?:apply_patch|applypatch)\b`)
})

// codexPatchCommand reads a shell command that is an apply_patch
// invocation as the patch, in the directory it cds to.
func codexPatchCommand(args map[string]json.RawMessage) (string, map[string]json.RawMessage) {
	var cmd string
	if json.Unmarshal(args["command"], &cmd) != nil {
		return "", nil
	}
	m := patchCommand().FindStringSubmatch(cmd)
	if m == nil {
		return "", nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range args {
		if k != "command" {
			out[k] = v
		}
	}
	// The whole command: the patch reader takes the patch out of its
	// here-document, as Codex does.
	out["patch"], _ = marshal(cmd)
	if dir := m[1]; dir != "" {
		var cwd string
		json.Unmarshal(args["workdir"], &cwd)
		if !strings.HasPrefix(dir, "/") && cwd != "" {
			dir = strings.TrimSuffix(cwd, "/") + "/" + dir
		}
		out["workdir"], _ = marshal(dir)
	}
	return "apply_patch", out
}

// codexArgv reads the argv of Codex's shell tools as one bash command
// line: the script of bash -c/-lc, or the words quoted.
func codexArgv(args map[string]json.RawMessage) (string, map[string]json.RawMessage) {
	var argv []string
	if json.Unmarshal(args["command"], &argv) != nil || len(argv) == 0 {
		return "", nil
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = ShellQuote(a)
	}
	cmd := strings.Join(quoted, " ")
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh" || strings.HasSuffix(argv[0], "/bash")) &&
		(argv[1] == "-c" || argv[1] == "-lc") {
		cmd = argv[2]
	}
	out := map[string]json.RawMessage{}
	for k, v := range args {
		out[k] = v
	}
	out["command"], _ = marshal(cmd)
	return "bash", out
}

func (codex) Tools() ToolMap { return codexTools }

// AbsolutePaths: Codex takes no rewrite back (see Answer).
func (codex) AbsolutePaths() bool { return false }

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
