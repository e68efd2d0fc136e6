package search

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"unicode/utf8"
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

// lineText returns what a result reports of a line (given without its
// "\n"): the line, or if it is longer than MaxLineBytes, its first
// MaxLineBytes bytes less a UTF-8 character the cut would split. It looks
// at no more than the first MaxLineBytes+utf8.UTFMax bytes, so a caller
// may pass just those of a longer line. Every backend reports lines
// through it.
func lineText(line []byte) []byte {
	if len(line) <= MaxLineBytes {
		return line
	}
	cut := MaxLineBytes
	for i := cut - 1; i >= 0 && i > cut-utf8.UTFMax; i-- {
		if utf8.RuneStart(line[i]) {
			if r, size := utf8.DecodeRune(line[i:]); (r != utf8.RuneError || size > 1) && i+size > cut {
				cut = i
			}
			break
		}
	}
	return line[:cut]
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

// matchLines appends the matching lines of buf, whole lines of a file
// whose first is line number first, to spans. The counter it returns has
// counted the lines up to the last match. Unless m.mode is ModeContent,
// the spans are not numbered (num 0) and the counter counts nothing; with
// ModeFiles, it stops at the first matching line.
func (m *matcher) matchLines(buf []byte, first int, spans []lineSpan) ([]lineSpan, lineCounter) {
	lc := lineCounter{num: first}
	if m.never {
		return spans, lc
	}
	n := len(buf)
	for pos := 0; pos < n; {
		var ls, le int
		if m.lit != nil {
			c := m.lit.index(buf[pos:])
			if c < 0 {
				break
			}
			c += pos
			le = lineEnd(buf, c)
			if m.exact && m.mode != ModeContent {
				ls = c // where the line starts is not reported
			} else {
				ls = pos + bytes.LastIndexByte(buf[pos:c], '\n') + 1
			}
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
		num := 0
		if m.mode == ModeContent {
			num = lc.lineOf(buf, ls)
		}
		spans = append(spans, lineSpan{num, ls, le})
		if m.mode == ModeFiles {
			break
		}
		pos = le + 1
	}
	return spans, lc
}

// matchMultiline appends the matching lines of a whole file to spans
// (with ModeFiles, those of its first match). It checks ctx between
// matches, each of which runs the pattern once over the rest of the
// file; it returns ctx's error if that is done.
func (m *matcher) matchMultiline(ctx context.Context, buf []byte, spans []lineSpan) ([]lineSpan, error) {
	n := len(buf)
	if m.lit != nil && m.lit.index(buf) < 0 {
		return spans, nil
	}
	lc := lineCounter{num: 1}
	last := 0 // number of the last line added
	for pos := 0; pos < n; {
		if err := ctx.Err(); err != nil {
			return spans, err
		}
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
		if m.mode == ModeFiles {
			break
		}
		pos = e
		if e == s {
			pos++
		}
	}
	return spans, nil
}

// collector builds one file's result as the file is searched in order,
// a piece of whole lines at a time (a long line may come on its own):
// the matching lines and, with context, up to before and after lines
// around each, each line once. Lines of earlier pieces that a later
// match may want as context are kept, as text, in ring. Unless mode is
// ModeContent it only counts the matching lines, and makes no text.
type collector struct {
	mode          Mode
	before, after int
	lines         []Line
	count         int
	last          int    // number of the last line in lines; 0: none
	afterTo       int    // lines up to this number are wanted as context
	ring          []Line // the lines just before the current piece that are not in lines, at most before
	sel           []lineSpan
}

// reset readies c for a file, keeping its mode.
func (c *collector) reset(before, after int) {
	*c = collector{mode: c.mode, before: before, after: after, ring: c.ring[:0], sel: c.sel[:0]}
}

// done reports whether the result is complete before the file's end:
// with ModeFiles, once a line matches.
func (c *collector) done() bool {
	return c.mode == ModeFiles && c.count > 0
}

// result returns the file's result.
func (c *collector) result(rel string) FileResult {
	switch {
	case c.count == 0:
		return FileResult{}
	case c.mode == ModeFiles:
		return FileResult{Path: rel, Count: 1}
	case c.mode == ModeCount:
		return FileResult{Path: rel, Count: c.count}
	}
	return FileResult{Path: rel, Lines: c.lines, Count: c.count}
}

// piece takes a piece of whole lines whose first is line number first,
// and its matching lines; last says no line follows it.
func (c *collector) piece(p []byte, first int, spans []lineSpan, last bool) {
	c.count += len(spans)
	if c.mode != ModeContent {
		return
	}
	if c.before == 0 && c.after == 0 {
		c.add(p, spans)
		return
	}
	// Lines are taken in order. Context after a match in an earlier piece
	// is still wanted only if c.last = first-1, and then line c.last+1
	// starts at offset cur = 0; taking a line moves cur past it.
	sel := c.sel[:0] // num < 0: a context line
	cur := 0
	take := func(num, start, end int, match bool) {
		c.last, cur = num, end+1
		if !match {
			num = -num
		}
		sel = append(sel, lineSpan{num, start, end})
	}
	for _, sp := range spans {
		for num := c.last + 1; num <= c.afterTo && num < sp.num; num++ {
			take(num, cur, lineEnd(p, cur), false)
		}
		from := max(c.last+1, sp.num-c.before)
		if from < first {
			// Nothing of p is taken yet: the kept lines go first.
			c.flushRing(from)
			c.last, from = first-1, first
		}
		if from < sp.num {
			off := sp.start
			for k := sp.num; k > from; k-- {
				off = bytes.LastIndexByte(p[:off-1], '\n') + 1
			}
			for num := from; num < sp.num; num++ {
				end := lineEnd(p, off)
				take(num, off, end, false)
				off = end + 1
			}
		}
		take(sp.num, sp.start, sp.end, true)
		c.afterTo = sp.num + c.after
	}
	for num := c.last + 1; num <= c.afterTo && cur < len(p); num++ {
		take(num, cur, lineEnd(p, cur), false)
	}
	c.add(p, sel)
	c.sel = sel
	if c.before > 0 && !last {
		c.keepTail(p, first, cur)
	}
}

// add appends the lines sel of p to the result, their texts in one
// string.
func (c *collector) add(p []byte, sel []lineSpan) {
	if len(sel) == 0 {
		return
	}
	size := 0
	for _, sp := range sel {
		size += len(lineText(p[sp.start:sp.end]))
	}
	var b strings.Builder
	b.Grow(size)
	for _, sp := range sel {
		b.Write(lineText(p[sp.start:sp.end]))
	}
	texts := b.String()
	c.lines = slices.Grow(c.lines, len(sel))
	at := 0
	for _, sp := range sel {
		l := len(lineText(p[sp.start:sp.end]))
		line := Line{Number: sp.num, Text: texts[at : at+l], Match: sp.num > 0}
		if sp.num < 0 {
			line.Number = -sp.num
		}
		c.lines = append(c.lines, line)
		at += l
	}
}

// flushRing moves the kept lines from number from on into the result.
func (c *collector) flushRing(from int) {
	for _, l := range c.ring {
		if l.Number >= from && l.Number > c.last {
			c.lines = append(c.lines, l)
		}
	}
	c.ring = c.ring[:0]
}

// keepTail keeps, as text, the last lines of p that are not in the
// result (those from offset cur on, or all if none of p is), at most
// before with the lines kept already, for a match in a later piece.
func (c *collector) keepTail(p []byte, first, cur int) {
	from, fromNum := 0, first // where the lines not taken start
	if c.last >= first {
		c.ring = c.ring[:0]
		from, fromNum = cur, c.last+1
	}
	if from >= len(p) {
		return
	}
	end := len(p) // walking back: the end of the line before
	if p[end-1] == '\n' {
		end--
	}
	var starts []int // line starts, last line first
	for len(starts) < c.before {
		s := bytes.LastIndexByte(p[:end], '\n') + 1
		if s < from {
			break
		}
		starts = append(starts, s)
		if s == from {
			break
		}
		end = s - 1
	}
	lastNum := fromNum + bytes.Count(p[from:starts[0]], []byte{'\n'})
	if drop := len(c.ring) + len(starts) - c.before; drop > 0 {
		c.ring = c.ring[:copy(c.ring, c.ring[drop:])]
	}
	for i := len(starts) - 1; i >= 0; i-- {
		s := starts[i]
		c.ring = append(c.ring, Line{Number: lastNum - i, Text: string(lineText(p[s:lineEnd(p, s)]))})
	}
}

// held takes a line that comes on its own, as text.
func (c *collector) held(num int, match bool, text func() string) {
	if c.mode != ModeContent {
		if match {
			c.count++
		}
		return
	}
	if match {
		c.count++
		c.flushRing(num - c.before)
		c.lines = append(c.lines, Line{Number: num, Text: text(), Match: true})
		c.last, c.afterTo = num, num+c.after
		return
	}
	if num <= c.afterTo {
		c.lines = append(c.lines, Line{Number: num, Text: text()})
		c.last = num
		c.ring = c.ring[:0]
		return
	}
	if c.before > 0 {
		if len(c.ring) == c.before {
			c.ring = c.ring[:copy(c.ring, c.ring[1:])]
		}
		c.ring = append(c.ring, Line{Number: num, Text: text()})
	}
}
