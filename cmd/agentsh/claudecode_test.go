package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// claudeCodeClient is the Claude Code CLI. The package's postinstall puts
// the native binary at .bin/claude; without it (npm --ignore-scripts) the
// binary is still in the platform package.
var claudeCodeClient = npmClient{env: "AGENTSH_CLAUDE_CODE_DIR", pkg: "@anthropic-ai/claude-code", version: "Claude Code",
	bins: []string{"node_modules/.bin/claude", "node_modules/@anthropic-ai/claude-code-*/claude"}}

// markerPolicy decides the marker commands the scripted models ask for.
// Its rewrite keeps the other fields (Gemini CLI merges a rewrite into
// the call, so a removed field is refused).
const markerPolicy = `
def decide(call):
    if call.name != "bash":
        return None
    cmd = call.args["command"]
    if cmd == "touch denied.marker":
        return deny("no denied markers")
    if cmd == "touch allowed.marker":
        return allow("markers are fine")
    if cmd == "touch rewrite.marker":
        args = dict(call.args)
        args["command"] = "touch rewritten.marker"
        return allow("rewritten", args=args)

before(decide)
`

// markerCommands are the scripted model's Bash calls, one per turn: each
// touches only a marker file in the temp project, so a hook that failed
// open shows as a marker and harms nothing.
var markerCommands = []string{
	"touch denied.marker",   // the policy denies
	"touch allowed.marker",  // the policy allows
	"touch rewrite.marker",  // the policy rewrites to rewritten.marker
	"touch unlisted.marker", // no opinion: Claude Code's own permissions decide
}

// claudeRun is what one headless Claude Code run left behind.
type claudeRun struct {
	project string
	stream  []map[string]any // the stream-json events
	// verdicts by tool_use_id: Claude Code's permission_decision
	// "decision/source" ("reject/hook", "accept/hook", "reject/config"),
	// or "ran" when it records none.
	verdicts map[string]string
	results  map[string]string // tool_result content by tool_use_id
	errors   map[string]bool   // tool_result is_error by tool_use_id
	result   map[string]any    // the final "result" event
	turns    int               // main-loop requests the model answered
}

// runClaudeCode installs agentsh with policySrc as the hooks of a temp
// project (all of them with agentsh hook install, or only PreToolUse) and runs the real Claude Code in it, headless, against the
// scripted model, with HOME, the XDG dirs and TMPDIR in the temp dir too.
func runClaudeCode(t *testing.T, claude, policySrc string, preToolOnly bool, extra ...string) *claudeRun {
	t.Helper()
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	policy := writePolicy(t, root, "policy.star", policySrc)
	if preToolOnly {
		// By hand, as a user might: only the PreToolUse entry.
		settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "*",
			"hooks": []any{map[string]any{"type": "command", "timeout": 60,
				"command": hookadapter.ShellQuote(os.Args[0]) + " hook claude-code --load " + hookadapter.ShellQuote(policy)}},
		}}}}
		b, _ := json.Marshal(settings)
		os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
		if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		var out, errb strings.Builder
		if code := cli([]string{"hook", "install", "claude-code", "--project", "--workdir", project, "--load", policy, "--allow-temp-exe"},
			stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
			t.Fatalf("hook install: exit %d: %s%s", code, out.String(), errb.String())
		}
	}

	return runClaudeHeadless(t, claude, root, &scriptedModel{commands: markerCommands}, nil, extra...)
}

// runClaudeHeadless runs the real Claude Code in root/project, headless,
// against model, with HOME (root/home), the XDG dirs and TMPDIR in root,
// and env added to its environment.
func runClaudeHeadless(t *testing.T, claude, root string, model *scriptedModel, env []string, extra ...string) *claudeRun {
	t.Helper()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	srv := httptest.NewServer(model)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"-p", "touch the marker files", "--output-format", "stream-json", "--verbose",
		"--max-turns", "10", "--model", "claude-sonnet-4-5"}, extra...)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = project
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + root,
		"ANTHROPIC_BASE_URL=" + srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-test-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		// Claude Code refuses to bypass permissions as root outside a sandbox;
		// every command here only touches a marker in the temp project.
		"IS_SANDBOX=1",
		// The installed hook command is this test binary, which acts as
		// agentsh with AGENTSH_MAIN=1.
		"AGENTSH_MAIN=1",
		// Built with -race, it would otherwise wait a second before exiting.
		"GORACE=atexit_sleep_ms=0",
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("claude did not finish within 3 minutes; stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
	}
	if err != nil {
		t.Fatalf("claude: %v; stderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}

	run := &claudeRun{project: project, turns: model.answered(), verdicts: map[string]string{}, results: map[string]string{}, errors: map[string]bool{}}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		run.stream = append(run.stream, ev)
		switch ev["type"] {
		case "result":
			run.result = ev
		case "user":
			var u struct {
				Message struct {
					Content []struct {
						Type      string          `json:"type"`
						ToolUseID string          `json:"tool_use_id"`
						Content   json.RawMessage `json:"content"`
						IsError   bool            `json:"is_error"`
					} `json:"content"`
				} `json:"message"`
				Meta []struct {
					ID       string `json:"id"`
					Decision *struct {
						Decision, Source string
					} `json:"permission_decision"`
				} `json:"tool_result_meta"`
			}
			json.Unmarshal([]byte(line), &u)
			for _, c := range u.Message.Content {
				if c.Type == "tool_result" {
					run.results[c.ToolUseID] = toolResultText(c.Content)
					run.errors[c.ToolUseID] = c.IsError
					run.verdicts[c.ToolUseID] = "ran"
				}
			}
			for _, m := range u.Meta {
				if m.Decision != nil {
					run.verdicts[m.ID] = m.Decision.Decision + "/" + m.Decision.Source
				}
			}
		}
	}
	if run.result == nil {
		t.Fatalf("no result event in the stream:\n%s", stdout.String())
	}
	return run
}

