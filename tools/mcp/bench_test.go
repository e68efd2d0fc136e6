package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

// benchTools are n tools with a description and a small schema each.
func benchTools(n int) []*sdk.Tool {
	tools := make([]*sdk.Tool, n)
	for i := range tools {
		tools[i] = &sdk.Tool{Name: fmt.Sprintf("tool%03d", i), Description: fmt.Sprintf("Tool number %d: does one thing well.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["path"]}`),
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: i%2 == 0}}
	}
	return tools
}

// BenchmarkPinsCheck: one listing of 100 pinned, unchanged tools checked
// against the pins file (read, digest, compare; nothing written).
func BenchmarkPinsCheck(b *testing.B) {
	pins := NewPins(filepath.Join(b.TempDir(), "pins.json"))
	live := map[string]*Definition{}
	for _, t := range benchTools(100) {
		d, err := definitionOf("bench", t)
		if err != nil {
			b.Fatal(err)
		}
		live[ToolName("bench", t.Name)] = &d
	}
	if _, err := pins.check(live); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if held, err := pins.check(live); err != nil || len(held) != 0 {
			b.Fatal(held, err)
		}
	}
}

// BenchmarkRelist: what a notifications/tools/list_changed costs for a
// server of 100 unchanged tools: the listing over an in-memory session,
// the definitions, the pins check and the comparison with the registry.
func BenchmarkRelist(b *testing.B) {
	m := defsServer(benchTools(100)...)
	reg := core.NewRegistry()
	c := NewClient(reg, WithPins(NewPins(filepath.Join(b.TempDir(), "pins.json"))))
	defer c.Close()
	if _, err := c.Add(context.Background(), m.config("bench")); err != nil {
		b.Fatal(err)
	}
	e := c.entries()[0]
	b.ResetTimer()
	for range b.N {
		c.relist(context.Background(), e)
	}
	b.StopTimer()
	if reg.Len() != 100 {
		b.Fatalf("%d tools registered", reg.Len())
	}
}
