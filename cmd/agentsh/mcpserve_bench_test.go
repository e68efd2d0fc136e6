package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/internal/mcpbench"
)

// Round trips of tools/call through a real agentsh mcp serve process (this
// test binary as agentsh), and what the gateway adds to an upstream call.
// scripts/bench/mcp-serve.sh runs these and prints the medians.

// lookTool is a read-only script tool that answers at once: the call
// measures the protocol, the transport and the pipeline, not a tool.
const lookTool = `tool(name = "look", fn = lambda args: "seen", read_only = True, description = "Answers seen.",
     parameters = {"type": "object", "properties": {}})
`

// BenchmarkMCPServeCall: over stdio each client starts its own agentsh
// mcp serve (stdio has one client per process); over HTTP the clients
// share one server.
func BenchmarkMCPServeCall(b *testing.B) {
	tools := filepath.Join(b.TempDir(), "look.star")
	if err := os.WriteFile(tools, []byte(lookTool), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"--no-builtins", "--load", tools}
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("stdio/clients=%d", clients), func(b *testing.B) {
			var sessions []*sdk.ClientSession
			for range clients {
				sessions = append(sessions, serveStdio(b, nil, args...))
			}
			mcpbench.RoundTrips(b, sessions, "look", map[string]any{})
		})
		b.Run(fmt.Sprintf("http/clients=%d", clients), func(b *testing.B) {
			url := serveHTTP(b, args...)
			var sessions []*sdk.ClientSession
			for range clients {
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(mcpCtx(b),
					&sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = cs.Close() })
				sessions = append(sessions, cs)
			}
			mcpbench.RoundTrips(b, sessions, "look", map[string]any{})
		})
	}
}

// echoPolicy lets the model's calls of the upstream echo through.
const echoPolicy = `before(lambda call: allow("echo is harmless"), tools = ["mcp__everything__echo"])
`

// BenchmarkMCPGatewayOverhead calls server-everything's echo directly and
// through agentsh mcp serve --mcp everything=..., alternating one call of
// each, so that the machine's noise falls on both alike; it reports both
// medians and their ratio.
func BenchmarkMCPGatewayOverhead(b *testing.B) {
	bin := everythingBin(b)
	dir := b.TempDir()
	policy := filepath.Join(dir, "echo.star")
	if err := os.WriteFile(policy, []byte(echoPolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	direct, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(mcpCtx(b),
		&sdk.CommandTransport{Command: exec.Command(bin, "stdio")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = direct.Close() })
	gateway := serveStdio(b, nil, "--no-builtins", "--load", policy, "--pins", filepath.Join(dir, "pins.json"),
		"--mcp", "everything="+bin+" stdio")

	call := func(cs *sdk.ClientSession, name string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{"message": "hi"}})
		d := time.Since(start)
		if err != nil || res.IsError || len(res.Content) == 0 {
			b.Fatalf("call %s: %v %+v", name, err, res)
		}
		if tc, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(tc.Text, "hi") {
			b.Fatalf("call %s: %+v, want the echo of hi", name, res.Content[0])
		}
		return d
	}
	// The first calls start what is lazy (the upstream connection's
	// first use, the pins file).
	call(direct, "echo")
	call(gateway, "mcp__everything__echo")

	dlat, glat := make([]time.Duration, b.N), make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		dlat[i] = call(direct, "echo")
		glat[i] = call(gateway, "mcp__everything__echo")
	}
	b.StopTimer()
	mcpbench.Sort(dlat)
	mcpbench.Sort(glat)
	d50, g50 := mcpbench.Percentile(dlat, 0.5), mcpbench.Percentile(glat, 0.5)
	b.ReportMetric(float64(d50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(g50.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64(mcpbench.Percentile(glat, 0.95).Microseconds()), "gateway-p95-µs")
	b.ReportMetric(float64(g50)/float64(d50), "ratio-p50")
}