// markers reports which marker files the run left in the project.
func (r *claudeRun) markers(t *testing.T) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(r.project, "*.marker"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		ms[i] = filepath.Base(m)
	}
	return ms
}

// denials are the tool_use_ids of the result event's permission_denials.
func (r *claudeRun) denials() []string {
	var ids []string
	ds, _ := r.result["permission_denials"].([]any)
	for _, d := range ds {
		m, _ := d.(map[string]any)
		id, _ := m["tool_use_id"].(string)
		ids = append(ids, id)
	}
	return ids
}

// TestClaudeCodeRealCLI runs the real Claude Code CLI headless against a
// scripted model on loopback, with agentsh as its hooks, and checks which
// of the model's Bash calls ran: by the marker files left in the temp
// project, and by what the stream-json reports.
func TestClaudeCodeRealCLI(t *testing.T) {
	claude := claudeCodeClient.find(t)
	t.Parallel() // the runs wait on the client and the model
	const denyReason = "no denied markers (agentsh policy: decide at "
	const broken = "def broken(:\n"
	bypass := []string{"--permission-mode", "bypassPermissions"}
	cases := []struct {
		name        string
		policy      string
		preToolOnly bool
		flags       []string
		markers     []string
		turns       int      // model requests
		verdicts    []string // by call, in markerCommands order
		denied      []string // permission_denials
		reason      string   // in the first call's tool_result
		result      string   // in the result event's result
	}{
		{
			// Claude Code's default mode: a shell command that writes needs
			// approval, which -p refuses, unless agentsh's hook allows.
			name: "default permissions", policy: markerPolicy,
			markers:  []string{"allowed.marker", "rewritten.marker"},
			verdicts: []string{"reject/hook", "accept/hook", "accept/hook", "reject/config"},
			denied:   []string{"toolu_00", "toolu_03"},
			turns:    5, reason: denyReason, result: "done",
		},
		{
			// With Claude Code's own checks off, agentsh's deny still holds;
			// its silence leaves the call to Claude Code.
			name: "bypass permissions", policy: markerPolicy, flags: bypass,
			markers:  []string{"allowed.marker", "rewritten.marker", "unlisted.marker"},
			verdicts: []string{"reject/hook", "accept/hook", "accept/hook", "accept/config"},
			denied:   []string{"toolu_00"},
			turns:    5, reason: denyReason, result: "done",
		},
		{
			// A PreToolUse hook whose policy fails to load blocks every call
			// (exit 2), even with Claude Code's own checks off.
			name: "policy fails to load", policy: broken, preToolOnly: true, flags: bypass,
			verdicts: []string{"reject/hook", "reject/hook", "reject/hook", "reject/hook"},
			denied:   []string{"toolu_00", "toolu_01", "toolu_02", "toolu_03"},
			turns:    5, reason: "the policies failed to load, so every call is blocked", result: "done",
		},
		{
			// With every entry installed, the prompt is blocked first: the
			// model is never asked.
			name: "policy fails to load, prompt blocked", policy: broken, flags: bypass,
			result: "UserPromptSubmit operation blocked by hook",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run := runClaudeCode(t, claude, c.policy, c.preToolOnly, c.flags...)
			if got := run.markers(t); strings.Join(got, " ") != strings.Join(c.markers, " ") {
				t.Errorf("markers %q, want %q", got, c.markers)
			}
			if run.turns != c.turns {
				t.Errorf("the model was asked %d times, want %d", run.turns, c.turns)
			}
			if len(run.verdicts) != len(c.verdicts) {
				t.Errorf("%d tool calls answered, want %d: %v", len(run.verdicts), len(c.verdicts), run.verdicts)
			}
			for i, want := range c.verdicts {
				id := fmt.Sprintf("toolu_%02d", i)
				if got := run.verdicts[id]; got != want {
					t.Errorf("%s (%s): verdict %q, want %q; tool_result %q", id, markerCommands[i], got, want, run.results[id])
				}
			}
			if got := run.denials(); strings.Join(got, " ") != strings.Join(c.denied, " ") {
				t.Errorf("permission_denials %q, want %q", got, c.denied)
			}
			if got := run.results["toolu_00"]; !strings.Contains(got, c.reason) {
				t.Errorf("first call's tool_result %q, want it to name %q", got, c.reason)
			}
			if got, _ := run.result["result"].(string); run.result["is_error"] != false || !strings.Contains(got, c.result) {
				t.Errorf("result event %v, want is_error false and a result naming %q", run.result, c.result)
			}
		})
	}
}
