package tools_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

func TestReadFile(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	e.write(map[string]string{
		"a.txt":     "one\ntwo\r\nthree",
		"long.txt":  long.String(),
		"wide.txt":  strings.Repeat("é", 2100) + "\nshort\n",
		"empty.txt": "",
		"bin.dat":   "abc\x00def",
		"dir/x.txt": "x\n",
	})
	if got, want := e.ok("read_file", map[string]any{"path": "a.txt"}), "     1\tone\n     2\ttwo\n     3\tthree\n"; got != want {
		t.Errorf("a.txt:\n%q\nwant\n%q", got, want)
	}
	got := e.ok("read_file", map[string]any{"path": "long.txt"})
	if !strings.HasPrefix(got, "     1\tline 1\n") || !strings.Contains(got, "  2000\tline 2000\n") || strings.Contains(got, "line 2001\n") {
		t.Errorf("default limit is not 2000 lines")
	}
	if !strings.HasSuffix(got, "[showing lines 1-2000 of 2500; continue with offset 2001]\n") {
		t.Errorf("footer: %q", got[len(got)-80:])
	}
	got = e.ok("read_file", map[string]any{"path": "long.txt", "offset": 2499, "limit": 5})
	if got != "  2499\tline 2499\n  2500\tline 2500\n" {
		t.Errorf("offset/limit at the end: %q", got)
	}
	got = e.ok("read_file", map[string]any{"path": "long.txt", "offset": 10, "limit": 2})
	if got != "    10\tline 10\n    11\tline 11\n[showing lines 10-11 of 2500; continue with offset 12]\n" {
		t.Errorf("a middle page: %q", got)
	}
	got = e.ok("read_file", map[string]any{"path": "wide.txt"})
	if !strings.Contains(got, strings.Repeat("é", 2000)+"… [line cut: 100 more characters]\n") || !strings.Contains(got, "     2\tshort") {
		t.Errorf("long line not cut at 2000 characters: %q", got[len(got)-120:])
	}
	if got := e.ok("read_file", map[string]any{"path": "empty.txt"}); got != "[empty.txt is empty]" {
		t.Errorf("empty file: %q", got)
	}
	e.fails("read_file", map[string]any{"path": "bin.dat"}, core.KindFailed, "bin.dat is a binary file")
	e.fails("read_file", map[string]any{"path": "dir"}, core.KindFailed, "dir is a directory; use list_dir")
	e.fails("read_file", map[string]any{"path": "nope.txt"}, core.KindFailed, "nope.txt does not exist")
	e.fails("read_file", map[string]any{"path": "long.txt", "offset": 2501}, core.KindFailed, "offset 2501 is past the end of long.txt, which has 2500 lines")
	e.fails("read_file", map[string]any{"path": "a.txt", "offset": 0}, core.KindInvalidArguments, "/offset")
	e.fails("read_file", map[string]any{}, core.KindInvalidArguments, "missing properties: 'path'")
	e.fails("read_file", map[string]any{"path": 7}, core.KindInvalidArguments, "/path: expected string")
}

func TestReadImage(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "pic.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.call("read_file", map[string]any{"path": "pic.png"})
	if !res.OK() || len(res.Blocks) != 1 {
		t.Fatalf("image: %v, %d blocks", res.Err, len(res.Blocks))
	}
	b := res.Blocks[0]
	if b.Type != "image" || b.MIMEType != "image/png" || !bytes.Equal(b.Data, buf.Bytes()) {
		t.Errorf("block %s %s %d bytes", b.Type, b.MIMEType, len(b.Data))
	}
	if !strings.Contains(res.ForLLM, "pic.png: image/png") {
		t.Errorf("text for the model: %q", res.ForLLM)
	}
}

