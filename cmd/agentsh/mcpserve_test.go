package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/bashcmd"
	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
	"github.com/agentsh/agentsh/tools/mcp/serve"
)

// serveCmd is agentsh (this test binary) with args.
func serveCmd(t testing.TB, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "XDG_STATE_HOME="+t.TempDir())
	return cmd
}

func mcpCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// serveStdio starts agentsh mcp serve with args and connects to it.
func serveStdio(t testing.TB, opts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := serveCmd(t, append([]string{"mcp", "serve"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, opts).Connect(mcpCtx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t testing.TB, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(mcpCtx(t), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func toolNames(t testing.TB, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(mcpCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

const servePolicy = `
def listed(tool):
    return tool.name != "bash"
on("list_tools", listed)

def no_secrets(call):
    if "secret" in call.args.get("path", ""):
        return deny("secrets stay put")
before(no_secrets, tools = ["read_file"])
print("policy loaded")
`

func TestMCPServeStdio(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello notes\n"), 0o644)
	os.WriteFile(filepath.Join(work, "secret.txt"), []byte("hunter2\n"), 0o644)
	policy := filepath.Join(dir, "policy.star")
	os.WriteFile(policy, []byte(servePolicy), 0o644)
	events := filepath.Join(dir, "events.jsonl")
	auditLog := filepath.Join(dir, "audit.jsonl")

	cs := serveStdio(t, nil, "--workdir", work, "--load", policy, "--events", events, "--audit", auditLog)
	tools := toolNames(t, cs)
	if _, ok := tools["bash"]; ok {
		t.Error("bash is listed; the policy hides it")
	}
	for _, want := range []string{"read_file", "write_file", "artifact_read"} {
		if _, ok := tools[want]; !ok {
			t.Errorf("%s is not listed: %v", want, tools)
		}
	}
	if a := tools["write_file"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint {
		t.Errorf("write_file annotations: %+v", tools["write_file"].Annotations)
	}
	if a := tools["read_file"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("read_file annotations: %+v", tools["read_file"].Annotations)
	}
	if out, failed := callText(t, cs, "read_file", map[string]any{"path": "notes.txt"}); failed || !strings.Contains(out, "hello notes") {
		t.Errorf("read_file: %q (failed %v)", out, failed)
	}
	if out, failed := callText(t, cs, "read_file", map[string]any{"path": "secret.txt"}); !failed || !strings.Contains(out, "error (rejected)") || !strings.Contains(out, "secrets stay put") {
		t.Errorf("read_file secret: %q (failed %v), want the policy's denial", out, failed)
	}
	// A model's write asks; this client cannot be asked, --approve never.
	out, failed := callText(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "x"})
	if !failed || !strings.Contains(out, "needs approval") {
		t.Errorf("write_file: %q (failed %v), want needs approval", out, failed)
	}
	if _, err := os.Stat(filepath.Join(work, "new.txt")); err == nil {
		t.Error("the refused write happened")
	}
	if _, err := cs.CallTool(mcpCtx(t), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "true"}}); err == nil {
		t.Error("the hidden bash could be called")
	}
	_ = cs.Close()
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	var ends int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events line %q: %v", line, err)
		}
		if ev["event"] == "tool_end" {
			ends++
			if _, ok := ev["decisions"]; !ok && ev["tool"] == "write_file" {
				t.Errorf("tool_end without decisions: %s", line)
			}
		}
	}
	if ends != 3 {
		t.Errorf("got %d tool_end events, want 3:\n%s", ends, b)
	}
	// --audit: a record of each call, as an MCP client's.
	b, err = os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Via     string
			Call    struct{ Tool, Origin string }
			Outcome struct{ Verdict string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		calls = append(calls, fmt.Sprintf("%s %s %s %s", rec.Via, rec.Call.Origin, rec.Call.Tool, rec.Outcome.Verdict))
	}
	if want := "mcp serve mcp read_file allow|mcp serve mcp read_file deny|mcp serve mcp write_file deny"; strings.Join(calls, "|") != want {
		t.Errorf("audit records %q, want %q", calls, want)
	}
}

func TestMCPServeElicitation(t *testing.T) {
	work := t.TempDir()
	answer := "decline"
	cs := serveStdio(t, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: answer}, nil
	}}, "--workdir", work)
	if out, failed := callText(t, cs, "write_file", map[string]any{"path": "a.txt", "content": "A"}); !failed || !strings.Contains(out, "declined") {
		t.Fatalf("declined: %q (failed %v)", out, failed)
	}
	answer = "accept"
	if out, failed := callText(t, cs, "write_file", map[string]any{"path": "a.txt", "content": "A"}); failed {
		t.Fatalf("accepted: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "A" {
		t.Fatalf("a.txt holds %q after the accepted write", b)
	}
}

func TestMCPServeScriptApproverWins(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "approve.star")
	os.WriteFile(policy, []byte(`on("approve", lambda req: deny("the script says no"))`+"\n"), 0o644)
	asked := false
	cs := serveStdio(t, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = true
		return &sdk.ElicitResult{Action: "accept"}, nil
	}}, "--workdir", dir, "--load", policy)
	out, failed := callText(t, cs, "write_file", map[string]any{"path": "a.txt", "content": "A"})
	if !failed || !strings.Contains(out, "the script says no") || asked {
		t.Fatalf("got %q (failed %v, client asked %v), want the script's approver to refuse without asking", out, failed, asked)
	}
}

