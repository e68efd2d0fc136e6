package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent/rules"
)

// tree creates files under a fresh temporary directory; a name ending in
// "/" is a directory. It returns the directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load runs Init and returns the prompt and the warnings.
func load(t *testing.T, cfg rules.Config) (string, []string) {
	t.Helper()
	var warnings []string
	cfg.Warn = func(msg string) { warnings = append(warnings, msg) }
	x := rules.New(cfg)
	if err := x.Init(context.Background()); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return x.SystemPrompt(), warnings
}

func noWarnings(t *testing.T, warnings []string) {
	t.Helper()
	if len(warnings) > 0 {
		t.Errorf("unexpected warnings: %q", warnings)
	}
}

func TestRootFirst(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/":            "",
		"AGENTS.md":        "root rules\n",
		"a/AGENTS.md":      "a rules",
		"a/b/CLAUDE.md":    "\n\nb rules\n\n",
		"a/b/c/":           "",
		"other/AGENTS.md":  "not on the path",
		"a/b/c/README.md":  "not a rule file",
		"a/b/c/agents.txt": "not a rule file",
	})
	x := rules.New(rules.Config{WorkDir: filepath.Join(dir, "a", "b", "c")})
	if err := x.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "# Rules from AGENTS.md\n\nroot rules\n\n" +
		"# Rules from a/AGENTS.md\n\na rules\n\n" +
		"# Rules from a/b/CLAUDE.md\n\nb rules"
	if got := x.SystemPrompt(); got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
	if got, want := strings.Join(x.Files(), " "), "AGENTS.md a/AGENTS.md a/b/CLAUDE.md"; got != want {
		t.Errorf("Files() = %s, want %s", got, want)
	}
	if x.Root() != dir {
		t.Errorf("Root() = %s, want %s", x.Root(), dir)
	}
	if x.Name() != "rules" {
		t.Errorf("Name() = %q", x.Name())
	}
}

func TestBothNamesInOneDirectory(t *testing.T) {
	dir := tree(t, map[string]string{
		".git":      "gitdir: elsewhere\n", // a worktree's .git is a file
		"CLAUDE.md": "claude",
		"AGENTS.md": "agents",
	})
	got, warnings := load(t, rules.Config{WorkDir: dir})
	noWarnings(t, warnings)
	want := "# Rules from AGENTS.md\n\nagents\n\n# Rules from CLAUDE.md\n\nclaude"
	if got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
}

func TestNoGitWorkDirIsRoot(t *testing.T) {
	dir := tree(t, map[string]string{
		"AGENTS.md":     "outside the project",
		"sub/AGENTS.md": "project rules",
	})
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "sub")})
	noWarnings(t, warnings)
	if want := "# Rules from AGENTS.md\n\nproject rules"; got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
}

func TestNestedGitNearestWins(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/":               "",
		"AGENTS.md":           "outer",
		"inner/.git/":         "",
		"inner/AGENTS.md":     "inner",
		"inner/pkg/CLAUDE.md": "pkg",
	})
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "inner", "pkg")})
	noWarnings(t, warnings)
	want := "# Rules from AGENTS.md\n\ninner\n\n# Rules from pkg/CLAUDE.md\n\npkg"
	if got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
}

func TestExplicitRoot(t *testing.T) {
	dir := tree(t, map[string]string{
		"AGENTS.md":     "top",
		"a/.git/":       "",
		"a/AGENTS.md":   "a",
		"a/b/AGENTS.md": "b",
	})
	got, _ := load(t, rules.Config{WorkDir: filepath.Join(dir, "a", "b"), Root: dir})
	want := "# Rules from AGENTS.md\n\ntop\n\n# Rules from a/AGENTS.md\n\na\n\n# Rules from a/b/AGENTS.md\n\nb"
	if got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}

	x := rules.New(rules.Config{WorkDir: dir, Root: filepath.Join(dir, "a")})
	err := x.Init(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not inside the root") {
		t.Errorf("Init with WorkDir outside Root: got %v, want an error", err)
	}
}

func TestEmpty(t *testing.T) {
	dir := tree(t, map[string]string{".git/": "", "sub/": "", "sub/AGENTS.md": " \n\n"})
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "sub")})
	noWarnings(t, warnings)
	if got != "" {
		t.Errorf("SystemPrompt() = %q, want empty", got)
	}
}

