//go:build unix

package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// TestReadSpecial: a FIFO and a device are refused at once, without
// waiting for a writer or reading without end; the timeout turns a
// regression into a failure rather than a hang.
func TestReadSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{fifo: fifo + " is a named pipe, not a regular file"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		want["/dev/zero"] = "/dev/zero is a character device, not a regular file"
	}
	for path, msg := range want {
		done := make(chan error, 1)
		go func() { _, err := Read(path, 1<<20); done <- err }()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || err.Error() != msg {
				t.Errorf("Read(%s) = %v; want %q", path, err, msg)
			}
		case <-time.After(testwait.Step):
			t.Fatalf("Read(%s) did not return", path)
		}
	}
}

// TestOpenLinks: FollowLinks opens what a link points to; RefuseLinks
// refuses the link, whatever it points to.
func TestOpenLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	f, err := Open(link, os.O_RDONLY, FollowLinks)
	if err != nil {
		t.Fatalf("Open(link, FollowLinks) = %v", err)
	}
	f.Close()
	_, err = Open(link, os.O_RDWR|os.O_APPEND, RefuseLinks)
	var nr *NotRegularError
	if !errors.As(err, &nr) || err.Error() != link+" is a symbolic link, not a regular file" {
		t.Errorf("Open(link, RefuseLinks) = %v; want it refused as a link", err)
	}
	if f, err := Open(target, os.O_RDWR|os.O_APPEND, RefuseLinks); err != nil {
		t.Errorf("Open(target, RefuseLinks) = %v", err)
	} else {
		f.Close()
	}
}
