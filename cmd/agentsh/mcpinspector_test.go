package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP inspector's CLI mode (npm @modelcontextprotocol/inspector, which
// .ci/run installs pinned) lists and calls agentsh mcp serve's tools over
// stdio and over streamable HTTP: a client agentsh did not write.

// inspectorClient is the MCP inspector, run in its CLI mode.
var inspectorClient = npmClient{env: "AGENTSH_MCP_INSPECTOR_DIR", pkg: "@modelcontextprotocol/inspector", node: true,
	bins: []string{"node_modules/.bin/mcp-inspector"}}

// inspected is one run of mcp-inspector --cli --format json.
type inspected struct {
	result json.RawMessage // stdout's "result"
	code   string          // stderr's error envelope "code", if any
	exit   int
	stderr string
}

// inspect runs the inspector CLI with args; its own files (catalog,
// client config, secrets) go under a temporary HOME.
func inspect(t *testing.T, bin string, args ...string) inspected {
	t.Helper()
	home := t.TempDir()
	cmd := exec.CommandContext(mcpCtx(t), bin, append([]string{"--cli", "--format", "json", "--connect-timeout", "60000"}, args...)...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_AUTO_OPEN_ENABLED=false", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	got := inspected{stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcp-inspector: %v", err)
	}
	if out := bytes.TrimSpace(stdout.Bytes()); len(out) > 0 {
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("mcp-inspector stdout is not one JSON object (%v):\n%s\nstderr: %s", err, out, got.stderr)
		}
		got.result = env.Result
	}
	// The error envelope is the last JSON line on stderr (a stdio
	// server's own stderr comes before it).
	lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(lines[len(lines)-1]), &env) == nil {
		got.code = env.Error.Code
	}
	return got
}

// agentshTarget is the inspector's arguments that start this test binary
// as agentsh mcp serve with args over stdio. The inspector passes a stdio
// server only the environment it is given with -e; after "--" the
// target's flags (--load) are not taken for the inspector's own.
func agentshTarget(t *testing.T, args ...string) []string {
	return append([]string{"-e", "AGENTSH_MAIN=1", "-e", "XDG_STATE_HOME=" + t.TempDir(), "-e", "GORACE=atexit_sleep_ms=0",
		"--", os.Args[0], "mcp", "serve"}, args...)
}

func (got inspected) tools(t *testing.T) map[string]*sdk.Tool {
	t.Helper()
	if got.exit != 0 {
		t.Fatalf("tools/list: exit %d (%s)\nstderr: %s", got.exit, got.code, got.stderr)
	}
	var res sdk.ListToolsResult
	if err := json.Unmarshal(got.result, &res); err != nil {
		t.Fatalf("tools/list result %s: %v", got.result, err)
	}
	m := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

// text is a tools/call result's text content and isError.
func (got inspected) text(t *testing.T) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(got.result, &res); err != nil {
		t.Fatalf("tools/call result %s: %v\nstderr: %s", got.result, err, got.stderr)
	}
	var parts []string
	for _, c := range res.Content {
		if c.Type != "text" {
			t.Errorf("content of type %q in %s", c.Type, got.result)
		}
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), res.IsError
}

// inspectorWorkdir is a work dir with notes.txt and secret.txt, and the
// serve policy (bash hidden, secrets not read) beside it.
func inspectorWorkdir(t *testing.T) (work, policy string) {
	dir := t.TempDir()
	work = filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello notes\n"), 0o644)
	os.WriteFile(filepath.Join(work, "secret.txt"), []byte("hunter2\n"), 0o644)
	policy = filepath.Join(dir, "policy.star")
	os.WriteFile(policy, []byte(servePolicy), 0o644)
	return work, policy
}

