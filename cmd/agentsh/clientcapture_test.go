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
	// Namespace is the namespace of a Codex function (clock for its
	// sleep), "" for none.
	Namespace string
}

// clientModel is what the three scripted endpoints share: the calls to
// make in order (the next one after as many results as the conversation
// holds), and the body of every main-loop request (Claude Code's and
// Gemini CLI's offer their shell tool; their side requests for a title or
// a summary are answered and not kept).
type clientModel struct {
	calls []clientCall

	mu     sync.Mutex
	bodies [][]byte
}

func (m *clientModel) record(body []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies = append(m.bodies, body)
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
	main := false
	for _, t := range req.Tools {
		main = main || t.Name == "Bash"
	}
	if !main {
		writeMessage(w, req.Stream, nil, "ok")
		return
	}
	m.record(body)
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
	main := false
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			main = main || f.Name == "run_shell_command"
		}
	}
	part := map[string]any{"text": "ok"}
	if main {
		m.record(body)
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
		Input []struct {
			Type   string
			Output json.RawMessage
		}
	}
	json.Unmarshal(body, &req)
	m.record(body)
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
			if c.Namespace != "" {
				item["namespace"] = c.Namespace
			}
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
}

// runClient runs the named client ("claude-code", "gemini", "codex") in a
// temp project (root/project, with HOME root/home) against a scripted
// model making calls. setup, when set, runs once the client's own
// settings are written (the model's address, Gemini CLI's auth): it may
// add files to the project, and install hooks there (root is the
// project's parent). hookCommand, when set, is a hand-written pre-tool
// hook entry (given root) for every tool. Any permission prompts of the
// client's own are off. A client named "codex:MODEL" is Codex told its
// model is MODEL, which decides the tools Codex offers ("codex" is an
// unknown model, scripted).
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
	default:
		t.Fatalf("runClient: unknown client %q", client)
	}
	root := t.TempDir()
	run := &clientRun{root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project")}
	run.model = &clientModel{calls: calls(run.project)}
	for _, d := range []string{run.home, run.project, filepath.Join(run.home, ".gemini")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := []string{"HOME=" + run.home, "TMPDIR=" + root, "XDG_CONFIG_HOME=" + filepath.Join(run.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(run.home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(run.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(run.home, ".local", "state"), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0"}
	var (
		cmd   *exec.Cmd
		entry func(hook string) // writes the hand-written hook entry
	)
	switch client {
	case "claude-code":
		srv := httptest.NewServer(claudeEndpoint{run.model})
		defer srv.Close()
		entry = func(hook string) {
			writeJSON(t, filepath.Join(run.project, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "timeout": 60, "command": hook}}}}}})
		}
		cmd = exec.CommandContext(ctx, bin, "-p", "do the task", "--output-format", "stream-json", "--verbose",
			"--max-turns", "60", "--model", "claude-sonnet-4-5", "--permission-mode", "bypassPermissions")
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-test-dummy",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "IS_SANDBOX=1")
	case "gemini":
		srv := httptest.NewServer(geminiEndpoint{run.model})
		defer srv.Close()
		settings := filepath.Join(run.home, ".gemini", "settings.json")
		writeJSON(t, settings, geminiQuiet(map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}))
		entry = func(hook string) {
			editJSON(t, settings, func(m map[string]any) {
				m["hooks"] = map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*",
					"hooks": []any{map[string]any{"name": "agentsh", "type": "command", "command": hook, "timeout": 60000}}}}}
			})
		}
		cmd = exec.CommandContext(ctx, bin, "-p", "do the task", "--output-format", "stream-json",
			"--model", "gemini-2.5-flash", "--skip-trust", "--approval-mode", "yolo")
		env = append(env, "PATH="+os.Getenv("PATH"), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(root, "system-settings.json"),
			"GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_API_KEY=test-dummy", geminiNoRelaunch)
	case "codex":
		srv := httptest.NewServer(codexEndpoint{run.model})
		defer srv.Close()
		config := fmt.Sprintf("model = \"%s\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"%s/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n", model, srv.URL)
		if err := os.WriteFile(filepath.Join(run.home, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		entry = func(hook string) {
			writeJSON(t, filepath.Join(run.home, "hooks.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "timeout": 60, "command": hook}}}}}})
		}
		cmd = exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "--ephemeral",
			"--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", "do the task")
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin", "CODEX_HOME="+run.home, "SCRIPTED_API_KEY=sk-test-dummy")
	}
	if setup != nil {
		setup(run.project)
	}
	if hookCommand != nil {
		entry(hookCommand(root))
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

// everythingServer is the name the MCP reference server has in the
// clients' settings that addEverything writes.
const everythingServer = "ev"

// addEverything makes the MCP reference server at bin an MCP server of
// client, in the temp root's settings (HOME is root/home), as a person
// adds one: Claude Code's ~/.claude.json, Gemini CLI's settings.json,
// Codex's config.toml (required, so that Codex waits for it before its
// first request, as Gemini CLI does; Claude Code's ToolSearch waits).
func addEverything(t *testing.T, client, root, bin string) {
	t.Helper()
	home := filepath.Join(root, "home")
	switch client, _, _ := strings.Cut(client, ":"); client {
	case "claude-code":
		editJSON(t, filepath.Join(home, ".claude.json"), func(m map[string]any) {
			m["mcpServers"] = map[string]any{everythingServer: map[string]any{"type": "stdio", "command": bin, "args": []any{"stdio"}}}
		})
	case "gemini":
		editJSON(t, filepath.Join(home, ".gemini", "settings.json"), func(m map[string]any) {
			m["mcpServers"] = map[string]any{everythingServer: map[string]any{"command": bin, "args": []any{"stdio"}, "trust": true}}
		})
	case "codex":
		f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "\n[mcp_servers.%s]\ncommand = %q\nargs = [\"stdio\"]\nrequired = true\n", everythingServer, bin); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpEcho are the calls of the MCP reference server's echo tool with
// message, in client's own form of an MCP tool's name (Claude Code loads
// it through ToolSearch first; Codex's code mode calls it from exec).
func mcpEcho(client, message string) []clientCall {
	switch client {
	case "claude-code":
		echo := "mcp__" + everythingServer + "__echo"
		return []clientCall{{Name: "ToolSearch", Args: map[string]any{"query": "select:" + echo}},
			{Name: echo, Args: map[string]any{"message": message}}}
	case "gemini":
		return []clientCall{{Name: "mcp_" + everythingServer + "_echo", Args: map[string]any{"message": message}}}
	case "codex":
		return []clientCall{{Name: "echo", Namespace: "mcp__" + everythingServer, Args: map[string]any{"message": message}}}
	case "codex:gpt-6.2-sol":
		return []clientCall{{Name: "exec", Freeform: "await tools.mcp__" + everythingServer + "__echo({message: " + jsString(message) + "});\ntext('ok');"}}
	}
	return nil
}

// editJSON changes the JSON object in path with edit.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	m := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	edit(m)
	writeJSON(t, path, m)
}

// recordingHook is a hook command that keeps each event it is given in
// root/events, in order, with the directory it ran in, and answers
// nothing.
func recordingHook(root string) string {
	dir := filepath.Join(root, "events")
	os.MkdirAll(dir, 0o755)
	d := hookadapter.ShellQuote(dir)
	return "n=$(ls " + d + " | wc -l); f=" + d + "/$(printf %04d $n); pwd > $f.pwd; cat > $f.json"
}

// recorded reads the events recordingHook kept, and the directories the
// hook ran in.
func (r *clientRun) recorded(t *testing.T) (events []json.RawMessage, dirs []string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(r.root, "events", "*.json"))
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, bytes.TrimSpace(b))
		b, err = os.ReadFile(strings.TrimSuffix(n, ".json") + ".pwd")
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, strings.TrimSpace(string(b)))
	}
	return events, dirs
}

