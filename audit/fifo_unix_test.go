//go:build unix

package audit

import (
	"path/filepath"
	"syscall"
	"testing"
)

func mkfifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
