package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"golang.org/x/sys/unix"
)

// The walk's own look at the file refuses special files before opening
// them; the checks on the open descriptor are what stops one swapped in
// after that look. Here the walk is told a regular file is there: opening
// a named pipe must not block, and neither a pipe with a writer nor a
// device is read.
func TestReadChecksTheOpenDescriptor(t *testing.T) {
	l, dir := openTestFiles(t, map[string]string{"regular": "r"}, nil)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	names := map[string]fs.FileMode{"fifo": fs.ModeNamedPipe}
	if err := unix.Mknod(filepath.Join(dir, "zero"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 5))); err == nil {
		names["zero"] = fs.ModeDevice | fs.ModeCharDevice
	} else {
		t.Logf("mknod: %v; not testing a device", err)
	}
	regular, err := l.Stat(context.Background(), "regular")
	if err != nil {
		t.Fatal(err)
	}
	for _, withWriter := range []bool{false, true} {
		if withWriter {
			w, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.Write([]byte("data waiting in the pipe")); err != nil {
				t.Fatal(err)
			}
		}
		for name, mode := range names {
			done := make(chan error, 1)
			go func() {
				r, err := l.walk(name, false)
				defer r.close()
				if err != nil {
					done <- err
					return
				}
				r.info = regular // as if the file had been swapped since
				data, _, err := r.read(context.Background(), name, 1<<20)
				if data != nil {
					t.Errorf("%s: read %d bytes", name, len(data))
				}
				done <- err
			}()
			select {
			case err := <-done:
				var nr *NotRegularError
				if !errors.As(err, &nr) || nr.Mode != mode {
					t.Errorf("%s (writer %v): %v, want a NotRegularError for %v", name, withWriter, err, mode)
				}
			case <-time.After(testwait.Step):
				t.Fatalf("%s (writer %v): read blocked", name, withWriter)
			}
		}
	}
}
