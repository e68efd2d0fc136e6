package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpMarkerTools is the tool agentsh mcp serve offers Claude Code: it
// creates a marker in the work dir through agentsh's own write_file, which
// the listing hides, so touch_marker is all the client sees.
const mcpMarkerTools = `
def touch_marker(args):
    r = invoke_tool("write_file", {"path": args["name"] + ".marker", "content": ""})
    if not r.ok:
        fail("touch_marker: %s" % r.error)
    return "touched %s.marker" % args["name"]

tool(name = "touch_marker", fn = touch_marker, description = "Creates NAME.marker in the work dir.",
     parameters = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})

on("list_tools", lambda tool: tool.name == "touch_marker")
`

// mcpMarkerPolicy allows one marker, denies one and leaves the rest to
// the model's defaults (touch_marker is not read-only: it asks).
const mcpMarkerPolicy = `
def decide(call):
    name = call.args["name"]
    if name == "denied":
        return deny("no denied markers")
    if name == "allowed":
        return allow("markers are fine")

before(decide, tools = ["touch_marker"])
before(lambda call: allow("a marker") if call.args["path"].endswith(".marker") else None, tools = ["write_file"])
`

// TestClaudeCodeRealCLIMCPServe runs the real Claude Code headless with
// agentsh mcp serve as its MCP server, and checks that the model's calls
// of the served tool go through agentsh's pipeline: the allowed call
// leaves its marker, the denied one comes back as agentsh's error with
// the policy's reason, and the one no policy decides asks, which Claude
// Code cannot answer headless, so it is refused.
func TestClaudeCodeRealCLIMCPServe(t *testing.T) {
	claude := claudeCodeClient.find(t)
	t.Parallel() // the run waits on the client and the model
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tools := writePolicy(t, root, "tools.star", mcpMarkerTools)
	policy := writePolicy(t, root, "policy.star", mcpMarkerPolicy)
	events := filepath.Join(root, "events.jsonl")
	config := map[string]any{"mcpServers": map[string]any{"agentsh": map[string]any{
		"type":    "stdio",
		"command": os.Args[0],
		"args": []string{"mcp", "serve", "--workdir", project, "--load", tools, "--load", policy,
			"--events", events},
		"env": map[string]string{
			"AGENTSH_MAIN":   "1",
			"GORACE":         "atexit_sleep_ms=0",
			"XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		},
	}}}
	b, _ := json.Marshal(config)
	configFile := filepath.Join(root, "mcp.json")
	if err := os.WriteFile(configFile, b, 0o644); err != nil {
		t.Fatal(err)
	}

	const tool = "mcp__agentsh__touch_marker"
	model := &scriptedModel{calls: []scriptedCall{
		{Name: tool, Input: map[string]any{"name": "denied"}},
		{Name: tool, Input: map[string]any{"name": "allowed"}},
		{Name: tool, Input: map[string]any{"name": "unlisted"}},
	}}
	// Claude Code's own permission check passes the served tool; agentsh's
	// pipeline decides.
	run := runClaudeHeadless(t, claude, root, model, []string{"ENABLE_TOOL_SEARCH=false"}, "--mcp-config", configFile, "--strict-mcp-config",
		"--allowedTools", tool)
	offered := map[string]bool{}
	for _, name := range model.offered() {
		offered[name] = true
	}
	if !offered[tool] || offered["mcp__agentsh__write_file"] {
		t.Errorf("the model was offered %v, want %s and not the hidden mcp__agentsh__write_file", model.offered(), tool)
	}
	if got := run.markers(t); strings.Join(got, " ") != "allowed.marker" {
		t.Errorf("markers %q, want only allowed.marker", got)
	}
	if run.turns != 4 {
		t.Errorf("the model was asked %d times, want 4", run.turns)
	}
	wantResults := []struct {
		text    string
		isError bool
	}{
		{`error (rejected): rejected by "decide": no denied markers`, true},
		{"touched allowed.marker", false},
		// Claude Code declares elicitation, and cancels it headless.
		{"error (rejected): not approved: cancelled by the client's user", true},
	}
	for i, want := range wantResults {
		id := fmt.Sprintf("toolu_%02d", i)
		if got := run.results[id]; got != want.text || run.errors[id] != want.isError {
			t.Errorf("%s: tool_result %q (is_error %v), want %q (is_error %v)", id, got, run.errors[id], want.text, want.isError)
		}
		// Claude Code itself let every call through to the server.
		if got := run.verdicts[id]; got != "accept/config" {
			t.Errorf("%s: Claude Code's verdict %q, want accept/config", id, got)
		}
	}
	if got, _ := run.result["result"].(string); run.result["is_error"] != false || got != "done" {
		t.Errorf("result event %v, want is_error false and result done", run.result)
	}

	// agentsh's events: each call's decision trail, from its pipeline.
	trails := mcpServeTrails(t, events)
	want := map[string]string{
		"touch_marker denied":       "ok=false tool-before:deny:decide",
		"touch_marker allowed":      "ok=true tool-before:allow:decide approval:allow:decide",
		"write_file allowed.marker": "ok=true tool-before:allow:lambda approval:allow:lambda",
		"touch_marker unlisted":     "ok=false tool-before:none:decide approval:ask:default",
	}
	if len(trails) != len(want) {
		t.Errorf("agentsh ran %d calls, want %d: %v", len(trails), len(want), trails)
	}
	for call, w := range want {
		if got := trails[call]; !strings.HasPrefix(got, w) {
			t.Errorf("%s: decisions %q, want them to start %q", call, got, w)
		}
	}
}

// mcpServeTrails reads agentsh's --events file: for each call, "TOOL ARG"
// (its name or path argument) to "ok=BOOL stage:verdict:hook ...".
func mcpServeTrails(t *testing.T, events string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	calls, trails := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct {
			Event, Tool string
			CallID      string `json:"call_id"`
			OK          bool
			Args        map[string]any
			Decisions   []struct{ Stage, Verdict, Hook string }
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events line %q: %v", line, err)
		}
		switch ev.Event {
		case "tool_start":
			arg, _ := ev.Args["name"].(string)
			if path, ok := ev.Args["path"].(string); ok {
				arg = path
			}
			calls[ev.CallID] = ev.Tool + " " + arg
		case "tool_end":
			trail := []string{fmt.Sprintf("ok=%v", ev.OK)}
			for _, d := range ev.Decisions {
				hook, _, _ := strings.Cut(d.Hook, "@")
				trail = append(trail, d.Stage+":"+d.Verdict+":"+hook)
			}
			trails[calls[ev.CallID]] = strings.Join(trail, " ")
		}
	}
	return trails
}
