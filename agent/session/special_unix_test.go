//go:build unix

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// within fails the test if fn has not returned after a while: opening a
// FIFO for reading would otherwise hang the test rather than fail it.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(testwait.Step):
		t.Fatalf("%s did not return: it waits on a special file", what)
	}
}

// TestSpecialSessionFiles: a session path that is a FIFO, a symbolic link
// or a directory is refused by Open, Load, List and Latest, clearly and
// at once; the file a link points to is left as it was.
func TestSpecialSessionFiles(t *testing.T) {
	st := newStore(t, "/w")
	dir, err := st.dir()
	must(t, err)
	must(t, os.MkdirAll(dir, 0o700))
	target := filepath.Join(t.TempDir(), "elsewhere.txt")
	must(t, os.WriteFile(target, []byte("not to be touched\n"), 0o600))
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"+fileExt), 0o600))
	must(t, os.Symlink(target, filepath.Join(dir, "link"+fileExt)))
	must(t, os.Mkdir(filepath.Join(dir, "dir"+fileExt), 0o700))
	for id, kind := range map[string]string{"pipe": "a named pipe", "link": "a symbolic link", "dir": "a directory"} {
		t.Run(id, func(t *testing.T) {
			want := filepath.Join(dir, id+fileExt) + " is " + kind + ", not a regular file"
			within(t, "Open", func() {
				_, _, err := st.Open(id)
				if err == nil || err.Error() != "session "+id+": "+want+"; remove it, or start a session of another name" || !errors.Is(err, ErrUnusable) {
					t.Errorf("Open(%s) = %v", id, err)
				}
			})
			within(t, "Load", func() {
				if _, err := Load(filepath.Join(dir, id+fileExt)); err == nil || !strings.Contains(err.Error(), want+"; remove it") {
					t.Errorf("Load(%s) = %v", id, err)
				}
			})
		})
	}
	within(t, "List and Latest", func() {
		if list, err := st.List(""); err != nil || len(list) != 0 {
			t.Errorf("List() = %+v, %v; want none", list, err)
		}
		if _, ok, err := st.Latest(""); ok || err != nil {
			t.Errorf("Latest() found one: %v", err)
		}
	})
	if b, err := os.ReadFile(target); err != nil || string(b) != "not to be touched\n" {
		t.Errorf("the link's target now holds %q (%v)", b, err)
	}
}
