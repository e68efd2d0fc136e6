package search

import (
	"bytes"
	"strings"
)

// binaryPrefix is how much of a file is checked for a NUL byte.
const binaryPrefix = 8 << 10

// isBinary reports whether data, the start of a file, marks it binary.
func isBinary(data []byte) bool {
	if len(data) > binaryPrefix {
		data = data[:binaryPrefix]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// lineSpan is one line of a buffer: its number and its bytes
// buf[start:end], without the "\n".
type lineSpan struct {
	num, start, end int
}

// lineEnd returns the offset of the "\n" that ends the line holding
// offset i, or len(buf).
func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}

// lineCounter turns line start offsets, met in increasing order, into
// line numbers.
type lineCounter struct {
	num, at int // the line starting at offset at has number num
}

func (c *lineCounter) lineOf(buf []byte, start int) int {
	c.num += bytes.Count(buf[c.at:start], []byte{'\n'})
	c.at = start
	return c.num
}

// matchLines returns the matching lines of a file's content.
func (m *matcher) matchLines(buf []byte, spans []lineSpan) []lineSpan {
	if m.multiline {
		return m.matchMultiline(buf, spans)
	}
	if m.never {
		return spans
	}
	n := len(buf)
	lc := lineCounter{num: 1}
	for pos := 0; pos < n; {
		var ls, le int
		if m.lit != nil {
			c := m.lit.index(buf[pos:])
			if c < 0 {
				break
			}
			c += pos
			ls = pos + bytes.LastIndexByte(buf[pos:c], '\n') + 1
			le = lineEnd(buf, c)
			if !m.exact && !m.re.Match(buf[ls:le]) {
				pos = le + 1
				continue
			}
		} else {
			loc := m.bufRe.FindIndex(buf[pos:])
			if loc == nil {
				break
			}
			c := pos + loc[0]
			if c == n && buf[n-1] == '\n' {
				break // not a line: the end after the last newline
			}
			ls = pos + bytes.LastIndexByte(buf[pos:c], '\n') + 1
			le = lineEnd(buf, c)
		}
		spans = append(spans, lineSpan{lc.lineOf(buf, ls), ls, le})
		pos = le + 1
	}
	return spans
}

func (m *matcher) matchMultiline(buf []byte, spans []lineSpan) []lineSpan {
	n := len(buf)
	if m.lit != nil && m.lit.index(buf) < 0 {
		return spans
	}
	lc := lineCounter{num: 1}
	last := 0 // number of the last line added
	for pos := 0; pos < n; {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			break
		}
		s, e := pos+loc[0], pos+loc[1]
		if s == n && buf[n-1] == '\n' {
			break
		}
		end := max(s, e-1) // the last byte the match touches
		ls := bytes.LastIndexByte(buf[:s], '\n') + 1
		num := lc.lineOf(buf, ls)
		for {
			le := lineEnd(buf, ls)
			if num > last {
				spans = append(spans, lineSpan{num, ls, le})
				last = num
			}
			if le >= end || le >= n {
				break
			}
			ls = le + 1
			num = lc.lineOf(buf, ls)
		}
		pos = e
		if e == s {
			pos++
		}
	}
	return spans
}

// withContext returns the lines to report for the matching lines spans:
// each match and up to before/after lines around it, each line once, in
// order. The texts share one string.
func withContext(buf []byte, spans []lineSpan, before, after int) []Line {
	var sel []lineSpan // the lines to report; num < 0 marks context
	if before <= 0 && after <= 0 {
		sel = spans
	} else {
		before, after = max(before, 0), max(after, 0)
		n := len(buf)
		sel = make([]lineSpan, 0, len(spans)*2)
		for i := 0; i < len(spans); {
			first := max(1, spans[i].num-before)
			last := spans[i].num + after
			j := i + 1
			for j < len(spans) && spans[j].num-before <= last+1 {
				last = max(last, spans[j].num+after)
				j++
			}
			off := spans[i].start
			for k := spans[i].num; k > first; k-- {
				off = bytes.LastIndexByte(buf[:off-1], '\n') + 1
			}
			for num, k := first, i; num <= last && off < n; num++ {
				end := lineEnd(buf, off)
				sp := lineSpan{-num, off, end}
				if k < j && spans[k].num == num {
					sp.num = num
					k++
				}
				sel = append(sel, sp)
				off = end + 1
			}
			i = j
		}
	}
	size := 0
	for _, sp := range sel {
		size += sp.end - sp.start
	}
	var b strings.Builder
	b.Grow(size)
	for _, sp := range sel {
		b.Write(buf[sp.start:sp.end])
	}
	texts := b.String()
	lines := make([]Line, len(sel))
	at := 0
	for i, sp := range sel {
		l := sp.end - sp.start
		lines[i] = Line{Number: sp.num, Text: texts[at : at+l], Match: sp.num > 0}
		if sp.num < 0 {
			lines[i].Number = -sp.num
		}
		at += l
	}
	return lines
}
