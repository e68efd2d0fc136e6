package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// geminiClient is Gemini CLI.
var geminiClient = npmClient{env: "AGENTSH_GEMINI_CLI_DIR", pkg: "@google/gemini-cli", node: true, version: ".",
	bins: []string{"node_modules/.bin/gemini"}}

// geminiNoRelaunch keeps Gemini CLI in the process the test started: by
// default it starts Node.js a second time only to raise its heap limit,
// which doubles its start-up and changes nothing the tests look at.
const geminiNoRelaunch = "GEMINI_CLI_NO_RELAUNCH=true"

// geminiQuiet adds to Gemini CLI's settings what keeps a run to itself:
// no usage statistics, whose sending costs a second of CPU and holds up
// the exit, and no update check. Neither changes what the hooks see.
func geminiQuiet(settings map[string]any) map[string]any {
	settings["privacy"] = map[string]any{"usageStatisticsEnabled": false}
	settings["general"] = map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
	return settings
}

// scriptedGemini is a Gemini API endpoint (generateContent and
// streamGenerateContent) that asks for one run_shell_command call per
// turn, in order (the next one after as many functionResponses as the
// conversation holds), and then ends the conversation. Side requests
// (without the shell tool) get a short text.
type scriptedGemini struct {
	commands []string
}

func (m *scriptedGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []struct {
			Role  string
			Parts []map[string]json.RawMessage
		}
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		}
	}
	body := new(bytes.Buffer)
	body.ReadFrom(r.Body)
	json.Unmarshal(body.Bytes(), &req)
	shell := false
	for _, tool := range req.Tools {
		for _, f := range tool.FunctionDeclarations {
			shell = shell || f.Name == "run_shell_command"
		}
	}
	part := map[string]any{"text": "ok"}
	if shell {
		responses := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if _, ok := p["functionResponse"]; ok {
					responses++
				}
			}
		}
		if responses < len(m.commands) {
			part = map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": m.commands[responses], "description": "touch a marker file"}}}
		} else {
			part = map[string]any{"text": "done"}
		}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-scripted",
	}
	b, _ := json.Marshal(resp)
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	}
	if strings.Contains(r.URL.Path, ":countTokens") {
		b = []byte(`{"totalTokens":10}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// geminiRun is what one headless Gemini CLI run left behind.
type geminiRun struct {
	project string
	// statuses of the tool_result events, in order, and their outputs
	statuses, outputs []string
	result            map[string]any // the final "result" event
}

// runGeminiCLI puts agentsh with policySrc as the BeforeTool hook into
// Gemini CLI's user settings under a temp HOME and runs the real Gemini CLI
// headless in a temp project against the scripted model, in yolo mode so
// that only the hook stands between the model and the shell.
func runGeminiCLI(t *testing.T, gemini, policySrc string) *geminiRun {
	t.Helper()
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{filepath.Join(home, ".gemini"), project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	policy := writePolicy(t, root, "policy.star", policySrc)
	// Gemini CLI runs hooks with a sanitized environment: what the test
	// binary needs to act as agentsh goes on the command line.
	hook := "AGENTSH_MAIN=1 GORACE=atexit_sleep_ms=0 XDG_STATE_HOME=" + hookadapter.ShellQuote(filepath.Join(root, "state")) + " " +
		hookadapter.ShellQuote(os.Args[0]) + " hook gemini --load " + hookadapter.ShellQuote(policy)
	settings := geminiQuiet(map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*",
			"hooks": []any{map[string]any{"name": "agentsh", "type": "command", "command": hook, "timeout": 60000}}}}},
	})
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(&scriptedGemini{commands: markerCommands})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", "touch the marker files", "--output-format", "stream-json",
		"--model", "gemini-2.5-flash", "--skip-trust", "--approval-mode", "yolo")
	cmd.Dir = project
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), // node
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + root,
		// Not /etc/gemini-cli/settings.json.
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system-settings.json"),
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"GEMINI_API_KEY=test-dummy",
		geminiNoRelaunch,
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gemini did not finish within 3 minutes; stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
	}
	if err != nil {
		t.Fatalf("gemini: %v; stderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	run := &geminiRun{project: project}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var ev struct {
			Type, Status, Output string
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stream-json line %q: %v", line, err)
		}
		switch ev.Type {
		case "tool_result":
			run.statuses = append(run.statuses, ev.Status)
			run.outputs = append(run.outputs, ev.Output)
		case "result":
			json.Unmarshal([]byte(line), &run.result)
		}
	}
	if run.result == nil {
		t.Fatalf("no result event in the stream:\n%s", stdout.String())
	}
	return run
}

// TestGeminiCLIRealCLI runs the real Gemini CLI headless against a scripted
// Gemini API on loopback with agentsh as its BeforeTool hook, and checks
// which of the model's run_shell_command calls ran.
func TestGeminiCLIRealCLI(t *testing.T) {
	gemini := geminiClient.find(t)
	t.Parallel() // the runs wait on the client and the model
	cases := []struct {
		name     string
		policy   string
		markers  []string
		statuses []string // of the tool_result events, in markerCommands order
		reason   string   // in the first call's output
	}{
		{
			// yolo approves everything; agentsh's deny holds, its rewrite is
			// applied, its silence leaves the call to Gemini CLI.
			name: "policy", policy: markerPolicy,
			markers:  []string{"allowed.marker", "rewritten.marker", "unlisted.marker"},
			statuses: []string{"error", "success", "success", "success"},
			reason:   "Tool execution blocked: no denied markers (agentsh policy: decide at ",
		},
		{
			// A policy that fails to load blocks every call (exit 2).
			name: "policy fails to load", policy: "def broken(:\n",
			statuses: []string{"error", "error", "error", "error"},
			reason:   "the policies failed to load, so every call is blocked",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			run := runGeminiCLI(t, gemini, c.policy)
			ms, _ := filepath.Glob(filepath.Join(run.project, "*.marker"))
			for i := range ms {
				ms[i] = filepath.Base(ms[i])
			}
			if strings.Join(ms, " ") != strings.Join(c.markers, " ") {
				t.Errorf("markers %q, want %q", ms, c.markers)
			}
			if strings.Join(run.statuses, " ") != strings.Join(c.statuses, " ") {
				t.Errorf("tool_result statuses %q, want %q; outputs %q", run.statuses, c.statuses, run.outputs)
			}
			if len(run.outputs) == 0 || !strings.Contains(run.outputs[0], c.reason) {
				t.Errorf("tool_result outputs %q, want the first to name %q", run.outputs, c.reason)
			}
			if run.result["status"] != "success" {
				t.Errorf("result event %v, want status success", run.result)
			}
		})
	}
}
