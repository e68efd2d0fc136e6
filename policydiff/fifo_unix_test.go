//go:build unix

package policydiff_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFOSource: a named pipe nobody writes is refused at once, not
// waited on.
func TestFIFOSource(t *testing.T) {
	dir := setup(t, map[string]string{"p.star": nothing})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := run(dir, "p.star", "p.star", "fifo")
	if err == nil || !strings.Contains(err.Error(), "fifo: it is a named pipe, not a regular file") {
		t.Errorf("a FIFO source: %v", err)
	}
}