func TestWriteFile(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	if got := e.ok("write_file", map[string]any{"path": "new/deep/f.txt", "content": "hello\n"}); got != "wrote 6 bytes to new/deep/f.txt" {
		t.Errorf("write: %q", got)
	}
	if e.read("new/deep/f.txt") != "hello\n" {
		t.Error("content not written")
	}
	// An existing file keeps its mode.
	script := filepath.Join(e.dir, "run.sh")
	if err := os.WriteFile(script, []byte("old"), 0o750); err != nil {
		t.Fatal(err)
	}
	e.ok("write_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\n"})
	if st, _ := os.Stat(script); st.Mode().Perm() != 0o750 {
		t.Errorf("mode after write: %v, want 0750", st.Mode().Perm())
	}
	e.ok("write_file", map[string]any{"path": "empty.txt", "content": ""})
	if e.read("empty.txt") != "" {
		t.Error("empty content")
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".agentsh-") {
			t.Errorf("temporary file left: %s", en.Name())
		}
	}
	e.fails("write_file", map[string]any{"path": "new"}, core.KindInvalidArguments, "content")
	e.fails("write_file", map[string]any{"path": "new", "content": "x"}, core.KindFailed, "new is a directory")
	e.fails("write_file", map[string]any{"path": ".", "content": "x"}, core.KindFailed, "working directory itself")
	e.write(map[string]string{"file": "x"})
	e.fails("write_file", map[string]any{"path": "file/child.txt", "content": "x"}, core.KindFailed, "file/child.txt")
}

// A file may be written and read back at any depth, deeper than PATH_MAX
// too: the tools and the canonical step walk one name at a time.
func TestWriteAndReadDeeperThanPathMax(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	deep := strings.Repeat("dddddddddd/", 450) + "f" // 4,951 bytes
	e.ok("write_file", map[string]any{"path": deep, "content": "deep\n"})
	if got := e.ok("read_file", map[string]any{"path": deep}); got != "     1\tdeep\n" {
		t.Errorf("read_file of a file 450 directories down: %q", got)
	}
	e.ok("edit_file", map[string]any{"path": deep, "old_string": "deep", "new_string": "deeper"})
	if got := e.ok("read_file", map[string]any{"path": deep}); got != "     1\tdeeper\n" {
		t.Errorf("read_file after edit_file: %q", got)
	}
}

// A write that fails takes back the directories it made for the file;
// one that existed before stays.
func TestWriteFileFailureMakesNoDirectories(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{"kept/x": "x"})
	before := snapshot(t, e.dir)
	long := strings.Repeat("n", 256)           // longer than a name may be
	deep := strings.Repeat("dddddddddd/", 450) // deeper than PATH_MAX
	for _, p := range []string{"made/deeper/" + long, "kept/made/" + long + "/f", "kept/" + long + "/f", "made/" + deep + long} {
		e.fails("write_file", map[string]any{"path": p, "content": "x"}, core.KindFailed, "file name too long")
		if got := snapshot(t, e.dir); got != before {
			t.Errorf("write_file %.40s... failed but changed the directory:\n%s", p, got)
		}
	}
}

