package tools_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

const secret = "SECRET-OUTSIDE-7f3a"

// escapeTree builds base/outside (which must stay untouched and unread) and
// base/work, the working directory, with symbolic links that lead out.
func escapeTree(t *testing.T) (base, work string) {
	t.Helper()
	base = t.TempDir()
	work = filepath.Join(base, "work")
	writeTree(t, base, map[string]string{
		"outside/secret.txt":     secret + "\n",
		"outside/dir/nested.txt": secret + " nested\n",
		"work/inside.txt":        "inside\n",
		"work/src/a.go":          "package a\n",
		"work/sub/keep.txt":      "keep\n",
	})
	links := map[string]string{
		"work/link_out_file": "../outside/secret.txt",
		"work/link_out_dir":  "../outside",
		"work/abs_link":      filepath.Join(base, "outside", "secret.txt"),
		"work/abs_dir_link":  filepath.Join(base, "outside"),
		"work/loop_a":        "loop_b",
		"work/loop_b":        "loop_a",
		"work/sub/link_up":   "../..",
		"work/src/deep_out":  "../../outside/dir",
		"work/link_root":     "/",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return base, work
}

// snapshot fingerprints every file and directory below dir (names, modes,
// sizes, contents), to prove nothing there changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d", p, info.Mode(), info.Size())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// escapePaths are the adversarial paths: each leaves the working directory
// lexically, through a symbolic link, or is a strange name that must be
// treated as a plain (missing) name inside it.
func escapePaths(base, work string) []string {
	return []string{
		"..",
		"../",
		"../outside/secret.txt",
		"../../etc/passwd",
		"/etc/passwd",
		"/etc",
		"/",
		"//etc/passwd",
		base,
		filepath.Join(base, "outside", "secret.txt"),
		filepath.Join(work, "..", "outside", "secret.txt"),
		work + "/../outside",
		"src/../../outside/secret.txt",
		"src/./../../outside/secret.txt",
		"./../outside",
		"src/../../../",
		"link_out_file",
		"link_out_dir",
		"link_out_dir/secret.txt",
		"link_out_dir/dir/nested.txt",
		"link_out_dir/new.txt",
		"abs_link",
		"abs_dir_link",
		"abs_dir_link/secret.txt",
		"loop_a",
		"loop_b/x",
		"sub/link_up",
		"sub/link_up/outside/secret.txt",
		"src/deep_out",
		"src/deep_out/nested.txt",
		"link_root/etc/passwd",
		"link_root",
		"%2e%2e/outside/secret.txt",
		"..%2foutside%2fsecret.txt",
		`..\outside\secret.txt`,
		"~/../outside/secret.txt",
		"$HOME/.bashrc",
		"nul\x00byte",
		strings.Repeat("a", 300),
		strings.Repeat("deep/", 900) + "x",
		"bad\xff\xfename",
	}
}

// TestAdversarialPaths runs every file and search tool, and bash's workdir,
// against every escape path: each call fails or stays inside, no output
// holds what is outside, and nothing outside changes.
func TestAdversarialPaths(t *testing.T) {
	base, work := escapeTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	outsideBefore := snapshot(t, filepath.Join(base, "outside"))
	paths := escapePaths(base, work)
	if len(paths) < 30 {
		t.Fatalf("only %d adversarial paths; want at least 30", len(paths))
	}
	calls := func(p string) map[string]any {
		return map[string]any{
			"read_file":  map[string]any{"path": p},
			"write_file": map[string]any{"path": p, "content": "PWNED"},
			"edit_file":  map[string]any{"path": p, "old_string": "SECRET", "new_string": "PWNED"},
			"list_dir":   map[string]any{"path": p, "depth": 3},
			"glob":       map[string]any{"pattern": "**/*", "path": p, "hidden": true, "no_ignore": true},
			"grep":       map[string]any{"pattern": "SECRET", "path": p, "output_mode": "content", "hidden": true, "no_ignore": true},
			"bash":       map[string]any{"command": "cat secret.txt nested.txt 2>/dev/null; pwd; echo PWNED > pwned.txt", "workdir": p},
		}
	}
	refused := 0
	for _, p := range paths {
		for name, args := range calls(p) {
			res := e.call(name, args)
			out := res.ForLLM
			if res.Err != nil {
				out += res.Err.Error()
			}
			if strings.Contains(out, secret) {
				t.Errorf("%s(%q) exposed the outside file: %q", name, p, out)
			}
			if name == "bash" && res.OK() && !strings.HasPrefix(strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]), work) {
				t.Errorf("bash with workdir %q ran outside the working directory: %q", p, out)
			}
			if !res.OK() {
				refused++
				if res.Kind() != core.KindFailed && res.Kind() != core.KindInvalidArguments {
					t.Errorf("%s(%q): kind %s, want failed: %v", name, p, res.Kind(), res.Err)
				}
			}
		}
		if got := snapshot(t, filepath.Join(base, "outside")); got != outsideBefore {
			t.Fatalf("after the calls with path %q, the outside directory changed:\nbefore:\n%s\nafter:\n%s", p, outsideBefore, got)
		}
	}
	if refused == 0 {
		t.Fatal("no call was refused")
	}
}