// TestCaptureClientEvents records, with AGENTSH_CAPTURE=DIR set, what each
// pinned client offers its model and the hook events its tools send (and
// its MCP tools', with the MCP reference server as its MCP server), into
// DIR/CLIENT/ (codex:MODEL into codex-MODEL): offered.json, the tools
// offered under the names hooks report them by, and events.jsonl, one
// event a line, the temp root replaced by $ROOT. AGENTSH_CAPTURE_RAW=1
// adds the request bodies and what the client printed.
// testdata/hookevents holds what it recorded.
func TestCaptureClientEvents(t *testing.T) {
	out := os.Getenv("AGENTSH_CAPTURE")
	if out == "" {
		t.Skip("AGENTSH_CAPTURE is not set; set it to a directory to record the clients' hook events")
	}
	everything, missing := findEverything()
	if missing != "" {
		t.Logf("the clients run without an MCP server, so no MCP tool is recorded: %s", missing)
	}
	for client, calls := range captureCalls {
		if only := os.Getenv("AGENTSH_CAPTURE_CLIENT"); only != "" && only != client {
			continue
		}
		t.Run(client, func(t *testing.T) {
			setup := func(project string) {
				captureSetup(project)
				if everything != "" {
					addEverything(t, client, filepath.Dir(project), everything)
				}
			}
			withMCP := func(project string) []clientCall {
				if everything == "" {
					return calls(project)
				}
				return append(calls(project), mcpEcho(client, "hi")...)
			}
			run := runClient(t, client, withMCP, recordingHook, setup)
			dir := filepath.Join(out, strings.ReplaceAll(client, ":", "-"))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// Claude Code names a project's folder by its path with every
			// / and . a -.
			dashed := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(run.root, "-")
			anon := strings.NewReplacer(run.root, "$ROOT", dashed, "-ROOT")
			if everything != "" {
				anon = strings.NewReplacer(run.root, "$ROOT", dashed, "-ROOT", everything, "$MCP_SERVER")
			}
			write := func(name string, b []byte) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(anon.Replace(string(b))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(run.model.bodies) == 0 {
				t.Fatalf("%s made no main-loop request:\n%s", client, run.output)
			}
			offered, err := offeredTools(client, run.model.bodies[0])
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(offered, "", "  ")
			write("offered.json", append(b, '\n'))
			events, dirs := run.recorded(t)
			var lines []byte
			for i, ev := range events {
				// Every client runs its hooks in the project, whatever the
				// event's cwd: the hook's workdir.
				if dirs[i] != run.project {
					t.Errorf("event %d: the hook ran in %s, not the project %s", i, dirs[i], run.project)
				}
				lines = append(append(lines, ev...), '\n')
			}
			write("events.jsonl", lines)
			if os.Getenv("AGENTSH_CAPTURE_RAW") != "" {
				for i, b := range run.model.bodies {
					write(fmt.Sprintf("request-%02d.json", i), b)
				}
				write("output.txt", []byte(run.output))
			}
		})
	}
}

// captureSetup gives the project files the captured calls read and edit.
func captureSetup(project string) {
	for name, content := range map[string]string{
		"src/main.go":    mainGo,
		"README.md":      readme,
		".env":           "TOKEN=decoy\n",
		"notebook.ipynb": notebook,
	} {
		p := filepath.Join(project, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
}

// captureCalls are the calls whose hook events are recorded, per client,
// given the project directory: each kind of tool once (shell, file,
// patch, notebook, monitor, web, task list), in the forms the clients
// send. Every one stays in the temp project or touches a marker there;
// what writes outside writes beside it, in the temp root.
var captureCalls = map[string]func(p string) []clientCall{
	"claude-code": func(p string) []clientCall {
		return []clientCall{
			{Name: "ToolSearch", Args: map[string]any{"query": "select:NotebookEdit,Monitor,WebFetch,WebSearch,TaskCreate"}},
			{Name: "Bash", Args: map[string]any{"command": "echo hi > bash.marker", "description": "write a marker"}},
			{Name: "Monitor", Args: map[string]any{"command": "echo tick > monitor.marker", "description": "tick", "timeout_ms": 5000}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/README.md"}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/.env"}},
			{Name: "Write", Args: map[string]any{"file_path": p + "/src/new.txt", "content": "x\n"}},
			{Name: "Write", Args: map[string]any{"file_path": "src/relative.txt", "content": "x\n"}},
			{Name: "Write", Args: map[string]any{"file_path": p + "/../outside.txt", "content": "x\n"}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/src/main.go"}},
			{Name: "Edit", Args: map[string]any{"file_path": p + "/src/main.go", "old_string": "func main() {}", "new_string": "func main() { }"}},
			{Name: "Read", Args: map[string]any{"file_path": p + "/notebook.ipynb"}},
			{Name: "NotebookEdit", Args: map[string]any{"notebook_path": p + "/notebook.ipynb", "cell_id": "c1", "new_source": "print(2)"}},
			{Name: "WebFetch", Args: map[string]any{"url": "http://127.0.0.1:9/x", "prompt": "summarize"}},
			{Name: "WebSearch", Args: map[string]any{"query": "agentsh"}},
			{Name: "TaskCreate", Args: map[string]any{"subject": "a", "description": "do a"}},
		}
	},
	"gemini": func(p string) []clientCall {
		return []clientCall{
			{Name: "run_shell_command", Args: map[string]any{"command": "echo hi > shell.marker", "description": "marker"}},
			{Name: "run_shell_command", Args: map[string]any{"command": "echo hi > sub.marker", "dir_path": "src"}},
			{Name: "read_file", Args: map[string]any{"file_path": "README.md"}},
			{Name: "read_file", Args: map[string]any{"file_path": p + "/README.md"}},
			{Name: "write_file", Args: map[string]any{"file_path": "src/new.txt", "content": "x\n"}},
			{Name: "write_file", Args: map[string]any{"file_path": p + "/src/abs.txt", "content": "x\n"}},
			{Name: "replace", Args: map[string]any{"file_path": "src/main.go", "old_string": "func main() {}", "new_string": "func main() { }", "instruction": "space"}},
			{Name: "list_directory", Args: map[string]any{"dir_path": "src"}},
			{Name: "glob", Args: map[string]any{"pattern": "**/*.go"}},
			{Name: "grep_search", Args: map[string]any{"pattern": "main", "dir_path": "src"}},
			{Name: "web_fetch", Args: map[string]any{"prompt": "summarize http://127.0.0.1:9/x"}},
			{Name: "google_web_search", Args: map[string]any{"query": "agentsh"}},
			{Name: "write_todos", Args: map[string]any{"todos": []any{map[string]any{"description": "a", "status": "pending"}}}},
		}
	},
	"codex:gpt-6.2-sol": func(p string) []clientCall {
		patch := "*** Begin Patch\n*** Add File: src/patched.txt\n+x\n*** Add File: ../outside2.txt\n+y\n*** End Patch\n"
		js, _ := json.Marshal(patch)
		return []clientCall{
			{Name: "exec", Freeform: "await tools.exec_command({cmd: 'echo hi > js.marker'});\nawait tools.apply_patch(" + string(js) + ");\n" +
				"await tools.clock__curr_time({});\nawait tools.view_image({path: " + jsString(p+"/README.md") + "});\ntext('ok');"},
			{Name: "apply_patch", Freeform: patch},
			{Name: "sleep", Namespace: "clock", Args: map[string]any{"duration_ms": 1}},
		}
	},
	"codex": func(p string) []clientCall {
		patch := "*** Begin Patch\n*** Add File: src/patched.txt\n+x\n*** Add File: ../outside.txt\n+y\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { }\n*** End Patch\n"
		return []clientCall{
			{Name: "exec_command", Args: map[string]any{"cmd": "echo hi > exec.marker"}},
			{Name: "exec_command", Args: map[string]any{"cmd": "echo hi > sub.marker", "workdir": p + "/src"}},
			{Name: "exec_command", Args: map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}},
			{Name: "exec_command", Args: map[string]any{"cmd": "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: cd.txt\n+x\n*** End Patch\nEOF\n"}},
			{Name: "view_image", Args: map[string]any{"path": p + "/README.md"}},
			{Name: "create_goal", Args: map[string]any{"objective": "write the markers"}},
			{Name: "get_goal", Args: map[string]any{}},
			{Name: "wait_agent", Namespace: "multi_agent_v1", Args: map[string]any{"timeout_ms": 10000}},
		}
	},
}
