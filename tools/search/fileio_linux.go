//go:build linux

package search

import (
	"io"
	"syscall"
)

var _ searchFile = rawFile(0)

// ReadAt implements io.ReaderAt with pread.
func (f rawFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		k, err := syscall.Pread(int(f), p[n:], off+int64(n))
		switch {
		case err == syscall.EINTR:
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
