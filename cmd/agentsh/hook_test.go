package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runHook runs agentsh hook with stdin in a temp state dir and returns
// the exit code, stdout and stderr. The project is a temp directory that
// events name as /w (their cwd, absolute paths), the hook's --workdir as
// the clients run hooks in the project.
func runHook(t *testing.T, state, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", state)
	w := t.TempDir()
	stdin = strings.ReplaceAll(stdin, `"/w`, `"`+w)
	var out, errb bytes.Buffer
	code := cli(append([]string{"hook", "--workdir", w}, args...), stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, strings.ReplaceAll(out.String(), w, "/w"), strings.ReplaceAll(errb.String(), w, "/w")
}

func writePolicy(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookPolicy decides by the agentsh names and fields the adapters map to.
const hookPolicy = `
def decide(call):
    cmd = call.args.get("command", "")
    if call.name == "bash" and "denied.marker" in cmd:
        return deny("no denied markers")
    if call.name == "bash" and "ask.marker" in cmd:
        return ask("markers need a person")
    if call.name == "bash" and "allowed.marker" in cmd:
        return allow("markers are fine")
    if call.name == "bash" and "rewrite.marker" in cmd:
        args = dict(call.args)
        args["command"] = "touch rewritten.marker"
        args["timeout_ms"] = 5000
        return rewrite(args)
    if call.name == "read_file" and call.args.get("path", "").endswith(".env"):
        return deny("no secrets: " + call.args["path"])
    if call.name == "panic_tool":
        fail("boom")

before(decide)
`

func TestHookClaudeCodePreToolUse(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.star", hookPolicy)
	ev := func(tool, input string) string {
		return `{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `}`
	}
	cases := []struct {
		name, in       string
		code           int
		stdout, stderr string // JSON of hookSpecificOutput, or "" for none; stderr substring
	}{
		{"deny", ev("Bash", `{"command":"touch denied.marker","description":"d"}`), 0,
			`{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no denied markers (agentsh policy: decide at ` + policy + `:2)"}`, ""},
		{"ask", ev("Bash", `{"command":"touch ask.marker"}`), 0,
			`{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"markers need a person (agentsh policy: decide at ` + policy + `:2)"}`, ""},
		{"allow", ev("Bash", `{"command":"touch allowed.marker"}`), 0,
			`{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"markers are fine (agentsh policy: decide at ` + policy + `:2)"}`, ""},
		// No policy opinion: the model default (bash asks) is not Claude
		// Code's business; no output, exit 0.
		{"no opinion", ev("Bash", `{"command":"ls"}`), 0, "", ""},
		{"unknown tool, no opinion", ev("TodoWrite", `{"todos":[]}`), 0, "", ""},
		// Read{file_path} is read_file{path}, the path relative to the event's cwd.
		{"read mapped", ev("Read", `{"file_path":"/w/.env","offset":1}`), 0,
			`{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no secrets: .env (agentsh policy: decide at ` + policy + `:2)"}`, ""},
		// A rewrite comes back in Claude Code's fields (timeout, not
		// timeout_ms), keeping the fields agentsh has no name for.
		{"rewrite", ev("Bash", `{"command":"touch rewrite.marker","description":"d"}`), 0,
			`{"hookEventName":"PreToolUse","permissionDecision":"ask","updatedInput":{"command":"touch rewritten.marker","description":"d","timeout":5000}}`, ""},
		// A failing hook denies (fail closed) with its error.
		{"hook error", ev("panic_tool", `{}`), 0, "deny", "boom"},
		// Malformed input blocks: exit 2, the reason on stderr.
		{"not json", `{"hook_event_name":`, 2, "", "malformed claude-code hook input"},
		{"two values", ev("Bash", `{}`) + ev("Bash", `{}`), 2, "", "more than one JSON value"},
		{"no tool_name", `{"hook_event_name":"PreToolUse","tool_input":{}}`, 2, "", "tool_name is missing"},
		{"tool_input array", ev("Bash", `["rm"]`), 2, "", "tool_input is not a JSON object"},
		{"tool_name number", `{"hook_event_name":"PreToolUse","tool_name":7,"tool_input":{}}`, 2, "", "tool_name is not a string"},
		{"empty", ``, 2, "", "not JSON"},
		{"colliding fields", ev("Read", `{"file_path":"a","path":"b"}`), 2, "", `both map to "path"`},
		// Events agentsh does not decide pass.
		{"other event", `{"hook_event_name":"Stop"}`, 0, "", "decide no Stop events"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runHook(t, t.TempDir(), c.in, "claude-code", "--load", policy)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, c.code, out, errs)
			}
			switch {
			case c.stdout == "":
				if out != "" {
					t.Errorf("stdout %q, want none", out)
				}
			case c.stdout == "deny":
				if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, c.stderr) {
					t.Errorf("stdout %q, want a deny naming %q", out, c.stderr)
				}
				return
			default:
				var got struct{ HookSpecificOutput json.RawMessage }
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("stdout %q: %v", out, err)
				}
				if string(got.HookSpecificOutput) != c.stdout {
					t.Errorf("got  %s\nwant %s", got.HookSpecificOutput, c.stdout)
				}
			}
			if !strings.Contains(errs, c.stderr) {
				t.Errorf("stderr %q, want %q", errs, c.stderr)
			}
		})
	}
}

// Every failure outside a hook's verdict is exit 2 with the reason on
// stderr, never 0 or 1 (which Claude Code and Gemini CLI let through).
func TestHookFailsClosed(t *testing.T) {
	dir := t.TempDir()
	ev := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	broken := writePolicy(t, dir, "broken.star", "before(\n")
	loops := writePolicy(t, dir, "loops.star", "def f(call):\n    for i in range(1 << 40):\n        pass\nbefore(f)\n")
	panics := writePolicy(t, dir, "panics.star", "before(lambda call: fail('policy failure'))\n")
	cases := []struct {
		name   string
		args   []string
		stderr string
		in     string // the event; ev when empty
	}{
		{"policy fails to load", []string{"claude-code", "--load", broken}, "the policies failed to load", ""},
		{"policy missing", []string{"claude-code", "--load", filepath.Join(dir, "absent.star")}, "the policies failed to load", ""},
		{"timeout", []string{"claude-code", "--load", loops, "--timeout", "200ms"}, "no decision in time", ""},
		{"unknown agent", []string{"cursor"}, `unknown agent "cursor"`, ""},
		{"no agent", nil, "hook needs one agent", ""},
		{"gemini policy fails to load", []string{"gemini", "--load", broken}, "the policies failed to load",
			`{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`},
		{"codex policy fails to load", []string{"codex", "--load", broken}, "the policies failed to load", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			if in == "" {
				in = ev
			}
			code, out, errs := runHook(t, t.TempDir(), in, c.args...)
			if code != 2 || !strings.Contains(errs, c.stderr) {
				t.Fatalf("exit %d stderr %q, want 2 and %q", code, errs, c.stderr)
			}
			if out != "" {
				t.Errorf("stdout %q, want none", out)
			}
		})
	}
	// A hook that fails is a deny in the protocol (also blocking).
	code, out, _ := runHook(t, t.TempDir(), ev, "claude-code", "--load", panics)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "policy failure") {
		t.Fatalf("exit %d stdout %q, want a deny naming the failure", code, out)
	}
}