func TestCapKeepsNearest(t *testing.T) {
	big := strings.Repeat("x", 300)
	dir := tree(t, map[string]string{
		".git/":         "",
		"AGENTS.md":     big,
		"CLAUDE.md":     big,
		"a/AGENTS.md":   big,
		"a/CLAUDE.md":   big,
		"a/b/AGENTS.md": big,
	})
	// Room for two sections: a/b/AGENTS.md and a/AGENTS.md.
	section := len("# Rules from a/b/AGENTS.md\n\n") + 300
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "a", "b"), MaxBytes: 2*section + 20})
	want := "# Rules from a/AGENTS.md\n\n" + big + "\n\n# Rules from a/b/AGENTS.md\n\n" + big
	if got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
	if len(warnings) != 1 {
		t.Fatalf("got %d warnings, want 1: %q", len(warnings), warnings)
	}
	w := warnings[0]
	for _, s := range []string{"AGENTS.md", "CLAUDE.md", "a/CLAUDE.md", "cap", "bytes"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q does not mention %q", w, s)
		}
	}
	if strings.Contains(w, "a/AGENTS.md") || strings.Contains(w, "a/b/AGENTS.md") {
		t.Errorf("warning %q names a kept file", w)
	}
	if len(got) > 2*section+20 {
		t.Errorf("prompt is %d bytes, over the cap", len(got))
	}
}

func TestCapDefaultAndOversizedFile(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/":       "",
		"AGENTS.md":   "small root rules",
		"a/AGENTS.md": strings.Repeat("y", rules.DefaultMaxBytes+1),
	})
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "a")})
	if want := "# Rules from AGENTS.md\n\nsmall root rules"; got != want {
		t.Errorf("SystemPrompt() = %.80q, want %q", got, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "a/AGENTS.md") || !strings.Contains(warnings[0], "32768") {
		t.Errorf("warnings = %q, want one naming a/AGENTS.md and the cap", warnings)
	}

	// A negative cap means none.
	got, warnings = load(t, rules.Config{WorkDir: filepath.Join(dir, "a"), MaxBytes: -1})
	noWarnings(t, warnings)
	if !strings.Contains(got, "# Rules from a/AGENTS.md") {
		t.Errorf("with no cap, the large file is missing")
	}
}

func TestSymlinks(t *testing.T) {
	outside := tree(t, map[string]string{"secret.md": "outside rules"})
	dir := tree(t, map[string]string{
		".git/":         "",
		"docs/rules.md": "shared rules",
		"sub/":          "",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join("..", "docs", "rules.md"), filepath.Join(dir, "sub", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	got, warnings := load(t, rules.Config{WorkDir: filepath.Join(dir, "sub")})
	if want := "# Rules from sub/CLAUDE.md\n\nshared rules"; got != want {
		t.Errorf("SystemPrompt() =\n%s\nwant\n%s", got, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "AGENTS.md") || !strings.Contains(warnings[0], "outside") {
		t.Errorf("warnings = %q, want one about AGENTS.md leading outside the root", warnings)
	}
	if strings.Contains(got, "outside rules") {
		t.Error("the prompt holds the contents of a link leading out of the root")
	}
}

func TestUnreadable(t *testing.T) {
	dir := tree(t, map[string]string{".git/": "", "a/AGENTS.md/": ""})
	x := rules.New(rules.Config{WorkDir: filepath.Join(dir, "a"), Warn: func(string) {}})
	err := x.Init(context.Background())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a", "AGENTS.md")) {
		t.Errorf("Init: got %v, want an error naming the path", err)
	}

	var warnings []string
	x = rules.New(rules.Config{WorkDir: filepath.Join(dir, "a"), Warn: func(m string) { warnings = append(warnings, m) }})
	if got := x.SystemPrompt(); got != "" {
		t.Errorf("SystemPrompt() = %q after a failed read, want empty", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "AGENTS.md") {
		t.Errorf("warnings = %q, want the read failure", warnings)
	}

	x = rules.New(rules.Config{WorkDir: filepath.Join(dir, "missing")})
	if err := x.Init(context.Background()); err == nil {
		t.Error("Init with a missing WorkDir succeeded")
	}
}

func TestLazyLoad(t *testing.T) {
	dir := tree(t, map[string]string{".git/": "", "AGENTS.md": "rules"})
	x := rules.New(rules.Config{WorkDir: dir})
	if got, want := x.SystemPrompt(), "# Rules from AGENTS.md\n\nrules"; got != want {
		t.Errorf("SystemPrompt() without Init = %q, want %q", got, want)
	}
	// Files are read once: a change afterwards is not seen.
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := x.SystemPrompt(); strings.Contains(got, "changed") {
		t.Errorf("the files were read again: %q", got)
	}
}
