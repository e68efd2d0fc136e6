package process

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes files (a name ending in / is a directory) under a temp dir.
func tree(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func rels(t *testing.T, root string, abs []string) []string {
	t.Helper()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range abs {
		r, err := filepath.Rel(real, a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	slices.Sort(out)
	return out
}

// TestPlanFindsWhatItProtects: .git directories and worktree .git files
// and the agents' folders wherever they are, secrets by the list with its
// exceptions, nothing below what it already protects or hides.
func TestPlanFindsWhatItProtects(t *testing.T) {
	root := tree(t, ".git/config", "sub/repo/.git/hooks/", "wt/.git", ".claude/settings.json", "a/.agentsh/x.star",
		".codex/", "deep/er/.gemini/", ".env", ".env.local", ".env.example", "certs/server.pem", ".ssh/id_ed25519",
		"src/id_test.go", "src/main.go", ".git/secret.pem", "README.md")
	pl, err := newPlan(root, ProfileWorkspace, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rels(t, root, pl.readOnly), []string{".claude", ".codex", ".git", "a/.agentsh", "deep/er/.gemini", "sub/repo/.git", "wt/.git"}; !slices.Equal(got, want) {
		t.Errorf("read-only %q, want %q", got, want)
	}
	var hidden []string
	for _, h := range pl.hidden {
		hidden = append(hidden, h.path)
	}
	if got, want := rels(t, root, hidden), []string{".env", ".env.local", ".ssh", "certs/server.pem"}; !slices.Equal(got, want) {
		t.Errorf("hidden %q, want %q", got, want)
	}
	for _, h := range pl.hidden {
		if h.dir != strings.HasSuffix(h.path, ".ssh") {
			t.Errorf("%s: dir %v", h.path, h.dir)
		}
	}

	// A configured list replaces the defaults; protected names too.
	pl, err = newPlan(root, ProfileWorkspace, SandboxConfig{Secrets: []string{"*.go", "!main.go"}, Protected: []string{"certs"}}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	hidden = hidden[:0]
	for _, h := range pl.hidden {
		hidden = append(hidden, h.path)
	}
	if got, want := rels(t, root, hidden), []string{"src/id_test.go"}; !slices.Equal(got, want) {
		t.Errorf("hidden with a list of its own %q, want %q", got, want)
	}
	if got, want := rels(t, root, pl.readOnly), []string{"certs"}; !slices.Equal(got, want) {
		t.Errorf("read-only with names of its own %q, want %q", got, want)
	}
}

// TestQuarantine: a protected name that appears during a workspace run is
// renamed aside, next to earlier ones, and the output says so; what was
// there before stays; a read-only run sets nothing aside.
func TestQuarantine(t *testing.T) {
	root := tree(t, ".git/config", "sub/.git.sandboxed-1")
	pl, err := newPlan(root, ProfileWorkspace, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"sub/.git/config", "new/.claude/settings.json", "worktree/.git"} {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[core]\n\tfsmonitor = evil\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	note := pl.quarantine()
	for _, want := range []string{"made sub/.git, which the sandbox keeps read-only; it was renamed to sub/.git.sandboxed-2",
		"made new/.claude", "renamed to new/.claude.sandboxed-1", "made worktree/.git", "renamed to worktree/.git.sandboxed-1"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	for _, gone := range []string{"sub/.git", "new/.claude", "worktree/.git"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{".git/config", "sub/.git.sandboxed-1", "sub/.git.sandboxed-2/config"} {
		if _, err := os.Lstat(filepath.Join(root, kept)); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}

	ro, err := newPlan(root, ProfileReadOnly, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "x/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if note := ro.quarantine(); note != "" {
		t.Errorf("a read-only run set something aside: %s", note)
	}
}

// A protected entry is the one found at the start wherever it is at the
// end: one made where a found one was, after its directory was moved
// aside, is set aside, and the found one, moved with its directory, is
// left alone.
func TestQuarantineByIdentity(t *testing.T) {
	root := tree(t, "nested/.git/config", "nested/.claude/settings.json", ".git/config")
	pl, err := newPlan(root, ProfileWorkspace, SandboxConfig{}, ExecRequest{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "nested"), filepath.Join(root, "nested-old")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"nested/.git/config", "nested/.claude/settings.json"} {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("planted\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	note := pl.quarantine()
	for _, want := range []string{"made nested/.git,", "renamed to nested/.git.sandboxed-1", "made nested/.claude,", "renamed to nested/.claude.sandboxed-1"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "nested-old") {
		t.Errorf("the entries found at the start, moved with their directory, were set aside:\n%s", note)
	}
	for _, kept := range []string{"nested-old/.git/config", "nested-old/.claude/settings.json", ".git/config"} {
		if b, err := os.ReadFile(filepath.Join(root, kept)); err != nil || string(b) != "x" {
			t.Errorf("%s: %q, %v; want it untouched", kept, b, err)
		}
	}
	for _, gone := range []string{"nested/.git", "nested/.claude"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
}
