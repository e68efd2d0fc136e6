//go:build linux

package search

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// deepTree makes root/d/d/.../d, depth directories deep (each made
// relative to its parent's descriptor: no path that long can be named
// from the root), with needle files at the top, at depth mid, and at the
// bottom.
func deepTree(t *testing.T, root string, depth, mid int) {
	t.Helper()
	write := func(dir int, name string) {
		fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if _, err := unix.Write(fd, []byte("needle "+name+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { unix.Close(dir) }()
	write(dir, "top.txt")
	for i := 1; i <= depth; i++ {
		if err := unix.Mkdirat(dir, "d", 0o755); err != nil {
			t.Fatalf("depth %d: %v", i, err)
		}
		next, err := unix.Openat(dir, "d", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatalf("depth %d: %v", i, err)
		}
		unix.Close(dir)
		dir = next
		if i == mid {
			write(dir, "mid.txt")
		}
	}
	write(dir, "deep.txt")
}

// TestDeepPaths checks trees deeper than PATH_MAX: rg and fd cannot open
// what lies that deep, so their backends must say so or answer as the
// native backend does, never leave those files out. Here they answer.
func TestDeepPaths(t *testing.T) {
	const depth = 5000
	root := t.TempDir()
	deepTree(t, root, depth, 1000)

	grepReqs := []GrepRequest{{Pattern: "needle"}, {Pattern: "needle", Path: "d/d", After: 1}}
	globReqs := []GlobRequest{{Pattern: "**/*.txt"}, {Pattern: "**/deep.txt", Path: "d"}}
	native := NewNative(root)
	for _, req := range grepReqs {
		want, err := grepResult(native, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, strings.Repeat("d/", depth)+"deep.txt#1\n") || !strings.Contains(want, "mid.txt#1\n") {
			t.Fatalf("%+v: native misses the deep files", req)
		}
		if _, err := exec.LookPath("rg"); err != nil {
			t.Log("ripgrep (rg) not found, its backend is not tried; apt-get install ripgrep")
			continue
		}
		rg, err := NewRipgrep(root)
		if err != nil {
			t.Fatal(err)
		}
		got, err := grepResult(rg, req)
		if err != nil {
			t.Fatalf("ripgrep %+v: %v", req, err)
		}
		if got != want {
			t.Errorf("ripgrep %+v differs from native: %d bytes, want %d (deep file found: %v)",
				req, len(got), len(want), strings.Contains(got, "deep.txt"))
		}
	}
	globbers := map[string]Globber{"native": native}
	if rg, err := NewRipgrep(root); err == nil {
		globbers["ripgrep"] = rg
	}
	if fd, err := NewFd(root); err == nil {
		globbers["fd"] = fd
	} else {
		t.Log("fd not found (looked for fd and fdfind), its backend is not tried; apt-get install fd-find")
	}
	for _, req := range globReqs {
		want, err := globResult(native, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, strings.Repeat("d/", depth)+"deep.txt\n") {
			t.Fatalf("%+v: native misses the deep file", req)
		}
		for name, g := range globbers {
			got, err := globResult(g, req)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, req, err)
			}
			if got != want {
				t.Errorf("%s %+v differs from native: %d bytes, want %d (deep file found: %v)",
					name, req, len(got), len(want), strings.Contains(got, "deep.txt"))
			}
		}
	}

	// os.RemoveAll removes such a tree (t.TempDir's cleanup relies on it).
	if err := os.RemoveAll(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after os.RemoveAll: %v, want it gone", err)
	}
}