// Each escape is refused with a message that names the path, when the call
// is made canonical, before any hook.
func TestEscapeMessages(t *testing.T) {
	base, work := escapeTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	for _, p := range []string{"../outside/secret.txt", "/etc/passwd", filepath.Join(base, "outside")} {
		e.fails("read_file", map[string]any{"path": p}, core.KindInvalidArguments, fmt.Sprintf("%q is outside the working directory", p))
		e.fails("bash", map[string]any{"command": "true", "workdir": p}, core.KindInvalidArguments, "outside the working directory")
		e.fails("grep", map[string]any{"pattern": "x", "path": p}, core.KindInvalidArguments, "outside the working directory")
	}
	for _, p := range []string{"link_out_file", "link_out_dir/secret.txt", "sub/link_up/outside"} {
		e.fails("read_file", map[string]any{"path": p}, core.KindInvalidArguments, "outside the working directory")
	}
	for _, p := range []string{"link_out_dir", "src/deep_out"} {
		e.fails("grep", map[string]any{"pattern": "x", "path": p}, core.KindInvalidArguments, "symbolic link")
		e.fails("bash", map[string]any{"command": "true", "workdir": p}, core.KindInvalidArguments, "outside the working directory")
		e.fails("list_dir", map[string]any{"path": p}, core.KindInvalidArguments, "outside the working directory")
	}
	e.fails("read_file", map[string]any{"path": "loop_a"}, core.KindInvalidArguments)
	e.fails("read_file", map[string]any{"path": "nul\x00byte"}, core.KindInvalidArguments, "NUL byte")
}

// Inside links keep working, and searches never follow links out.
func TestInsideLinksAndSearches(t *testing.T) {
	_, work := escapeTree(t)
	if err := os.Symlink("inside.txt", filepath.Join(work, "link_in")); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	if out := e.ok("read_file", map[string]any{"path": "link_in"}); !strings.Contains(out, "inside") {
		t.Errorf("read through an inside link: %q", out)
	}
	e.ok("write_file", map[string]any{"path": "link_in", "content": "changed\n"})
	if got := e.read("inside.txt"); got != "changed\n" {
		t.Errorf("write through an inside link changed %q, want the target written", got)
	}
	if fi, err := os.Lstat(filepath.Join(work, "link_in")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link itself was replaced: %v %v", fi, err)
	}
	out := e.ok("grep", map[string]any{"pattern": "SECRET|changed", "output_mode": "content", "hidden": true, "no_ignore": true})
	if strings.Contains(out, "SECRET") || !strings.Contains(out, "inside.txt:1:changed") {
		t.Errorf("grep over the tree: %q", out)
	}
	out = e.ok("glob", map[string]any{"pattern": "**/*.txt", "hidden": true, "no_ignore": true})
	if strings.Contains(out, "secret") || strings.Contains(out, "nested") {
		t.Errorf("glob followed a link out: %q", out)
	}
	for _, pat := range []string{"../outside/*", "../**/*.txt", "**/../../outside/*"} {
		if out := e.ok("glob", map[string]any{"pattern": pat}); !strings.HasPrefix(out, "no files match") {
			t.Errorf("glob %q matched outside: %q", pat, out)
		}
	}
	e.fails("glob", map[string]any{"pattern": "/etc/*"}, core.KindFailed, "absolute")
}
