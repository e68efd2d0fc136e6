//go:build unix

package main

import (
	"testing"

	"golang.org/x/sys/unix"
)

// releaseWhenDone makes the named pipe a waiting hook reads, and at the
// end of the test opens and closes it, so a hook the client left waiting
// reads its end and exits.
func releaseWhenDone(t *testing.T, fifo string) {
	t.Helper()
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// No reader (the client killed its hook) is ENXIO: nothing waits.
		if fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			unix.Close(fd)
		}
	})
}