// serveHTTP starts agentsh mcp serve --listen and returns its URL.
func serveHTTP(t testing.TB, args ...string) string {
	t.Helper()
	cmd := serveCmd(t, append([]string{"mcp", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "agentsh: serving MCP on "); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return u
		}
	}
	t.Fatal("agentsh mcp serve --listen said nothing about its address")
	return ""
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPServeHTTP(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("tok-123\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("over http\n"), 0o644)
	url := serveHTTP(t, "--workdir", dir, "--token-file", token)
	connect := func(tok string) (*sdk.ClientSession, error) {
		return sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(mcpCtx(t),
			&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenTransport{tok}}, MaxRetries: -1}, nil)
	}
	if cs, err := connect("wrong"); err == nil {
		cs.Close()
		t.Fatal("a wrong token connected")
	}
	cs, err := connect("tok-123")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if out, failed := callText(t, cs, "read_file", map[string]any{"path": "f.txt"}); failed || !strings.Contains(out, "over http") {
		t.Fatalf("read_file over HTTP: %q (failed %v)", out, failed)
	}
}

func TestMCPServeRefusesOpenAddress(t *testing.T) {
	cmd := serveCmd(t, "mcp", "serve", "--listen", "0.0.0.0:0")
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(b), "--token-file") {
		t.Fatalf("got %s (%v), want exit 2 naming --token-file", b, err)
	}
	cmd = serveCmd(t, "mcp", "frobnicate")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "agentsh mcp serve") {
		t.Fatalf("unknown subcommand: %s %v", b, err)
	}
}

// TestMCPServeStdioHostile: over stdio, with deny_patterns.star, calls
// built to exhaust the shell analysis are decided (asked about, so
// refused for a client that cannot be asked) and a line over the limit
// is answered with an error; the server goes on answering after each.
func TestMCPServeStdioHostile(t *testing.T) {
	cmd := serveCmd(t, "mcp", "serve", "--workdir", t.TempDir(), "--load", "../../scripts/policies/deny_patterns.star")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("writing %.60q: %v\nstderr: %s", line, err, stderr.String())
		}
	}
	// answer reads messages until the one with id (nil: an error without
	// one), skipping notifications.
	answer := func(id any) map[string]any {
		t.Helper()
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("the server wrote %.200q: %v", lines.Text(), err)
			}
			if got, ok := m["id"]; ok && got == id {
				return m
			}
		}
		t.Fatalf("the server ended before answering %v: %v\nstderr: %s", id, lines.Err(), stderr.String())
		return nil
	}
	request := func(id int, method string, params any) string {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	send(request(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "0"}}))
	answer(1.0)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	listed := func(id int) {
		t.Helper()
		send(request(id, "tools/list", nil))
		if m := answer(float64(id)); m["result"] == nil {
			t.Fatalf("tools/list after the hostile line: %.300v", m)
		}
	}
	id := 10
	var cases []bashcmdtest.HostileCase
	for _, c := range bashcmdtest.Hostile(1 << 20) {
		if c.Name == "pipeline" || c.Name == "substitutions" {
			cases = append(cases, c)
		}
	}
	cases = append(cases, bashcmdtest.Hostile(bashcmd.MaxLength-64)...)
	for _, c := range cases {
		id++
		send(request(id, "tools/call", map[string]any{"name": "bash", "arguments": map[string]any{"command": c.Cmd}}))
		m := answer(float64(id))
		res, _ := m["result"].(map[string]any)
		if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "cannot tell what this command runs: cannot read the command line: ") {
			t.Errorf("%s of %d bytes: %.300v, want a refusal that the command line cannot be read", c.Name, len(c.Cmd), m)
		}
		id++
		listed(id)
	}
	// A line over the limit, then one more request.
	long := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big","content":"` +
		strings.Repeat("x", serve.MaxMessageBytes) + `"}}}`
	send(long)
	m := answer(nil)
	e, _ := m["error"].(map[string]any)
	want := fmt.Sprintf("the message is %d bytes long, over the limit of %d bytes", len(long), serve.MaxMessageBytes)
	if e == nil || e["code"] != -32600.0 || !strings.Contains(fmt.Sprint(e["message"]), want) {
		t.Fatalf("a line of %d bytes: %v, want an error saying %q", len(long), m, want)
	}
	listed(100)
}
