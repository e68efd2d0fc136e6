//go:build unix

package replay

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/internal/userfile"
)

// TestOpenRefusesAFIFO: replay:FIFO is refused at once, naming what it
// is, rather than waiting for a writer.
func TestOpenRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "run.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Open(fifo); done <- err }()
	select {
	case err := <-done:
		var nr *userfile.NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), "is a named pipe, not a regular file") {
			t.Errorf("Open(FIFO) = %v", err)
		}
	case <-time.After(testwait.Step):
		t.Fatal("Open(FIFO) waits for a writer")
	}
}
