package search

import (
	"errors"
	"io"
)

// sizer is a reader that knows the size of its file.
type sizer interface {
	size() (int64, error)
}

// readAll reads r to its end into buf[:0], growing it. If binary is not
// nil and the first 8 KiB hold a NUL byte, it stops there and sets
// *binary.
func readAll(r io.Reader, buf []byte, binary *bool) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 64<<10)
	}
	buf = buf[:0]
	checked := binary == nil
	for {
		if len(buf) == cap(buf) {
			// A big file: grow once to its size (and a bit, to see the
			// end), not in many steps.
			want := 2 * cap(buf)
			if s, ok := r.(sizer); ok {
				if n, err := s.size(); err == nil && int(n)+4096 > want {
					want = int(n) + 4096
				}
			}
			nb := make([]byte, len(buf), want)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if !checked && (len(buf) >= binaryPrefix || err != nil || n == 0) {
			if isBinary(buf) {
				*binary = true
				return buf, nil
			}
			checked = true
		}
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readHead reads up to the first 8 KiB of r into buf.
func readHead(r io.Reader, buf []byte) ([]byte, error) {
	if cap(buf) < binaryPrefix {
		buf = make([]byte, binaryPrefix)
	}
	buf = buf[:binaryPrefix]
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return buf[:n], err
}
