package process

import (
	"strconv"
	"sync"
	"unicode/utf8"
)

// CapOutput returns s when it has at most max characters (runes);
// otherwise it keeps the first and last characters of s around a marker
// line saying how many characters were cut, so that the result has at most
// max characters:
//
//	<head>
//	... [12345 characters omitted] ...
//	<tail>
//
// A UTF-8 character is never split. max <= 0 means no limit. When max is
// too small to hold the marker, the result is the first max characters.
func CapOutput(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s // a string of n bytes has at most n characters
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	// The marker's length depends on the number it shows, which depends on
	// the marker's length; two rounds settle it.
	omitted := n - max
	var marker string
	for range 5 {
		marker = capMarker(omitted, "characters")
		next := n - (max - utf8.RuneCountInString(marker))
		if next == omitted {
			break
		}
		omitted = next
	}
	keep := max - utf8.RuneCountInString(marker)
	if keep < 2 {
		return s[:runeOffset(s, max)]
	}
	head := (keep + 1) / 2
	tail := keep - head
	return s[:runeOffset(s, head)] + marker + s[runeOffset(s, n-tail):]
}

// capMarker is the line that replaces what was cut.
func capMarker(n int, unit string) string {
	return "\n... [" + strconv.Itoa(n) + " " + unit + " omitted] ...\n"
}

// runeOffset is the byte offset of the i-th rune of s (len(s) past the
// end).
func runeOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// capBuffer is an io.Writer that keeps the first and the last bytes
// written, up to max in all, and counts the rest. It is safe for
// concurrent use.
type capBuffer struct {
	mu      sync.Mutex
	headMax int
	head    []byte
	tail    ring
	total   int64
}

func newCapBuffer(max int) *capBuffer {
	if max <= 0 {
		max = DefaultMaxOutput
	}
	headMax := (max + 1) / 2
	return &capBuffer{headMax: headMax, tail: ring{size: max - headMax}}
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	b.tail.write(p)
	return n, nil
}

// Bytes returns the head, a marker line when bytes were dropped, and the
// tail. The cut moves by up to 3 bytes so as not to split a UTF-8
// character; the marker counts what was really left out.
func (b *capBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := b.tail.bytes()
	kept := int64(len(b.head) + len(tail))
	if kept == b.total {
		return append(append([]byte{}, b.head...), tail...)
	}
	head := b.head[:len(b.head)-partialRuneSuffix(b.head)]
	for i := 0; i < 3 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	omitted := b.total - int64(len(head)+len(tail))
	marker := capMarker(int(omitted), "bytes")
	out := make([]byte, 0, len(head)+len(marker)+len(tail))
	return append(append(append(out, head...), marker...), tail...)
}

// partialRuneSuffix is the length of an incomplete UTF-8 sequence at the
// end of p (0 when p ends with a complete or invalid one).
func partialRuneSuffix(p []byte) int {
	for i := 1; i <= 3 && i <= len(p); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// ring keeps the last size bytes written.
type ring struct {
	size  int
	buf   []byte // allocated on first use
	start int    // index of the oldest byte
	n     int    // bytes held
}

func (r *ring) write(p []byte) {
	if len(p) == 0 || r.size == 0 {
		return
	}
	if r.buf == nil {
		r.buf = make([]byte, r.size)
	}
	if len(p) >= r.size {
		copy(r.buf, p[len(p)-r.size:])
		r.start, r.n = 0, r.size
		return
	}
	end := (r.start + r.n) % r.size
	c := copy(r.buf[end:], p)
	copy(r.buf, p[c:])
	r.n += len(p)
	if r.n > r.size {
		r.start = (r.start + r.n - r.size) % r.size
		r.n = r.size
	}
}

func (r *ring) bytes() []byte {
	out := make([]byte, 0, r.n)
	if r.start+r.n <= r.size {
		return append(out, r.buf[r.start:r.start+r.n]...)
	}
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start+r.n-r.size]...)
}
