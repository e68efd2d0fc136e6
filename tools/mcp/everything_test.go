package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// everythingEnv names a directory where the reference server is installed:
//
//	npm install --prefix DIR @modelcontextprotocol/server-everything
const everythingEnv = "AGENTSH_MCP_EVERYTHING_DIR"

const everythingHint = "install the reference server with `npm install --prefix DIR @modelcontextprotocol/server-everything` and set " +
	everythingEnv + "=DIR"

// everythingConfig finds the npm reference server, or skips the test.
func everythingConfig(t *testing.T) ServerConfig {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH; the MCP reference server runs on Node.js. Then " + everythingHint)
	}
	if dir := os.Getenv(everythingEnv); dir != "" {
		bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
		if _, err := os.Stat(bin); err != nil {
			t.Skipf("%s=%s but %s is missing: %s", everythingEnv, dir, bin, everythingHint)
		}
		return ServerConfig{Name: "everything", Command: []string{bin, "stdio"}}
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip(everythingEnv + " is not set and npx is not on PATH: " + everythingHint)
	}
	// Only a copy that is already installed or cached: tests never fetch.
	return ServerConfig{Name: "everything",
		Command: []string{npx, "--no-install", "@modelcontextprotocol/server-everything", "stdio"},
		Env:     []string{"npm_config_offline=true", "npm_config_update_notifier=false"}}
}

func TestEverythingServer(t *testing.T) {
	cfg := everythingConfig(t)
	reg := core.NewRegistry()
	c := NewClient(reg)
	defer c.Close()
	names, err := c.Add(ctxT(t), cfg)
	if err != nil {
		if os.Getenv(everythingEnv) == "" {
			t.Skipf("the reference server is not available offline through npx (%v): %s", err, everythingHint)
		}
		t.Fatal(err)
	}
	t.Logf("registered %d tools: %s", len(names), strings.Join(names, " "))
	for _, n := range names {
		if !strings.HasPrefix(n, "mcp__everything__") || !core.ValidToolName(n) {
			t.Errorf("tool name %q", n)
		}
	}
	pick := func(what string, candidates ...string) string {
		for _, want := range candidates {
			for _, n := range names {
				if n == "mcp__everything__"+want {
					return n
				}
			}
		}
		t.Fatalf("no %s tool among %q", what, names)
		return ""
	}
	echo := pick("echo", "echo")
	add := pick("addition", "get-sum", "add")
	image := ""
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), "image") && (image == "" || strings.Contains(strings.ToLower(n), "tiny")) {
			image = n
		}
	}
	if image == "" {
		t.Fatalf("no image tool among %q", names)
	}

	// The reference server annotates echo readOnlyHint: a hint, shown and
	// not believed. A model's call of it asks.
	if d, ok := c.Definition(echo); !ok || d.Hints() == nil || !d.Hints().ReadOnlyHint {
		t.Errorf("%s: the server's readOnlyHint is not visible: %+v", echo, d)
	}
	if reg.GetTool(echo).ReadOnly {
		t.Errorf("%s is read-only by the server's word alone", echo)
	}
	e := executor.New(reg, executor.WithValidateArguments(true))
	if r := e.Invoke(ctxT(t), core.Call{Name: echo, Args: json.RawMessage(`{"message":"x"}`), Origin: core.OriginModel}); !errors.Is(r.Err, core.ErrNeedsApproval) {
		t.Errorf("a model's call of %s: %s %v, want rejected: needs approval", echo, r.Kind(), r.Err)
	}

	res := invoke(t, e, echo, `{"message":"hello from agentsh"}`)
	if res.Err != nil || !strings.Contains(res.ForLLM, "hello from agentsh") {
		t.Fatalf("echo: %q, %v", res.ForLLM, res.Err)
	}
	// The server's schema is enforced before the call leaves agentsh.
	if res := invoke(t, e, echo, `{}`); res.Kind() != core.KindInvalidArguments {
		t.Fatalf("echo without its message: kind %q (%v), want invalid_arguments", res.Kind(), res.Err)
	}

	res = invoke(t, e, add, `{"a":2,"b":40}`)
	if res.Err != nil || !strings.Contains(res.ForLLM, "42") {
		t.Fatalf("%s: %q, %v", add, res.ForLLM, res.Err)
	}

	res = invoke(t, e, image, `{}`)
	if res.Err != nil {
		t.Fatalf("%s: %v", image, res.Err)
	}
	var img *core.Block
	for i := range res.Blocks {
		if res.Blocks[i].Type == "image" {
			img = &res.Blocks[i]
		}
	}
	if img == nil || !strings.HasPrefix(img.MIMEType, "image/") || len(img.Data) == 0 {
		t.Fatalf("%s: blocks %+v, want an image", image, res.Blocks)
	}
	if img.MIMEType == "image/png" && !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Fatalf("%s: the PNG block does not hold PNG bytes", image)
	}

	// An embedded text resource is text; a tool's own error fails the call.
	if ref := "mcp__everything__get-resource-reference"; reg.GetTool(ref) != nil {
		res = invoke(t, e, ref, `{"resourceType":"Text","resourceId":1}`)
		if res.Err != nil || !strings.Contains(res.ForLLM, "Resource 1") {
			t.Errorf("%s: %q, %v", ref, res.ForLLM, res.Err)
		}
		res = invoke(t, e, ref, `{"resourceType":"Text","resourceId":-1}`)
		if res.Kind() != core.KindFailed || !strings.Contains(res.Err.Error(), "resourceId") {
			t.Errorf("%s with a bad id: kind %q, %v; want failed", ref, res.Kind(), res.Err)
		}
	}

	// A deadline cancels a long operation; the session stays usable.
	if long := "mcp__everything__trigger-long-running-operation"; reg.GetTool(long) != nil {
		ctx, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
		r, _ := e.InvokeTool(ctx, long, json.RawMessage(`{"duration":30,"steps":3}`))
		cancel()
		if r.Kind() != core.KindTimeout {
			t.Errorf("%s past its deadline: kind %q, %v; want timeout", long, r.Kind(), r.Err)
		}
	}

	// Parallel calls share the one session.
	var calls []core.Call
	for i := range 8 {
		calls = append(calls, core.Call{Name: echo, Args: json.RawMessage(fmt.Sprintf(`{"message":"m%d"}`, i))})
	}
	for i, r := range e.ExecuteAll(ctxT(t), calls, executor.InMode(executor.ModeParallel)) {
		if r.Err != nil || !strings.Contains(r.ForLLM, fmt.Sprintf("m%d", i)) {
			t.Errorf("parallel echo %d: %q, %v", i, r.ForLLM, r.Err)
		}
	}
}