// checkInspectorTools checks the tools/list the inspector got from a
// server running servePolicy.
func checkInspectorTools(t *testing.T, tools map[string]*sdk.Tool) {
	t.Helper()
	if _, ok := tools["bash"]; ok {
		t.Error("bash is listed; the policy hides it")
	}
	for _, want := range []string{"read_file", "write_file", "edit_file", "grep", "artifact_read"} {
		if _, ok := tools[want]; !ok {
			t.Errorf("%s is not listed: %v", want, tools)
		}
	}
	if tl := tools["read_file"]; tl != nil {
		if a := tl.Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("read_file annotations: %+v, want readOnlyHint", a)
		}
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("read_file has no description or inputSchema: %+v", tl)
		}
	}
	if tl := tools["write_file"]; tl != nil {
		if a := tl.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Errorf("write_file annotations: %+v, want destructiveHint and not readOnlyHint", a)
		}
	}
}

// checkInspectorCalls calls read_file through the inspector, once on a
// file the policy lets through and once on one it denies.
func checkInspectorCalls(t *testing.T, call func(args string) inspected) {
	t.Helper()
	got := call(`{"path":"notes.txt"}`)
	if got.exit != 0 {
		t.Fatalf("read_file notes.txt: exit %d (%s)\nstderr: %s", got.exit, got.code, got.stderr)
	}
	if out, failed := got.text(t); failed || !strings.Contains(out, "hello notes") {
		t.Errorf("read_file notes.txt: %q (isError %v)", out, failed)
	}
	got = call(`{"path":"secret.txt"}`)
	// The inspector exits 5 (tool_is_error) on an isError result.
	if got.exit == 0 || got.code != "tool_is_error" {
		t.Errorf("read_file secret.txt: exit %d, code %q; want the inspector's tool_is_error", got.exit, got.code)
	}
	out, failed := got.text(t)
	if !failed || !strings.Contains(out, "error (rejected)") || !strings.Contains(out, "secrets stay put") {
		t.Errorf("read_file secret.txt: %q (isError %v), want the policy's denial", out, failed)
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("the denied read returned the secret: %q", out)
	}
}

func TestMCPInspectorStdio(t *testing.T) {
	bin := inspectorClient.find(t)
	t.Parallel() // the inspector's runs wait on Node.js starting
	work, policy := inspectorWorkdir(t)
	target := func() []string { return agentshTarget(t, "--workdir", work, "--load", policy) }

	checkInspectorTools(t, inspect(t, bin, append([]string{"--method", "tools/list"}, target()...)...).tools(t))
	checkInspectorCalls(t, func(args string) inspected {
		return inspect(t, bin, append([]string{"--method", "tools/call", "--tool-name", "read_file", "--tool-args-json", args}, target()...)...)
	})
	// A hidden tool is not there to call.
	got := inspect(t, bin, append([]string{"--method", "tools/call", "--tool-name", "bash", "--tool-args-json", `{"command":"true"}`}, target()...)...)
	if got.exit == 0 || got.code != "tool_not_found" {
		t.Errorf("calling the hidden bash: exit %d, code %q, result %s; want tool_not_found", got.exit, got.code, got.result)
	}
}

func TestMCPInspectorHTTP(t *testing.T) {
	bin := inspectorClient.find(t)
	t.Parallel() // the inspector's runs wait on Node.js starting
	work, policy := inspectorWorkdir(t)
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("tok-inspector-42\n"), 0o600)
	url := serveHTTP(t, "--workdir", work, "--load", policy, "--token-file", token)
	server := func(tok string) []string {
		return []string{"--transport", "http", "--server-url", url, "--stored-auth-only", "--header", "Authorization: Bearer " + tok}
	}

	checkInspectorTools(t, inspect(t, bin, append(server("tok-inspector-42"), "--method", "tools/list")...).tools(t))
	checkInspectorCalls(t, func(args string) inspected {
		return inspect(t, bin, append(server("tok-inspector-42"), "--method", "tools/call", "--tool-name", "read_file", "--tool-args-json", args)...)
	})
	// A wrong token gets 401, which the inspector reports as needing auth.
	for _, tok := range []string{"wrong", "tok-inspector-4"} {
		got := inspect(t, bin, append(server(tok), "--method", "tools/call", "--tool-name", "read_file", "--tool-args-json", `{"path":"notes.txt"}`)...)
		if got.exit == 0 || got.code != "auth_required" || len(got.result) > 0 {
			t.Errorf("token %q: exit %d, code %q, result %s; want the inspector's auth_required and no result", tok, got.exit, got.code, got.result)
		}
	}
}
