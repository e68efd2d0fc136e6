package agentsh_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBuildOutputsTracked checks that git tracks no built binary and
// nothing .gitignore ignores (a file added before its pattern was).
func TestNoBuildOutputsTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH; it lists the tracked files")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not a git checkout; nothing is tracked")
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files --ignored: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f != "" {
			t.Errorf("%s is tracked but .gitignore ignores it: git rm --cached it", f)
		}
	}
	out, err = exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	magic := [][]byte{[]byte("\x7fELF"), []byte("MZ"), {0xcf, 0xfa, 0xed, 0xfe}} // ELF, PE, Mach-O
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		head := make([]byte, 4)
		file, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		n, _ := io.ReadFull(file, head)
		file.Close()
		for _, m := range magic {
			if bytes.HasPrefix(head[:n], m) {
				t.Errorf("%s is a built binary: git rm --cached it", f)
			}
		}
	}
}
