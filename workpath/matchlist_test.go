package workpath_test

import (
	"testing"

	"github.com/agentsh/agentsh/workpath"
)

// TestMatchList reads a list as .gitignore does: the last pattern that
// matches decides, ! takes a name back out, a pattern without a slash
// matches a base name anywhere, one ending in / a directory and all below.
func TestMatchList(t *testing.T) {
	list := []string{".env", ".env.*", "!.env.example", "*.pem", "id_ed25519*", ".ssh/", "config/secrets/*.json", "!keep.pem"}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".env", true},
		{"sub/dir/.env", true},
		{".env.local", true},
		{".env.example", false},
		{"app/.env.example", false},
		{"certs/server.pem", true},
		{"certs/keep.pem", false},
		{"id_ed25519", true},
		{"home/id_ed25519.pub", true},
		{"src/id_test.go", false},
		{".ssh", true},
		{".ssh/known_hosts", true},
		{"a/.ssh/config", true},
		{"config/secrets/db.json", true},
		{"other/config/secrets/db.json", false},
		{"README.md", false},
		{"./.env", true},
		{"x/../.env", true},
		{"envy", false},
	} {
		if got := workpath.MatchList(list, tc.path); got != tc.want {
			t.Errorf("MatchList(%q) = %v, want %v", tc.path, got, tc.want)
		}
		m, err := workpath.NewMatcher(list)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Match(tc.path); got != tc.want {
			t.Errorf("Matcher.Match(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// Order decides: a ! before the pattern it would undo undoes nothing.
	if !workpath.MatchList([]string{"!.env.example", ".env.*"}, ".env.example") {
		t.Error("a ! before the pattern it undoes took the name out")
	}
	if workpath.MatchList(nil, ".env") {
		t.Error("an empty list matched")
	}
}

func TestNewMatcherRefusesBadPatterns(t *testing.T) {
	for _, bad := range []string{"[", "!", "", "a/[b"} {
		if _, err := workpath.NewMatcher([]string{"*.pem", bad}); err == nil {
			t.Errorf("NewMatcher accepted %q", bad)
		}
		if err := workpath.CheckPatterns([]string{bad}); err == nil {
			t.Errorf("CheckPatterns accepted %q", bad)
		}
	}
	// MatchList skips what it cannot read rather than failing.
	if !workpath.MatchList([]string{"[", ".env"}, ".env") {
		t.Error("a malformed pattern stopped MatchList")
	}
}

// TestMatchEntry looks at an entry alone: a walk that skips matched
// directories never asks about what lies below them.
func TestMatchEntry(t *testing.T) {
	m, err := workpath.NewMatcher([]string{".ssh/", "*.pem", "!keep.pem", "id_rsa*"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{".ssh": true, "a/.ssh": true, "a/.ssh/config": false, "c/x.pem": true,
		"c/keep.pem": false, "id_rsa.pub": true, "my_id_rsa": false, ".pem": true} {
		if got := m.MatchEntry(p); got != want {
			t.Errorf("MatchEntry(%q) = %v, want %v", p, got, want)
		}
	}
}
