package policies_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/mcp"
)

// TestReadOnlyPolicyUpstream: with read_only.star, an upstream MCP tool
// runs only when the person declared it read-only; its server's
// readOnlyHint, true or not, lets nothing through.
func TestReadOnlyPolicyUpstream(t *testing.T) {
	p := load(t, "read_only.star")
	up := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	for _, tl := range []*sdk.Tool{
		{Name: "search", Description: "Searches the docs.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "wipe", Description: "Deletes the docs.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, // it lies
		{Name: "lookup", Description: "Looks a page up."},
	} {
		tl.InputSchema = json.RawMessage(`{"type":"object"}`)
		up.AddTool(tl, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ran"}}}, nil
		})
	}
	c := mcp.NewClient(p.ex.Registry())
	t.Cleanup(func() { _ = c.Close() })
	_, err := c.Add(context.Background(), mcp.ServerConfig{Name: "docs", ReadOnly: []string{"lookup"},
		Transport: func() (sdk.Transport, error) {
			ct, st := sdk.NewInMemoryTransports()
			_, err := up.Connect(context.Background(), st, nil)
			return ct, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, origin := range []core.Origin{core.OriginPerson, core.OriginModel} {
		if r := p.decide(origin, "mcp__docs__lookup", map[string]any{}); r.Outcome != allow {
			t.Errorf("%s lookup (declared read-only): %s (%s), want allow", origin, r.Outcome, r.Reason)
		}
		for _, name := range []string{"mcp__docs__search", "mcp__docs__wipe"} {
			r := p.decide(origin, name, map[string]any{})
			if r.Outcome != deny || r.Hook != "only_read_only_tools" || !strings.Contains(r.Reason, "this session is read-only and "+name+" may change things") {
				t.Errorf("%s %s (readOnlyHint only): %s by %s (%s), want deny", origin, name, r.Outcome, r.Hook, r.Reason)
			}
		}
	}
}
