//go:build unix

package search

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeFd is a fake fd that says its version like fd and then runs script.
func fakeFd(t *testing.T, script string) *Fd {
	t.Helper()
	fakeProgram(t, "fd", `if [ "$1" = --version ]; then printf 'fd 8.6.0\n'; exit 0; fi`+"\n"+script)
	fd, err := NewFd(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// TestFdAbnormalExit checks that fd ending abnormally is an error, never
// a partial listing.
func TestFdAbnormalExit(t *testing.T) {
	cases := []struct {
		name, script, want string
	}{
		{"killed", `kill -KILL $$`, "fd ended abnormally (signal: killed)"},
		{"killed after output", `printf './a.txt\000'; kill -KILL $$`, "fd ended abnormally (signal: killed)"},
		{"status 1", `printf '[fd error]: Search path does not exist\n' >&2; exit 1`, "fd ended abnormally (exit status 1): [fd error]: Search path does not exist"},
		{"a message", `printf './a.txt\000'; printf 'something odd\n' >&2`, "fd failed: something odd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fd := fakeFd(t, c.script)
			writeTestFiles(t, fd.root, map[string]string{"a.txt": "", "b.txt": ""})
			got, err := globResult(fd, GlobRequest{Pattern: "**"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
			if got != "" {
				t.Errorf("emitted %q", got)
			}
		})
	}
}

// TestFdListingChecked gives the backend an fd that lies, or misses part
// of the tree.
func TestFdListingChecked(t *testing.T) {
	outside := t.TempDir()
	writeTestFiles(t, outside, map[string]string{"secret.txt": ""})
	cases := []struct {
		name, script, want string
	}{
		// Only names of regular files below the root, reached through
		// directories, are emitted.
		{"lies", `printf './a.txt\000./link/secret.txt\000./missing.txt\000./fifo\000./d/../b.txt\000./d/./c.txt\000./d/c.txt\000./d/c.txt\000'`, "a.txt\nd/c.txt\n"},
		// fd could not read part of the tree: the native walk answers.
		{"missed", `printf './a.txt\000'; printf '[fd error]: ./d: File name too long (os error 36)\n' >&2`, "a.txt\nb.txt\nd/c.txt\n"},
		// Permission errors: skipped, as on every backend.
		{"denied", `printf './a.txt\000'; printf '[fd error]: ./d: Permission denied (os error 13)\n' >&2`, "a.txt\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fd := fakeFd(t, c.script)
			writeTestFiles(t, fd.root, map[string]string{"a.txt": "", "b.txt": "", "d/c.txt": ""})
			if err := os.Symlink(outside, filepath.Join(fd.root, "link")); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(fd.root, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := globResult(fd, GlobRequest{Pattern: "**", Hidden: true})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
