package tools_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

// linkTree builds base/outside and base/work (the working directory) with
// links that the kernel resolves differently from a lexical join.
func linkTree(t *testing.T) (base, work string) {
	t.Helper()
	base = t.TempDir()
	work = filepath.Join(base, "work")
	writeTree(t, base, map[string]string{
		"outside/secret.txt":     secret + "\n",
		"outside/dir/nested.txt": secret + "\n",
		"work/sub/g":             "in sub/g\n",
		"work/sub/deep/f":        "in sub/deep/f\n",
		"work/top.txt":           "in top\n",
	})
	links := map[string]string{
		// dl/.. is sub, not the working directory.
		"work/dl":          "sub/deep",
		"work/lexmismatch": "dl/../g",
		// Lexically dl/../../g leaves the working directory; the kernel
		// reaches work/g.
		"work/lexout_in": "dl/../../top.txt",
		// Lexically dlo/../secret.txt is inside; really it goes out.
		"work/dlo":        "../outside/dir",
		"work/lexin_out":  "dlo/../secret.txt",
		"work/chain1":     "chain2",
		"work/chain2":     "sub/chain3",
		"work/sub/chain3": "../lexmismatch",
		"work/abs_in":     filepath.Join(work, "sub", "g"),
		"work/abs_dir":    filepath.Join(work, "sub"),
		"work/abs_out":    filepath.Join(base, "outside", "secret.txt"),
		"work/abs_up":     filepath.Join(work, "..", "outside", "secret.txt"),
		"work/loop1":      "loop2",
		"work/loop2":      "sub/../loop1",
		"work/self":       "self",
		"work/up_out":     "dl/../../../outside/secret.txt",
		"work/dangling":   "sub/created",
		"work/dangle_dir": "newdir/deeper/file",
		"work/dangle_up":  "nothere/../x",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return base, work
}

// A path from a call is cleaned lexically before anything is resolved
// (dl/../g is g), as the tools document; only links' targets resolve
// like the kernel.
func TestCallPathsAreCleanedFirst(t *testing.T) {
	_, work := linkTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	e.ok("write_file", map[string]any{"path": "dl/../g", "content": "plain g\n"})
	if got := e.read("g"); got != "plain g\n" {
		t.Errorf("g: %q", got)
	}
	if got := e.read("sub/g"); got != "in sub/g\n" {
		t.Errorf("sub/g changed: %q", got)
	}
}

// Every file tool resolves links as the kernel does, once: edit_file,
// read_file and write_file through a link all reach the file the kernel
// would open (cat and echo > are the reference), never a lexical
// neighbour, and links stay links.
func TestLinksResolveLikeTheKernel(t *testing.T) {
	base, work := linkTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	outsideBefore := snapshot(t, filepath.Join(base, "outside"))
	for _, c := range []struct{ link, target string }{
		{"lexmismatch", "sub/g"},
		{"chain1", "sub/g"},
		{"lexout_in", "top.txt"},
		{"abs_in", "sub/g"},
		{"abs_dir/g", "sub/g"},
		{"dl/f", "sub/deep/f"},
	} {
		t.Run(strings.ReplaceAll(c.link, "/", "_"), func(t *testing.T) {
			// The kernel's view, through the same link.
			kernel, err := os.ReadFile(filepath.Join(work, c.link))
			target := filepath.Join(work, c.target)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.ok("read_file", map[string]any{"path": c.link}); !strings.Contains(got, strings.TrimSpace(string(kernel))) {
				t.Errorf("read_file %s: %q, want the kernel's %q", c.link, got, kernel)
			}
			want := strings.Replace(string(kernel), "in ", "edited ", 1)
			e.ok("edit_file", map[string]any{"path": c.link, "old_string": "in ", "new_string": "edited "})
			if got, _ := os.ReadFile(target); string(got) != want {
				t.Errorf("edit_file %s: %s holds %q, want %q", c.link, c.target, got, want)
			}
			e.ok("write_file", map[string]any{"path": c.link, "content": string(kernel)})
			if got, _ := os.ReadFile(target); string(got) != string(kernel) {
				t.Errorf("write_file %s: %s holds %q, want %q", c.link, c.target, got, kernel)
			}
		})
	}
	// Nothing was created next to the links, the links are still links,
	// and the outside is untouched.
	if _, err := os.Lstat(filepath.Join(work, "g")); err == nil {
		t.Error("a new ./g was written")
	}
	for _, l := range []string{"lexmismatch", "chain1", "chain2", "sub/chain3", "abs_in", "dl"} {
		if fi, err := os.Lstat(filepath.Join(work, l)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", l, fi, err)
		}
	}
	if got := snapshot(t, filepath.Join(base, "outside")); got != outsideBefore {
		t.Errorf("the outside changed:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(work, "sub"))
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".agentsh-tmp-") {
			t.Errorf("temporary file left: %s", en.Name())
		}
	}
}

// Links that lead out, really or only on the way, and loops are refused by
// every file tool, with a message that says why; nothing is written.
func TestLinksRefused(t *testing.T) {
	base, work := linkTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	outsideBefore := snapshot(t, filepath.Join(base, "outside"))
	workBefore := snapshot(t, work)
	for _, c := range []struct{ path, want string }{
		{"lexin_out", "leads outside the working directory through a symbolic link"},
		{"abs_out", "leads outside the working directory through a symbolic link"},
		{"abs_up", "leads outside the working directory through a symbolic link"},
		{"up_out", "leads outside the working directory through a symbolic link"},
		{"dlo/secret.txt", "leads outside the working directory through a symbolic link"},
		{"loop1", "too many levels of symbolic links"},
		{"self", "too many levels of symbolic links"},
		{"dangle_up", "does not exist"},
	} {
		// Refused when the call is made canonical, before any hook.
		e.fails("read_file", map[string]any{"path": c.path}, core.KindInvalidArguments, c.path, c.want)
		e.fails("edit_file", map[string]any{"path": c.path, "old_string": "SECRET", "new_string": "PWNED"}, core.KindInvalidArguments, c.path, c.want)
		e.fails("write_file", map[string]any{"path": c.path, "content": "PWNED"}, core.KindInvalidArguments, c.path, c.want)
	}
	e.fails("list_dir", map[string]any{"path": "dlo"}, core.KindInvalidArguments, "leads outside")
	if got := snapshot(t, filepath.Join(base, "outside")); got != outsideBefore {
		t.Errorf("the outside changed:\n%s", got)
	}
	if got := snapshot(t, work); got != workBefore {
		t.Errorf("the working directory changed:\nbefore:\n%s\nafter:\n%s", workBefore, got)
	}
}

// write_file through a dangling link creates the link's target (and its
// missing directories), as the kernel would for the file; the link stays.
func TestWriteThroughDanglingLink(t *testing.T) {
	_, work := linkTree(t)
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: work})
	e.ok("write_file", map[string]any{"path": "dangling", "content": "made\n"})
	if got := e.read("sub/created"); got != "made\n" {
		t.Errorf("sub/created: %q", got)
	}
	e.ok("write_file", map[string]any{"path": "dangle_dir", "content": "deep\n"})
	if got := e.read("newdir/deeper/file"); got != "deep\n" {
		t.Errorf("newdir/deeper/file: %q", got)
	}
	for _, l := range []string{"dangling", "dangle_dir"} {
		if fi, err := os.Lstat(filepath.Join(work, l)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", l, fi, err)
		}
	}
}

// An absolute link counts as inside when it names the working directory
// by the path it was given as or by its real path (here they differ: the
// working directory is reached through a link).
func TestAbsoluteLinksThroughALinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	writeTree(t, base, map[string]string{"real/sub/f": "in f\n"})
	alias := filepath.Join(base, "alias")
	if err := os.Symlink("real", alias); err != nil {
		t.Fatal(err)
	}
	for name, dest := range map[string]string{"by_real": filepath.Join(real, "sub", "f"), "by_alias": filepath.Join(alias, "sub", "f")} {
		if err := os.Symlink(dest, filepath.Join(real, name)); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, tools.ExtensionConfig{WorkingDir: alias})
	for _, l := range []string{"by_real", "by_alias"} {
		writeTree(t, real, map[string]string{"sub/f": "in f\n"})
		if got := e.ok("read_file", map[string]any{"path": l}); got != "     1\tin f\n" {
			t.Errorf("read_file %s: %q", l, got)
		}
		e.ok("write_file", map[string]any{"path": l, "content": "via " + l + "\n"})
		if got := e.read("sub/f"); got != "via "+l+"\n" {
			t.Errorf("write_file %s: sub/f holds %q", l, got)
		}
	}
}
