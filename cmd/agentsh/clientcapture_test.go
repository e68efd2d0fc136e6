package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// The real clients, driven headless against scripted models on loopback
// with a hook that only records what the client sends: the tools each
// client offers its model, and the hook events of its tools, as the
// fixtures the hook adapters are tested against (testdata/hookevents).

// clientCall is one tool call a scripted model makes: a function call
// with JSON arguments, or (Codex) a freeform call with text input.
type clientCall struct {
	Name     string
	Args     map[string]any
	Freeform string // Codex custom tools (apply_patch): the input text
}

// clientModel is what the three scripted endpoints share: the calls to
// make in order (the next one after as many results as the conversation
// holds), what the first main-loop request offered, and every request
// body.
type clientModel struct {
	calls []clientCall
	// main reports whether a request is the main loop's (it offers the
	// client's shell tool), not a side request (a title, a summary).
	mu      sync.Mutex
	offered []string
	bodies  [][]byte
}

func (m *clientModel) record(body []byte, offered []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies = append(m.bodies, body)
	if m.offered == nil && len(offered) > 0 {
		m.offered = offered
	}
}

func (m *clientModel) next(n int) (clientCall, bool) {
	if n < len(m.calls) {
		return m.calls[n], true
	}
	return clientCall{}, false
}

// claudeEndpoint is the Anthropic Messages API for Claude Code.
type claudeEndpoint struct{ *clientModel }

func (m claudeEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Stream   bool `json:"stream"`
		Tools    []struct{ Name string }
		Messages []struct{ Content json.RawMessage }
	}
	json.Unmarshal(body, &req)
	var offered []string
	main := false
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
		main = main || t.Name == "Bash"
	}
	if !main {
		writeMessage(w, req.Stream, nil, "ok")
		return
	}
	m.record(body, offered)
	results := 0
	for _, msg := range req.Messages {
		var blocks []struct{ Type string }
		json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results++
			}
		}
	}
	if c, ok := m.next(results); ok {
		writeMessage(w, req.Stream, &toolUse{ID: fmt.Sprintf("toolu_%02d", results), Name: c.Name, Input: c.Args}, "")
		return
	}
	writeMessage(w, req.Stream, nil, "done")
}

// geminiEndpoint is the Gemini API for Gemini CLI.
type geminiEndpoint struct{ *clientModel }

