package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// searchFile is an open file being searched. Grep reads it with ReadAt
// only, so a search can go back to the start of a line it has streamed
// past.
type searchFile interface {
	io.ReaderAt
	io.Closer
}

// maxReadAll is the most readAll reads: the size above which git too
// ignores a .gitignore file (PATTERN_MAX_FILE_SIZE in git's dir.c).
const maxReadAll = 100 << 20

// readAll reads a small file, such as a .gitignore, whole. A file larger
// than maxReadAll is an error, read no further than that.
func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxReadAll+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReadAll {
		return nil, fmt.Errorf("search: file larger than %d bytes", maxReadAll)
	}
	return data, nil
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

// window holds a stretch of a file: buf[:n] are its bytes from offset
// off. It is refilled with ReadAt, so it can move anywhere in the file.
type window struct {
	f   io.ReaderAt
	buf []byte
	off int64
	n   int
	eof bool  // the file ends at off+n
	err error // a read error other than io.EOF; nothing more is read
}

// reset points the window at a new file, keeping its buffer.
func (w *window) reset(f io.ReaderAt) {
	*w = window{f: f, buf: w.buf}
}

// data returns the bytes held from offset at (which the window holds).
func (w *window) data(at int64) []byte {
	return w.buf[at-w.off : w.n]
}

// end is the file offset just past the bytes held.
func (w *window) end() int64 { return w.off + int64(w.n) }

// done reports whether nothing more can be read past the bytes held.
func (w *window) done() bool { return w.eof || w.err != nil }

// moveTo makes the window start at offset at, keeping what it holds from
// there on, and fills the rest of the buffer. If the buffer is full of
// bytes from at and grow is set, it first grows the buffer, up to max.
func (w *window) moveTo(at int64, grow bool, max int) {
	if at >= w.off && at <= w.end() {
		k := int(at - w.off)
		copy(w.buf, w.buf[k:w.n])
		w.n -= k
	} else {
		w.n, w.eof = 0, false
	}
	w.off = at
	if grow && w.n == len(w.buf) && len(w.buf) < max {
		nb := make([]byte, min(2*len(w.buf), max))
		copy(nb, w.buf[:w.n])
		w.buf = nb
	}
	for w.n < len(w.buf) && !w.done() {
		k, err := w.f.ReadAt(w.buf[w.n:], w.end())
		w.n += k
		switch {
		case err == io.EOF:
			w.eof = true
		case err != nil:
			w.err = err
		case k == 0:
			w.eof = true // a reader that gives nothing more has ended
		}
	}
}

// runeStream reads a file from an offset as runes, for Go's regexp to
// match a line or a file too long for a window, in constant memory. In
// line mode the stream ends before the first "\n". It checks ctx every
// so many runes and when it refills, and ends early when ctx is done or
// a read fails (err says why), so a match over it stops promptly; the
// caller must look at err before trusting a result.
type runeStream struct {
	w     window
	size  int  // of w.buf, made when first needed
	i     int  // read position in w.buf
	line  bool // the stream ends at "\n"
	ctx   context.Context
	every int // runes between checks of ctx
	left  int
	err   error
}

// start makes r stream f, with a buffer of size bufSize, checking ctx
// every so many runes; seek says where from.
func (r *runeStream) start(ctx context.Context, f io.ReaderAt, every, bufSize int) {
	if len(r.w.buf) != bufSize {
		r.w.buf = nil
	}
	r.size = bufSize
	r.w.reset(f)
	r.ctx, r.every, r.left, r.err = ctx, max(every, 1), max(every, 1), nil
}

// seek moves the stream to offset off, in line mode or not.
func (r *runeStream) seek(off int64, line bool) {
	r.line = line
	if r.w.buf == nil {
		r.w.buf = make([]byte, r.size)
	}
	if off >= r.w.off && off <= r.w.end() && r.w.n > 0 {
		r.i = int(off - r.w.off)
		return
	}
	r.w.moveTo(off, false, 0)
	r.i = 0
}

// pos returns the offset of the next byte the stream reads.
func (r *runeStream) pos() int64 { return r.w.off + int64(r.i) }

// fill makes the buffer hold more than keep unread bytes, if the file
// has them. It returns false if the stream must end early: ctx is done
// or a read failed.
func (r *runeStream) fill(keep int) bool {
	if r.w.n-r.i > keep || r.w.eof {
		return true
	}
	if r.w.err == nil {
		if r.err = r.ctx.Err(); r.err != nil {
			return false
		}
		r.w.moveTo(r.pos(), false, 0)
		r.i = 0
	}
	r.err = r.w.err
	return r.err == nil
}

// ReadRune implements io.RuneReader, decoding as utf8.DecodeRune does
// (an invalid byte is utf8.RuneError of width 1), as Go's regexp does
// for a []byte.
func (r *runeStream) ReadRune() (rune, int, error) {
	if !r.fill(utf8.UTFMax - 1) {
		return 0, 0, r.err
	}
	if r.i >= r.w.n {
		return 0, 0, io.EOF
	}
	c := r.w.buf[r.i]
	if c == '\n' && r.line {
		return 0, 0, io.EOF
	}
	if r.left--; r.left <= 0 {
		r.left = r.every
		if r.err = r.ctx.Err(); r.err != nil {
			return 0, 0, r.err
		}
	}
	if c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	x, size := utf8.DecodeRune(r.w.buf[r.i:r.w.n])
	r.i += size
	return x, size, nil
}

// chunk returns the unread bytes the buffer holds, refilling it first if
// it holds no more than keep. atEnd is set if they run to the end of the
// stream: of the file, or of the line in line mode (the "\n" is left
// out). ok is false if the stream must end early.
func (r *runeStream) chunk(keep int) (data []byte, atEnd, ok bool) {
	if !r.fill(keep) {
		return nil, false, false
	}
	data = r.w.buf[r.i:r.w.n]
	if r.line {
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			return data[:j], true, true
		}
	}
	return data, r.w.eof, true
}

// findLiteral reports whether the rest of the stream holds l. It leaves
// the stream past the first occurrence, or at its end.
func (r *runeStream) findLiteral(l *literal) bool {
	keep := len(l.s) - 1 // an occurrence may straddle a refill
	for {
		data, atEnd, ok := r.chunk(keep)
		if !ok {
			return false
		}
		if i := l.index(data); i >= 0 {
			r.i += i + len(l.s)
			return true
		}
		if atEnd {
			r.i += len(data)
			return false
		}
		r.i += len(data) - keep
	}
}

// skipLine moves the stream past the end of its line: past the "\n", or
// to the end of the file. It returns the offset it is at; ok is false if
// the stream ended early.
func (r *runeStream) skipLine() (next int64, ok bool) {
	r.line = true
	for {
		data, atEnd, ok := r.chunk(0)
		if !ok {
			return 0, false
		}
		r.i += len(data)
		if atEnd {
			if r.i < r.w.n { // at the "\n"
				r.i++
			}
			return r.pos(), true
		}
	}
}

// atEOF reports whether the stream is at the end of the file; ok is false
// if the stream ended early.
func (r *runeStream) atEOF() (eof, ok bool) {
	if !r.fill(0) {
		return false, false
	}
	return r.i >= r.w.n, true
}
