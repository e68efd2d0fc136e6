package tools_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools"
)

// A file 200 directories down, its path more than twice PATH_MAX (4096
// bytes), works with every file tool: read, edited, written, listed,
// never silently missed. (The walk holds one directory at a time, so
// depth costs no descriptors.)
func TestDeepPaths(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	root, err := os.OpenRoot(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	level := strings.Repeat("d", 40)
	deep := strings.Repeat(level+"/", 200) + "leaf"
	mkdirChain(t, root, strings.Split(deep, "/"))
	if err := root.WriteFile(deep+"/f.txt", []byte("deep down\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(deep) <= 2*4096 {
		t.Fatalf("the path is only %d bytes", len(deep))
	}
	if got := e.ok("read_file", map[string]any{"path": deep + "/f.txt"}); got != "     1\tdeep down\n" {
		t.Errorf("read_file: %q", got)
	}
	e.ok("edit_file", map[string]any{"path": deep + "/f.txt", "old_string": "down", "new_string": "below"})
	e.ok("write_file", map[string]any{"path": deep + "/new/g.txt", "content": "new\n"})
	if got := e.ok("list_dir", map[string]any{"path": deep, "depth": 2}); got != "f.txt\nnew/\nnew/g.txt\n" {
		t.Errorf("list_dir: %q", got)
	}
	if b, err := root.ReadFile(deep + "/f.txt"); err != nil || string(b) != "deep below\n" {
		t.Errorf("after edit_file: %q, %v", b, err)
	}
	if b, err := root.ReadFile(deep + "/new/g.txt"); err != nil || string(b) != "new\n" {
		t.Errorf("after write_file: %q, %v", b, err)
	}
	// Through a link at the bottom that climbs two levels and comes back.
	if err := root.Symlink("../../"+level+"/leaf/f.txt", deep+"/back"); err != nil {
		t.Fatal(err)
	}
	if got := e.ok("read_file", map[string]any{"path": deep + "/back"}); got != "     1\tdeep below\n" {
		t.Errorf("read_file through a climbing link: %q", got)
	}
}

// mkdirChain makes the directories names[0]/names[1]/... one level at a
// time (os.Root.MkdirAll walks from the top for each level).
func mkdirChain(t *testing.T, root *os.Root, names []string) {
	t.Helper()
	dir := root
	for _, n := range names {
		if err := dir.Mkdir(n, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := dir.OpenRoot(n)
		if err != nil {
			t.Fatal(err)
		}
		if dir != root {
			dir.Close()
		}
		dir = sub
	}
	dir.Close()
}
