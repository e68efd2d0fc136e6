package search

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The walk opens what its listing said was a regular file; if a FIFO has
// been put there since, openFile neither blocks nor reads it.
func TestOpenFileRefusesWhatIsNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newDiskSource(nil, dir)
	d, err := s.openDir(nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(d.sys.fd)
	if f, err := d.openFile("fifo"); !errors.Is(err, errNotRegular) {
		if f != nil {
			f.Close()
		}
		t.Errorf("openFile of a FIFO: %v, want errNotRegular", err)
	}
	f, err := d.openFile("file")
	if err != nil {
		t.Fatalf("openFile of a regular file: %v", err)
	}
	f.Close()
}