func (m geminiEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Contents []struct{ Parts []map[string]json.RawMessage }
		Tools    []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		}
	}
	json.Unmarshal(body, &req)
	var offered []string
	main := false
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			offered = append(offered, f.Name)
			main = main || f.Name == "run_shell_command"
		}
	}
	part := map[string]any{"text": "ok"}
	if main {
		m.record(body, offered)
		responses := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if _, ok := p["functionResponse"]; ok {
					responses++
				}
			}
		}
		part = map[string]any{"text": "done"}
		if c, ok := m.next(responses); ok {
			part = map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}}
		}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-scripted",
	}
	b, _ := json.Marshal(resp)
	switch {
	case strings.Contains(r.URL.Path, ":streamGenerateContent"):
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	case strings.Contains(r.URL.Path, ":countTokens"):
		b = []byte(`{"totalTokens":10}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// codexEndpoint is the OpenAI Responses API for Codex.
type codexEndpoint struct{ *clientModel }

func (m codexEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, "not scripted", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Tools []struct{ Type, Name string }
		Input []struct {
			Type   string
			Output json.RawMessage
		}
	}
	json.Unmarshal(body, &req)
	var offered []string
	for _, t := range req.Tools {
		if t.Name != "" {
			offered = append(offered, t.Name)
		} else {
			offered = append(offered, t.Type)
		}
	}
	m.record(body, offered)
	n, session := 0, ""
	for _, item := range req.Input {
		if item.Type == "function_call_output" || item.Type == "custom_tool_call_output" {
			n++
			if m := sessionID.FindStringSubmatch(toolResultText(item.Output)); m != nil {
				session = m[1]
			}
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	send("response.created", map[string]any{"response": map[string]any{"id": "resp_scripted"}})
	if c, ok := m.next(n); ok {
		id := fmt.Sprintf("call_%02d", n)
		item := map[string]any{"type": "function_call", "name": c.Name, "call_id": id}
		if c.Freeform != "" {
			item = map[string]any{"type": "custom_tool_call", "name": c.Name, "call_id": id, "input": c.Freeform}
		} else {
			// "$SESSION" is the session a running exec_command reported.
			args, _ := json.Marshal(c.Args)
			item["arguments"] = strings.ReplaceAll(string(args), `"$SESSION"`, session)
		}
		send("response.output_item.done", map[string]any{"item": item})
	} else {
		send("response.output_item.done", map[string]any{"item": map[string]any{"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": "done"}}}})
	}
	send("response.completed", map[string]any{"response": map[string]any{"id": "resp_scripted",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// sessionID finds the session of a running Codex exec_command.
var sessionID = regexp.MustCompile(`session ID (\d+)`)

// clientRun is one headless run of a real client.
type clientRun struct {
	root, home, project string
	model               *clientModel
	output              string
	// events are the hook events the client sent, in order.
	events []json.RawMessage
}

// runClient runs the named client ("claude-code", "gemini", "codex") in a
// temp project against a scripted model making calls, with hookCommand
// (given the temp root) as its pre-tool hook; setup may add files to the
// project first. Any permission prompts of the client's own are off.
// A client named "codex:MODEL" is Codex told its model is MODEL, which
// decides the tools Codex offers ("codex" is an unknown model, scripted).
func runClient(t *testing.T, client string, calls func(project string) []clientCall, hookCommand func(root string) string, setup func(project string)) *clientRun {
	t.Helper()
	client, model, _ := strings.Cut(client, ":")
	if model == "" {
		model = "scripted"
	}
	var bin string
	switch client {
	case "claude-code":
		bin = claudeCodeClient.find(t)
	case "gemini":
		bin = geminiClient.find(t)
	case "codex":
		bin = codexClient.find(t)
	}
	root := t.TempDir()
	run := &clientRun{root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project")}
	run.model = &clientModel{calls: calls(run.project)}
	for _, d := range []string{run.home, run.project, filepath.Join(run.home, ".gemini")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if setup != nil {
		setup(run.project)
	}
	hook := hookCommand(root)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := []string{"HOME=" + run.home, "TMPDIR=" + root, "XDG_CONFIG_HOME=" + filepath.Join(run.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(run.home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(run.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(run.home, ".local", "state"), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0"}
	var cmd *exec.Cmd
	switch client {
	case "claude-code":
		srv := httptest.NewServer(claudeEndpoint{run.model})
		defer srv.Close()
		settings := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*",
			"hooks": []any{map[string]any{"type": "command", "timeout": 60, "command": hook}}}}}}
		writeJSON(t, filepath.Join(run.project, ".claude", "settings.json"), settings)
		cmd = exec.CommandContext(ctx, bin, "-p", "do the task", "--output-format", "stream-json", "--verbose",
			"--max-turns", "40", "--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions")
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-test-dummy",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "IS_SANDBOX=1")
	case "gemini":
		srv := httptest.NewServer(geminiEndpoint{run.model})
		defer srv.Close()
		settings := map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*",
				"hooks": []any{map[string]any{"name": "agentsh", "type": "command", "command": hook, "timeout": 60000}}}}},
		}
		writeJSON(t, filepath.Join(run.home, ".gemini", "settings.json"), settings)
		cmd = exec.CommandContext(ctx, bin, "-p", "do the task", "--output-format", "stream-json",
			"--model", "gemini-2.5-flash", "--skip-trust", "--approval-mode", "yolo")
		env = append(env, "PATH="+os.Getenv("PATH"), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(root, "system-settings.json"),
			"GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_API_KEY=test-dummy")
	case "codex":
		srv := httptest.NewServer(codexEndpoint{run.model})
		defer srv.Close()
		hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*",
			"hooks": []any{map[string]any{"type": "command", "timeout": 60, "command": hook}}}}}}
		writeJSON(t, filepath.Join(run.home, "hooks.json"), hooks)
		config := fmt.Sprintf("model = \"%s\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"%s/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n", model, srv.URL)
		if err := os.WriteFile(filepath.Join(run.home, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "--ephemeral",
			"--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", "do the task")
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "CODEX_HOME="+run.home, "SCRIPTED_API_KEY=sk-test-dummy")
	}
	cmd.Dir = run.project
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	run.output = string(out)
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within 3 minutes:\n%s", client, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", client, err, out)
	}
	return run
}

// recordingHook is a hook command that keeps each event it is given in
// root/events, in order, and answers nothing.
func recordingHook(root string) string {
	dir := filepath.Join(root, "events")
	os.MkdirAll(dir, 0o755)
	d := hookadapter.ShellQuote(dir)
	return "n=$(ls " + d + " | wc -l); f=" + d + "/$(printf %04d $n); pwd > $f.pwd; env | grep -i -E 'project|codex|claude|gemini' >> $f.pwd; cat > $f.json"
}

// recorded reads the events recordingHook kept.
func (r *clientRun) recorded(t *testing.T) []json.RawMessage {
	t.Helper()
	dir := filepath.Join(r.root, "events")
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(names)
	var out []json.RawMessage
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.TrimSpace(b))
	}
	return out
}

// TestCaptureClientEvents records, with AGENTSH_CAPTURE=DIR set, what each
// pinned client offers its model and the hook events its tools send, into
// DIR/CLIENT/: offered.json and events.jsonl, the temp paths replaced by
// $ROOT. testdata/hookevents holds what it recorded.
func TestCaptureClientEvents(t *testing.T) {
	out := os.Getenv("AGENTSH_CAPTURE")
	if out == "" {
		t.Skip("AGENTSH_CAPTURE is not set; set it to a directory to record the clients' hook events")
	}
	for client, calls := range captureCalls {
		if only := os.Getenv("AGENTSH_CAPTURE_CLIENT"); only != "" && only != client {
			continue
		}
		t.Run(client, func(t *testing.T) {
			run := runClient(t, client, calls, recordingHook, captureSetup)
			dir := filepath.Join(out, strings.ReplaceAll(client, ":", "-"))
			os.MkdirAll(dir, 0o755)
			anon := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(run.root), []byte("$ROOT")) }
			offered, _ := json.MarshalIndent(run.model.offered, "", "  ")
			os.WriteFile(filepath.Join(dir, "offered.json"), offered, 0o644)
			var lines []byte
			for _, ev := range run.recorded(t) {
				lines = append(append(lines, anon(ev)...), '\n')
			}
			os.WriteFile(filepath.Join(dir, "events.jsonl"), lines, 0o644)
			pwds, _ := filepath.Glob(filepath.Join(run.root, "events", "*.pwd"))
			var dirs []byte
			for _, p := range pwds {
				b, _ := os.ReadFile(p)
				dirs = append(dirs, anon(b)...)
			}
			os.WriteFile(filepath.Join(dir, "hook-dirs.txt"), dirs, 0o644)
			for i, b := range run.model.bodies {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("request-%02d.json", i)), anon(b), 0o644)
			}
			os.WriteFile(filepath.Join(dir, "output.txt"), anon([]byte(run.output)), 0o644)
		})
	}
}

// captureSetup gives the project files the captured calls read and edit.
func captureSetup(project string) {
	for name, content := range map[string]string{
		"src/main.go":    "package main\n\nfunc main() {}\n",
		"README.md":      "# demo\n",
		".env":           "TOKEN=decoy\n",
		"notebook.ipynb": `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
	} {
		p := filepath.Join(project, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
}

// captureCalls are the calls whose hook events are recorded, per client,
// given the project directory. Every one stays in the temp project or
// touches a marker there; what writes outside writes beside it, in the
// temp root.
var captureCalls = map[string]func(p string) []clientCall{
	"claude-code": func(p string) []clientCall {
		return []clientCall{
			{Name: "ToolSearch", Args: map[string]any{"query": "select:NotebookEdit,Monitor,WebFetch,WebSearch,TaskCreate,EnterWorktree"}},
			{Name: "Bash", Args: map[string]any{"command": "echo hi > bash.marker", "description": "write a marker"}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/README.md"}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/.env"}},
			{Name: "Write", Args: map[string]any{"file_path": p + "/src/new.txt", "content": "x\n"}},
			{Name: "Write", Args: map[string]any{"file_path": "src/relative.txt", "content": "x\n"}},
			{Name: "Write", Args: map[string]any{"file_path": p + "/../outside.txt", "content": "x\n"}},
			{Name: "Edit", Args: map[string]any{"file_path": p + "/src/main.go", "old_string": "func main() {}", "new_string": "func main() { }"}},
			{Name: "NotebookEdit", Args: map[string]any{"notebook_path": p + "/notebook.ipynb", "cell_id": "c1", "new_source": "print(2)"}},
			{Name: "Monitor", Args: map[string]any{"command": "echo tick > monitor.marker", "description": "tick", "timeout_ms": 5000}},
			{Name: "WebFetch", Args: map[string]any{"url": "http://127.0.0.1:9/x", "prompt": "summarize"}},
			{Name: "WebSearch", Args: map[string]any{"query": "agentsh"}},
			{Name: "Glob", Args: map[string]any{"pattern": "**/*.go"}},
			{Name: "Grep", Args: map[string]any{"pattern": "main", "path": p + "/src"}},
			{Name: "TodoWrite", Args: map[string]any{"todos": []any{map[string]any{"content": "a", "status": "pending", "activeForm": "doing a"}}}},
			{Name: "PowerShell", Args: map[string]any{"command": "echo hi"}},
			{Name: "REPL", Args: map[string]any{"code": "1+1"}},
		}
	},
	"gemini": func(p string) []clientCall {
		return []clientCall{
			{Name: "run_shell_command", Args: map[string]any{"command": "echo hi > shell.marker", "description": "marker"}},
			{Name: "run_shell_command", Args: map[string]any{"command": "echo hi > sub.marker", "dir_path": "src"}},
			{Name: "read_file", Args: map[string]any{"file_path": "README.md"}},
			{Name: "read_file", Args: map[string]any{"file_path": p + "/.env"}},
			{Name: "write_file", Args: map[string]any{"file_path": "src/new.txt", "content": "x\n"}},
			{Name: "write_file", Args: map[string]any{"file_path": p + "/src/abs.txt", "content": "x\n"}},
			{Name: "write_file", Args: map[string]any{"file_path": "../outside.txt", "content": "x\n"}},
			{Name: "replace", Args: map[string]any{"file_path": "src/main.go", "old_string": "func main() {}", "new_string": "func main() { }", "instruction": "space"}},
			{Name: "read_many_files", Args: map[string]any{"include": []any{"src/**/*.go", "README.md"}}},
			{Name: "list_directory", Args: map[string]any{"dir_path": "src"}},
			{Name: "glob", Args: map[string]any{"pattern": "**/*.go"}},
			{Name: "grep_search", Args: map[string]any{"pattern": "main", "dir_path": "src"}},
			{Name: "web_fetch", Args: map[string]any{"prompt": "summarize http://127.0.0.1:9/x"}},
			{Name: "google_web_search", Args: map[string]any{"query": "agentsh"}},
			{Name: "save_memory", Args: map[string]any{"fact": "the user likes markers"}},
			{Name: "write_todos", Args: map[string]any{"todos": []any{map[string]any{"description": "a", "status": "pending"}}}},
		}
	},
	"codex:gpt-6.2-sol": func(p string) []clientCall {
		patch := "*** Begin Patch\n*** Add File: src/patched.txt\n+x\n*** Add File: ../outside2.txt\n+y\n*** End Patch\n"
		js, _ := json.Marshal(patch)
		return []clientCall{
			{Name: "exec", Freeform: "await tools.exec_command({cmd: 'echo hi > js.marker'});\nawait tools.apply_patch(" + string(js) + ");\ntext('ok');"},
			{Name: "apply_patch", Freeform: patch},
		}
	},
	"codex": func(p string) []clientCall {
		patch := "*** Begin Patch\n*** Add File: src/patched.txt\n+x\n*** Add File: ../outside.txt\n+y\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { }\n*** End Patch\n"
		return []clientCall{
			{Name: "exec_command", Args: map[string]any{"cmd": "echo hi > exec.marker"}},
			{Name: "exec_command", Args: map[string]any{"cmd": "echo hi > sub.marker", "workdir": p + "/src"}},
			{Name: "apply_patch", Freeform: patch},
			{Name: "apply_patch", Args: map[string]any{"input": patch}},
			{Name: "exec_command", Args: map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}},
			{Name: "exec_command", Args: map[string]any{"cmd": "python3 -i", "tty": true, "yield_time_ms": 500}},
			{Name: "write_stdin", Args: map[string]any{"session_id": "$SESSION", "chars": "open('stdin.marker','w').write('x')\n", "yield_time_ms": 500}},
			{Name: "view_image", Args: map[string]any{"path": p + "/README.md"}},
			{Name: "update_plan", Args: map[string]any{"plan": []any{map[string]any{"step": "a", "status": "pending"}}}},
			{Name: "shell", Args: map[string]any{"command": []any{"bash", "-lc", "echo hi > shell.marker"}}},
		}
	},
}
