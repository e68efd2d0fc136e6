//go:build linux

package search

import (
	"io"

	"golang.org/x/sys/unix"
)

var _ searchFile = rawFile(0)

// ReadAt implements io.ReaderAt with pread.
func (f rawFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		k, err := unix.Pread(int(f), p[n:], off+int64(n))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return n, err
		case k == 0:
			return n, io.EOF
		}
		n += k
	}
	return n, nil
}
