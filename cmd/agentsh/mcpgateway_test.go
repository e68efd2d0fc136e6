package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// everythingBin finds the npm reference server that .ci/run installs
// (AGENTSH_MCP_EVERYTHING_DIR), or skips.
func everythingBin(t testing.TB) string {
	bin, missing := findEverything()
	if missing != "" {
		t.Skip(missing)
	}
	return bin
}

// findEverything finds the npm reference server, or says why not.
func findEverything() (bin, missing string) {
	dir := os.Getenv("AGENTSH_MCP_EVERYTHING_DIR")
	if dir == "" {
		return "", "AGENTSH_MCP_EVERYTHING_DIR is not set: install the reference server with `npm install --prefix DIR @modelcontextprotocol/server-everything` and set it to DIR"
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not on PATH; the MCP reference server runs on Node.js"
	}
	bin = filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Sprintf("%s is missing: install @modelcontextprotocol/server-everything into %s", bin, dir)
	}
	return bin, ""
}

const gatewayPolicy = `
on("list_tools", lambda tool: tool.name != "mcp__everything__get-env")

def no_secret_echo(call):
    if "secret" in call.args.get("message", ""):
        return deny("no secrets through echo")
    return allow("echo is harmless")
before(no_secret_echo, tools = ["mcp__everything__echo"])
`

func TestMCPGatewayEverything(t *testing.T) {
	bin := everythingBin(t)
	dir := t.TempDir()
	policy := filepath.Join(dir, "gateway.star")
	os.WriteFile(policy, []byte(gatewayPolicy), 0o644)
	cs := serveStdio(t, nil, "--no-builtins", "--load", policy, "--pins", filepath.Join(dir, "pins.json"),
		"--mcp", "everything="+bin+" stdio")
	tools := toolNames(t, cs)
	if _, ok := tools["mcp__everything__echo"]; !ok {
		t.Fatalf("echo is not listed: %v", tools)
	}
	if _, ok := tools["mcp__everything__get-env"]; ok {
		t.Fatal("get-env is listed; the policy hides it")
	}
	if out, failed := callText(t, cs, "mcp__everything__echo", map[string]any{"message": "hello"}); failed || !strings.Contains(out, "hello") {
		t.Fatalf("echo: %q (failed %v)", out, failed)
	}
	out, failed := callText(t, cs, "mcp__everything__echo", map[string]any{"message": "my secret"})
	if !failed || !strings.Contains(out, "no secrets through echo") {
		t.Fatalf("echo secret: %q (failed %v), want the policy's denial", out, failed)
	}
	if _, err := os.Stat(filepath.Join(dir, "pins.json")); err != nil {
		t.Fatalf("the upstream tools were not pinned: %v", err)
	}
}
