package core_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestMatchTools(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		name     string
		want     bool
	}{
		{nil, "anything", true},
		{[]string{}, "anything", true},
		{[]string{"read_file"}, "read_file", true},
		{[]string{"read_file"}, "read_files", false},
		{[]string{"mcp__*"}, "mcp__github__search", true},
		{[]string{"mcp__*"}, "mcp_x", false},
		{[]string{"mc*"}, "mcp_x", true},
		{[]string{"a", "b?"}, "bz", true},
		{[]string{"[rw]*_file"}, "write_file", true},
		{[]string{"[rw]*_file"}, "edit_file", false},
	} {
		if got := core.MatchTools(c.patterns, c.name); got != c.want {
			t.Errorf("MatchTools(%q, %q) = %v", c.patterns, c.name, got)
		}
	}
}

func TestCheckToolPatterns(t *testing.T) {
	if err := core.CheckToolPatterns([]string{"a", "mcp__*", "x?[ab]"}); err != nil {
		t.Fatal(err)
	}
	err := core.CheckToolPatterns([]string{"ok", "[bad"})
	if err == nil || !strings.Contains(err.Error(), `"[bad"`) {
		t.Fatalf("malformed pattern: %v", err)
	}
}
