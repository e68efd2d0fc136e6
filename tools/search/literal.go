package search

import "bytes"

// literal finds a string in a buffer, optionally ignoring ASCII case.
type literal struct {
	s    []byte // lowercased when fold
	fold bool
	// fold: the rarest byte of s, at offset off, in both cases.
	off    int
	lo, up byte
}

func newLiteral(s string, fold bool) *literal {
	l := &literal{s: []byte(s), fold: fold}
	if fold {
		best := -1
		for i := 0; i < len(s); i++ {
			if best < 0 || byteRank(s[i]) < byteRank(s[best]) {
				best = i
			}
		}
		l.off = best
		l.lo = s[best]
		l.up = l.lo
		if l.lo >= 'a' && l.lo <= 'z' {
			l.up = l.lo - 'a' + 'A'
		}
	}
	return l
}

// index returns the offset of the first occurrence in h, or -1.
func (l *literal) index(h []byte) int {
	if !l.fold {
		return bytes.Index(h, l.s)
	}
	n := len(l.s)
	nextLo, nextUp := -2, -2 // cached positions of the rare byte; -1: none left
	if l.lo == l.up {
		nextUp = -1
	}
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
		if start := c - l.off; start+n <= len(h) && equalFoldASCII(h[start:start+n], l.s) {
			return start
		}
		i = c + 1
	}
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

// byteRank estimates how common a byte is in source code and prose,
// folding case (lower is rarer).
func byteRank(c byte) int {
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	const common = " etaoinsrhldcumfpgwybvkxjqz"
	for i := 0; i < len(common); i++ {
		if common[i] == c {
			return 100 - i
		}
	}
	switch c {
	case '\t', '(', ')', '.', ',', ';', '_', '"', '=', '{', '}', '/', '*', '-', ':':
		return 60
	}
	if c >= '0' && c <= '9' {
		return 55
	}
	return 10
}
