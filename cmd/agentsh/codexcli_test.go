package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// codexClient is the Codex CLI (a native binary).
var codexClient = npmClient{env: "AGENTSH_CODEX_DIR", pkg: "@openai/codex", version: "codex",
	bins: []string{"node_modules/.bin/codex"}}

// scriptedResponses is an OpenAI Responses API endpoint (streamed) that
// asks for one exec_command call per turn, in order (the next one after as
// many function_call_outputs as the conversation holds), and then ends the
// conversation. It keeps what each call's output was.
type scriptedResponses struct {
	commands []string

	mu      sync.Mutex
	outputs map[string]string // function_call_output by call_id
}

func (m *scriptedResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, "not scripted", http.StatusNotFound)
		return
	}
	var req struct {
		Input []struct {
			Type   string
			CallID string `json:"call_id"`
			Output json.RawMessage
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := 0
	m.mu.Lock()
	for _, item := range req.Input {
		if item.Type == "function_call_output" {
			n++
			m.outputs[item.CallID] = toolResultText(item.Output)
		}
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	send("response.created", map[string]any{"response": map[string]any{"id": "resp_scripted"}})
	if n < len(m.commands) {
		args, _ := json.Marshal(map[string]any{"cmd": m.commands[n]})
		send("response.output_item.done", map[string]any{"item": map[string]any{"type": "function_call",
			"name": "exec_command", "arguments": string(args), "call_id": fmt.Sprintf("call_%02d", n)}})
	} else {
		send("response.output_item.done", map[string]any{"item": map[string]any{"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": "done"}}}})
	}
	send("response.completed", map[string]any{"response": map[string]any{"id": "resp_scripted",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// TestCodexRealCLI runs the real Codex headless (codex exec) against a
// scripted Responses API on loopback, with agentsh hook codex as its
// PreToolUse hook, and checks which of the model's shell calls ran by the
// marker files left in the temp project. Codex asks a hook to be trusted
// before it runs it; --dangerously-bypass-hook-trust runs it unreviewed,
// which is what this test's own hook file needs. Codex's sandbox helper is
// not installed under a temp CODEX_HOME, so the commands, which only touch
// markers in the temp project, run unsandboxed.
func TestCodexRealCLI(t *testing.T) {
	codex := codexClient.find(t)
	t.Parallel() // the run waits on the client and the model
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	policy := writePolicy(t, root, "policy.star", markerPolicy)
	hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "*",
		"hooks": []any{map[string]any{"type": "command", "timeout": 60,
			"command": hookadapter.ShellQuote(os.Args[0]) + " hook codex --load " + hookadapter.ShellQuote(policy)}},
	}}}}
	b, _ := json.Marshal(hooks)
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	model := &scriptedResponses{commands: markerCommands, outputs: map[string]string{}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	config := fmt.Sprintf(`model = "scripted"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
`, srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--json", "--skip-git-repo-check", "--ephemeral",
		"--dangerously-bypass-hook-trust",
		"--dangerously-bypass-approvals-and-sandbox", "touch the marker files")
	cmd.Dir = project
	cmd.Stdin = strings.NewReader("")
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"CODEX_HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + root,
		"SCRIPTED_API_KEY=sk-test-dummy",
		"AGENTSH_MAIN=1",
		"GORACE=atexit_sleep_ms=0",
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("codex did not finish within 3 minutes:\n%s", out)
	}
	if err != nil {
		t.Fatalf("codex: %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), `"turn.completed"`) {
		t.Errorf("no turn.completed event:\n%s", out)
	}

	ms, _ := filepath.Glob(filepath.Join(project, "*.marker"))
	for i, m := range ms {
		ms[i] = filepath.Base(m)
	}
	// Codex lets a hook's rewrite through unapplied, so agentsh denies it.
	if got, want := strings.Join(ms, " "), "allowed.marker unlisted.marker"; got != want {
		t.Errorf("markers %q, want %q", got, want)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	for id, want := range map[string]string{
		"call_00": "no denied markers (agentsh policy: decide at ",
		"call_02": "which a Codex hook cannot apply",
	} {
		if got := model.outputs[id]; !strings.Contains(got, want) {
			t.Errorf("%s output %q, want it to name %q", id, got, want)
		}
	}
	if len(model.outputs) != len(markerCommands) {
		t.Errorf("%d call outputs, want %d: %v", len(model.outputs), len(markerCommands), model.outputs)
	}
}
