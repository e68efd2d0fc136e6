package search

import "bytes"

// literal finds a string in a buffer, optionally ignoring ASCII case.
//
// It looks for the literal's rarest byte (by byteFreq, both cases of it
// when folding) with bytes.IndexByte, which runs at memory speed, and
// compares the literal around each occurrence. bytes.Index looks for the
// first byte instead, and falls back to comparing at every position when
// that byte is common: `atomic.AddInt64(&` over the Go source tree took
// 72 ms of CPU that way, against 24 ms for rg. Where even the rarest byte
// turns out common in a text (more than one occurrence in 16 bytes, past
// the first few, the rule bytes.Index uses), the rest of the text is
// left to bytes.Index, or for a folded literal compared at every
// position, so no text costs more than that.
type literal struct {
	s    []byte // lowercased when fold
	fold bool
	// The rarest byte of s, at offset off, in both cases (lo == up when
	// it has one case or fold is not set).
	off    int
	lo, up byte
}

func newLiteral(s string, fold bool) *literal {
	l := &literal{s: []byte(s), fold: fold}
	freq := func(c byte) uint32 {
		if fold && c >= 'a' && c <= 'z' {
			return byteFreq[c] + byteFreq[c-'a'+'A']
		}
		return byteFreq[c]
	}
	for i := 1; i < len(s); i++ {
		if freq(s[i]) < freq(s[l.off]) {
			l.off = i
		}
	}
	if len(s) > 0 {
		l.lo, l.up = s[l.off], s[l.off]
		if fold && l.lo >= 'a' && l.lo <= 'z' {
			l.up = l.lo - 'a' + 'A'
		}
	}
	return l
}

// tooCommon reports whether hits occurrences of the rare byte in the
// first at bytes of a text are too many to go on looking for it.
func tooCommon(hits, at int) bool {
	return hits > 4+at>>4
}

// index returns the offset of the first occurrence in h, or -1.
func (l *literal) index(h []byte) int {
	n := len(l.s)
	switch {
	case n == 0:
		return 0
	case l.fold:
		return l.indexFold(h)
	case n == 1:
		return bytes.IndexByte(h, l.lo)
	}
	hits := 0
	for i := l.off; i < len(h); {
		j := bytes.IndexByte(h[i:], l.lo)
		if j < 0 {
			return -1
		}
		c := i + j
		start := c - l.off
		if start+n > len(h) {
			return -1
		}
		if bytes.Equal(h[start:start+n], l.s) {
			return start
		}
		i = c + 1
		if hits++; tooCommon(hits, i) {
			if k := bytes.Index(h[start+1:], l.s); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
	}
	return -1
}

// indexFold is index for a folded literal.
func (l *literal) indexFold(h []byte) int {
	n := len(l.s)
	nextLo, nextUp := -2, -2 // cached positions of the rare byte; -1: none left
	if l.lo == l.up {
		nextUp = -1
	}
	hits := 0
	for i := l.off; ; {
		if nextLo != -1 && nextLo < i {
			nextLo = indexFrom(h, l.lo, i)
		}
		if nextUp != -1 && nextUp < i {
			nextUp = indexFrom(h, l.up, i)
		}
		c := nextLo
		if c < 0 || (nextUp >= 0 && nextUp < c) {
			c = nextUp
		}
		if c < 0 {
			return -1
		}
		start := c - l.off
		if start+n > len(h) {
			return -1
		}
		if equalFoldASCII(h[start:start+n], l.s) {
			return start
		}
		i = c + 1
		if hits++; tooCommon(hits, i) {
			return l.scanFold(h, start+1)
		}
	}
}

// scanFold compares a folded literal at every position of h from
// offset from on, and returns the first that matches, or -1.
func (l *literal) scanFold(h []byte, from int) int {
	n := len(l.s)
	first := l.s[0]
	for i := from; i+n <= len(h); i++ {
		c := h[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == first && equalFoldASCII(h[i:i+n], l.s) {
			return i
		}
	}
	return -1
}

func indexFrom(h []byte, c byte, from int) int {
	if from >= len(h) {
		return -1
	}
	if i := bytes.IndexByte(h[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// equalFoldASCII reports whether h equals the lowercase lower when ASCII
// letters in h are lowercased.
func equalFoldASCII(h, lower []byte) bool {
	for i, c := range h {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
