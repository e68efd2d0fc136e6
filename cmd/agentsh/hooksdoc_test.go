package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/hookadapter"
)

// docToolName is a tool in the first column of docs/hooks.md's tables:
// a name, with its fields in braces.
var docToolName = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)(\{.*\})?$`)

var docBackticks = regexp.MustCompile("`([^`]+)`")

// TestHooksDocMapsEveryTool holds the tables of docs/hooks.md ("Tool names
// and fields") to the hook adapters' maps: every tool of a map has its
// row, every tool a row names is one the map knows, and the row says
// what it becomes — the canonical tool (or "itself"), and read-only or
// not as the map declares it.
func TestHooksDocMapsEveryTool(t *testing.T) {
	b, err := os.ReadFile("../../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Tool names and fields\n")
	if !ok {
		t.Fatal(`docs/hooks.md has no "## Tool names and fields"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	agents := map[string]string{"Claude Code": "claude-code", "Gemini CLI": "gemini", "Codex": "codex"}
	documented := map[string]map[string]bool{}
	var agent string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			agent = ""
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 2 {
			t.Errorf("a row of two cells, got %q", line)
			continue
		}
		first, second := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
		if a, ok := agents[first]; ok {
			agent, documented[a] = a, map[string]bool{}
			continue
		}
		if agent == "" || strings.HasPrefix(first, "---") {
			continue
		}
		proto, err := hookadapter.Lookup(agent)
		if err != nil {
			t.Fatal(err)
		}
		mapped := proto.Tools()
		var canonical []string
		for _, m := range docBackticks.FindAllStringSubmatch(second, -1) {
			if n := docToolName.FindStringSubmatch(m[1]); n != nil {
				canonical = append(canonical, n[1])
			}
		}
		for _, m := range docBackticks.FindAllStringSubmatch(first, -1) {
			n := docToolName.FindStringSubmatch(m[1])
			if n == nil {
				continue
			}
			tool := n[1]
			documented[agent][tool] = true
			if c, err := hookadapter.MapCall(proto, tool, json.RawMessage(`{}`), ""); err != nil || !c.Known {
				t.Errorf("docs/hooks.md: %s's %s is not a tool its map knows", agent, tool)
				continue
			}
			tm, ok := mapped[tool]
			if !ok {
				continue // an MCP tool
			}
			switch {
			case tm.Name == tool && (strings.Contains(second, "itself") || strings.Contains(second, "themselves")):
			case strings.HasSuffix(tool, tm.Name) && strings.Contains(second, "without the namespace"):
			case slices.Contains(canonical, tm.Name):
			default:
				t.Errorf("docs/hooks.md: %s's %s maps to %s, which its row does not say: %q", agent, tool, tm.Name, second)
			}
			notRO := strings.Contains(second, "not read-only")
			if notRO && tm.ReadOnly || !notRO && strings.Contains(second, "read-only") && !tm.ReadOnly {
				t.Errorf("docs/hooks.md: %s's %s is read-only: %v, but its row says %q", agent, tool, tm.ReadOnly, second)
			}
		}
	}
	for _, agent := range agents {
		proto, _ := hookadapter.Lookup(agent)
		if documented[agent] == nil {
			t.Errorf("docs/hooks.md has no table of %s's tools", agent)
			continue
		}
		for tool := range proto.Tools() {
			if !documented[agent][tool] {
				t.Errorf("docs/hooks.md: the table of %s's tools has no row for %s", agent, tool)
			}
		}
	}
}
