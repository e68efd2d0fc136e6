package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openTestFiles(t *testing.T, files map[string]string, links map[string]string) (*LocalFiles, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	l, err := OpenLocalFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

func readOS(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// EditFile writes the file it read: a link on the way that changes while
// the edit is being made does not redirect the write.
func TestEditFileWritesTheFileRead(t *testing.T) {
	l, dir := openTestFiles(t,
		map[string]string{"sub/deep/x": "", "sub/g": "old g\n", "other/g": "other g\n"},
		map[string]string{"dl": "sub/deep", "lex": "dl/../g"})
	err := l.EditFile(context.Background(), "lex", 1<<20, func(data []byte) ([]byte, error) {
		if string(data) != "old g\n" {
			t.Errorf("read %q, want sub/g", data)
		}
		// Point dl elsewhere: lex now means other/g.
		os.Remove(filepath.Join(dir, "dl"))
		if err := os.Symlink("other/x", filepath.Join(dir, "dl")); err != nil {
			t.Fatal(err)
		}
		return []byte("new g\n"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := readOS(t, filepath.Join(dir, "sub/g")); got != "new g\n" {
		t.Errorf("sub/g: %q", got)
	}
	if got := readOS(t, filepath.Join(dir, "other/g")); got != "other g\n" {
		t.Errorf("other/g changed: %q", got)
	}
}

// If the file is replaced while the edit is made, nothing is written.
func TestEditFileRefusesAReplacedFile(t *testing.T) {
	l, dir := openTestFiles(t, map[string]string{"f": "old\n", "f2": "theirs\n"}, nil)
	err := l.EditFile(context.Background(), "f", 1<<20, func(data []byte) ([]byte, error) {
		if err := os.Rename(filepath.Join(dir, "f2"), filepath.Join(dir, "f")); err != nil {
			t.Fatal(err)
		}
		return []byte("mine\n"), nil
	})
	if !errors.Is(err, errReplaced) || err.Error() != "edit f: replaced while it was being edited; nothing was written" {
		t.Errorf("EditFile: %v", err)
	}
	if got := readOS(t, filepath.Join(dir, "f")); got != "theirs\n" {
		t.Errorf("f: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// An error from the edit function comes back as it is and writes nothing.
func TestEditFileEditError(t *testing.T) {
	l, dir := openTestFiles(t, map[string]string{"f": "old\n"}, nil)
	mine := errors.New("no")
	if err := l.EditFile(context.Background(), "f", 1<<20, func([]byte) ([]byte, error) { return nil, mine }); err != mine {
		t.Errorf("EditFile: %v, want the edit's error", err)
	}
	if got := readOS(t, filepath.Join(dir, "f")); got != "old\n" {
		t.Errorf("f: %q", got)
	}
}

// walk resolves like the kernel; here compared with the kernel itself
// (os.Stat through the real path) for every link of a tree.
func TestWalkMatchesTheKernel(t *testing.T) {
	l, dir := openTestFiles(t,
		map[string]string{"a/b/c/f": "f", "a/g": "g", "top": "top"},
		map[string]string{
			"l1": "a/b/c", "l2": "l1/../../g", "l3": "a/b/c/../../../top", "a/b/l4": "../../l1/f",
			"l5": "a/b/l4", "l6": "./a//b/./c/f", "a/l7": "b/../../a/b/c/../../g",
		})
	for _, p := range []string{"l1/f", "l2", "l3", "a/b/l4", "l5", "l6", "a/l7"} {
		want, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Stat(context.Background(), p)
		if err != nil {
			t.Errorf("Stat %s: %v", p, err)
			continue
		}
		if !os.SameFile(got, want) {
			t.Errorf("Stat %s: not the file the kernel reaches", p)
		}
	}
	if _, err := l.Stat(context.Background(), "missing/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := l.Stat(context.Background(), "top/x"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("through a file: %v", err)
	}
}