func TestEditFile(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{
		"a.go":   "package a\n\nfunc A() {}\nfunc B() {}\n",
		"crlf":   "one\r\ntwo\r\nthree\r\n",
		"dup":    "x = 1\nx = 1\n",
		"bin":    "\x00\x01x = 1",
		"mixed":  "a\r\nb\n",
		"unicod": "naïve café\n",
	})
	if got := e.ok("edit_file", map[string]any{"path": "a.go", "old_string": "func A() {}", "new_string": "func A() { return }"}); got != "replaced 1 occurrence in a.go" {
		t.Errorf("edit: %q", got)
	}
	if e.read("a.go") != "package a\n\nfunc A() { return }\nfunc B() {}\n" {
		t.Errorf("a.go: %q", e.read("a.go"))
	}
	// Missing or ambiguous old_string changes nothing and says how many.
	e.fails("edit_file", map[string]any{"path": "a.go", "old_string": "func C", "new_string": "x"}, core.KindFailed, "0 matches", "nothing changed")
	e.fails("edit_file", map[string]any{"path": "dup", "old_string": "x = 1", "new_string": "x = 2"}, core.KindFailed, "matches 2 times in dup", "replace_all")
	if e.read("dup") != "x = 1\nx = 1\n" {
		t.Error("an ambiguous edit changed the file")
	}
	if got := e.ok("edit_file", map[string]any{"path": "dup", "old_string": "x = 1", "new_string": "x = 2", "replace_all": true}); got != "replaced 2 occurrences in dup" {
		t.Errorf("replace_all: %q", got)
	}
	// CRLF files stay CRLF, even when the edit is written with LF.
	e.ok("edit_file", map[string]any{"path": "crlf", "old_string": "one\ntwo", "new_string": "uno\ndos\ntres"})
	if got := e.read("crlf"); got != "uno\r\ndos\r\ntres\r\nthree\r\n" {
		t.Errorf("crlf: %q", got)
	}
	e.ok("edit_file", map[string]any{"path": "unicod", "old_string": "café", "new_string": "coffee"})
	if e.read("unicod") != "naïve coffee\n" {
		t.Errorf("unicode edit: %q", e.read("unicod"))
	}
	e.fails("edit_file", map[string]any{"path": "a.go", "old_string": "", "new_string": "x"}, core.KindFailed, "old_string is empty")
	e.fails("edit_file", map[string]any{"path": "a.go", "old_string": "B", "new_string": "B"}, core.KindFailed, "the same")
	e.fails("edit_file", map[string]any{"path": "bin", "old_string": "x", "new_string": "y"}, core.KindFailed, "binary")
	e.fails("edit_file", map[string]any{"path": "missing", "old_string": "x", "new_string": "y"}, core.KindFailed, "missing does not exist")
}

func TestListDir(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{
		"a.txt": "", "a/b.txt": "", "a-b": "", "B": "", ".hidden": "",
		"a/deep/c.txt": "", "node_modules/x.js": "", ".git/HEAD": "",
	})
	if err := os.Symlink("a.txt", filepath.Join(e.dir, "ln")); err != nil {
		t.Fatal(err)
	}
	if got, want := e.ok("list_dir", map[string]any{}), ".git/\n.hidden\nB\na-b\na.txt\na/\nln@\nnode_modules/\n"; got != want {
		t.Errorf("depth 1:\n%s\nwant\n%s", got, want)
	}
	got := e.ok("list_dir", map[string]any{"depth": 3, "ignore": []string{"node_modules", "*.js"}})
	want := ".git/\n.hidden\nB\na-b\na.txt\na/\na/b.txt\na/deep/\na/deep/c.txt\nln@\n"
	if got != want {
		t.Errorf("depth 3 with ignore:\n%s\nwant\n%s", got, want)
	}
	if got := e.ok("list_dir", map[string]any{"path": "a"}); got != "b.txt\ndeep/\n" {
		t.Errorf("subdirectory: %q", got)
	}
	e.fails("list_dir", map[string]any{"path": "a.txt"}, core.KindFailed, "a.txt is a file")
	e.fails("list_dir", map[string]any{"path": "zzz"}, core.KindFailed, "zzz does not exist")
	e.fails("list_dir", map[string]any{"ignore": []string{"[a"}}, core.KindFailed, "not a valid glob")
	e.fails("list_dir", map[string]any{"depth": 11}, core.KindInvalidArguments, "/depth")
}

func TestListDirBound(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	files := map[string]string{}
	for i := 0; i < 1005; i++ {
		files[fmt.Sprintf("f%04d", i)] = ""
	}
	e.write(files)
	got := e.ok("list_dir", map[string]any{})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 1001 || lines[999] != "f0999" {
		t.Fatalf("%d lines, line 1000 = %q", len(lines), lines[min(999, len(lines)-1)])
	}
	if lines[1000] != "[listing stopped at 1000 entries; 5 more not shown. List a subdirectory, lower depth or add ignore patterns]" {
		t.Errorf("note: %q", lines[1000])
	}
}
