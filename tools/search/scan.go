package search

import (
	"bytes"
	"context"
	"io"
	"unicode/utf8"
)

// How grep reads a file. A worker holds a window of the file, at most a
// piece and slack bytes, and matches the pattern against a piece of
// whole lines in it at a time; a line longer than a piece is matched as
// a stream (runeStream, through a buffer of slack bytes), by Go's
// regexp, which then needs no more memory than the pattern; the text it
// reports of such a line is read again (see lineText). With Multiline, a
// file that fits in a piece is matched in the buffer; a larger one is
// matched as a stream, which yields where the matches are, and then read
// again in pieces for the lines they touch. Nothing is ever cut short,
// so the results do not depend on these sizes, which the tests vary.
// Files are read with ReadAt only, so going back costs nothing but the
// read.
//
// Cancellation: Go's regexp cannot be interrupted, so no call into it
// may run long. Its cost is at most linear in the bytes it looks at
// times the instructions of the compiled pattern (about 20 ns for each,
// measured on a 2-core amd64, for `\w{1000}x`), so a piece holds at most
// maxWork/instructions bytes, and a stream checks ctx every
// maxWork/instructions runes: about 40 ms of work at worst between two
// checks. A worker also checks ctx between pieces and when it refills a
// buffer.
const (
	maxPiece = 1 << 20  // the most matched at once in a buffer
	maxWork  = 2 << 20  // bytes × instructions between checks of ctx
	slack    = 64 << 10 // a first window, and a stream's buffer
)

// scanSizes are the sizes a nativeSearcher reads with; tests make them
// tiny to put every boundary somewhere.
type scanSizes struct {
	piece    int // the most of a line or multiline file matched in a buffer
	extPiece int // the same for the lines that streamed multiline matches touch
	slack    int // the first window, a stream's buffer, and a window's most beyond a piece
}

// nativeSearcher searches files for one worker, reusing its buffers.
// The ripgrep backend searches files again with it.
type nativeSearcher struct {
	ctx   context.Context
	plan  *grepPlan
	size  scanSizes
	win   window
	rs    runeStream
	spans []lineSpan
	ext   []extent
	col   collector
	text  []byte // a long line's first bytes
	bad   bool   // a read failed: the file is skipped
}

func newNativeSearcher(ctx context.Context, plan *grepPlan) *nativeSearcher {
	return &nativeSearcher{ctx: ctx, plan: plan, size: scanSizes{plan.m.piece, maxPiece, slack}, col: collector{mode: plan.m.mode}}
}

// search searches an open file, the file rel, in the plan's mode. A file
// that cannot be read to its end (with ModeFiles, to its first match), or
// is binary, has no result; so has every file once ctx is
// done, which the caller must check.
func (s *nativeSearcher) search(rel string, f io.ReaderAt) FileResult {
	m := s.plan.m
	if (m.never && !m.multiline) || s.ctx.Err() != nil {
		return FileResult{}
	}
	if s.win.buf == nil {
		s.win.buf = make([]byte, s.size.slack)
	}
	s.win.reset(f)
	s.win.moveTo(0, false, 0)
	if s.win.err != nil || s.binary() {
		return FileResult{}
	}
	s.rs.start(s.ctx, f, m.streamEvery, max(s.size.slack, 2*m.litLen()+utf8.UTFMax))
	s.col.reset(s.plan.req.Before, s.plan.req.After)
	s.bad = false
	var ok bool
	if m.multiline {
		ok = s.multiline()
	} else {
		ok = s.lines(s.size.piece, patternLines{m})
	}
	if !ok || s.bad {
		return FileResult{}
	}
	return s.col.result(rel)
}

// binary reports whether the file is binary (or its start unreadable).
func (s *nativeSearcher) binary() bool {
	w := &s.win
	if w.n >= binaryPrefix || w.done() {
		return isBinary(w.buf[:w.n])
	}
	// A window smaller than the prefix.
	head := make([]byte, binaryPrefix)
	n, err := w.f.ReadAt(head, 0)
	return (err != nil && err != io.EOF) || isBinary(head[:n])
}

// lineMatcher finds the matching lines for the line loop.
type lineMatcher interface {
	// piece appends the matching lines of p, whole lines at offset off of
	// the file, the first of them numbered first. The counter has counted
	// the lines up to the last match.
	piece(p []byte, off int64, first int, spans []lineSpan) ([]lineSpan, lineCounter)
	// long reports whether the line at offset off, too long for a piece,
	// matches, and returns the offset past it. The stream starts there;
	// ok is false if it ended early.
	long(r *runeStream, off int64) (match bool, next int64, ok bool)
}

// lines reads the file from its start a piece of whole lines at a time,
// each at most piece bytes, and gives the collector its lines and the
// matching ones, until the collector is done (see collector.done). It
// returns false if the file could not be read or ctx is done.
func (s *nativeSearcher) lines(piece int, lm lineMatcher) bool {
	w := &s.win
	num := 1    // the number of the line at offset at
	at := w.off // always the start of a line
	// Only ModeContent reports line numbers: otherwise num is not kept.
	numbered := s.plan.m.mode == ModeContent
	for {
		if s.ctx.Err() != nil {
			return false
		}
		data := w.data(at)
		if len(data) == 0 && w.done() {
			return w.err == nil
		}
		end := bytes.LastIndexByte(data[:min(len(data), piece)], '\n') + 1
		if end == 0 {
			switch {
			case w.eof && len(data) <= piece:
				end = len(data) // the last line, without "\n"
			case len(data) >= piece || w.eof:
				s.rs.seek(at, true)
				match, next, ok := lm.long(&s.rs, at)
				if !ok {
					return false
				}
				lineAt := at
				s.col.held(num, match, func() string { return s.textAt(lineAt) })
				if s.col.done() {
					return true
				}
				num++
				at = next
				w.moveTo(at, false, 0)
				continue
			default:
				if w.err != nil {
					return false
				}
				w.moveTo(at, true, piece+s.size.slack)
				continue
			}
		}
		p := data[:end]
		spans, lc := lm.piece(p, at, num, s.spans[:0])
		s.spans = spans
		at += int64(end)
		s.col.piece(p, num, spans, w.eof && at == w.end())
		if s.col.done() {
			return true
		}
		if p[end-1] == '\n' && numbered {
			num = lc.lineOf(p, end)
		}
	}
}

// textAt returns the text to report of the line at offset at (see
// lineText), reading its first bytes.
func (s *nativeSearcher) textAt(at int64) string {
	if len(s.text) < MaxLineBytes+utf8.UTFMax {
		s.text = make([]byte, MaxLineBytes+utf8.UTFMax)
	}
	n, err := s.win.f.ReadAt(s.text, at)
	if err != nil && err != io.EOF {
		s.bad = true
	}
	b := s.text[:n]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(lineText(b))
}

// patternLines matches the pattern against each line.
type patternLines struct{ m *matcher }

func (pl patternLines) piece(p []byte, _ int64, first int, spans []lineSpan) ([]lineSpan, lineCounter) {
	return pl.m.matchLines(p, first, spans)
}

func (pl patternLines) long(r *runeStream, off int64) (bool, int64, bool) {
	m := pl.m
	var match bool
	switch {
	case m.lit != nil && m.exact:
		match = r.findLiteral(m.lit)
	case m.prefix != nil:
		if r.findLiteral(m.prefix) {
			r.seek(r.pos()-int64(len(m.prefix.s)), true)
			match = m.re.MatchReader(r)
		}
	case m.lit != nil:
		if r.findLiteral(m.lit) {
			r.seek(off, true)
			match = m.re.MatchReader(r)
		}
	default:
		match = m.re.MatchReader(r)
	}
	if r.err != nil {
		return false, 0, false
	}
	next, ok := r.skipLine()
	return match, next, ok
}

// extent is where a multiline match lies: from byte s to byte end, the
// last it touches (s itself for an empty match), both included.
type extent struct{ s, end int64 }

// multiline searches the file with Multiline.
func (s *nativeSearcher) multiline() bool {
	w := &s.win
	m := s.plan.m
	piece := s.size.piece
	for !w.done() && w.n <= piece && len(w.buf) < piece+s.size.slack {
		w.moveTo(0, true, piece+s.size.slack)
	}
	if w.err != nil {
		return false
	}
	if w.eof && w.n <= piece {
		spans, err := m.matchMultiline(s.ctx, w.buf[:w.n], s.spans[:0])
		s.spans = spans
		if err != nil {
			return false
		}
		s.col.piece(w.buf[:w.n], 1, spans, true)
		return true
	}

	// Too large for a piece: find where the matches are in a stream, as
	// matchMultiline does in a buffer.
	r := &s.rs
	if m.lit != nil {
		r.seek(0, false)
		if !r.findLiteral(m.lit) {
			return r.err == nil
		}
	}
	// A leftmost match starts at an occurrence of the pattern's literal
	// prefix, if it has one (Go's regexp skips to it in a []byte too).
	prefix := m.prefix
	ext := s.ext[:0]
	for pos := int64(0); ; {
		r.seek(pos, false)
		if prefix != nil {
			if !r.findLiteral(prefix) {
				if r.err != nil {
					return false
				}
				break
			}
			pos = r.pos() - int64(len(prefix.s))
			r.seek(pos, false)
		}
		eof, ok := r.atEOF()
		if !ok {
			return false
		}
		if eof {
			break
		}
		loc := m.re.FindReaderIndex(r)
		if r.err != nil {
			return false
		}
		if loc == nil {
			break
		}
		start, e := pos+int64(loc[0]), pos+int64(loc[1])
		r.seek(start, false)
		eof, ok = r.atEOF()
		if !ok {
			return false
		}
		if eof {
			if c, _ := readByteAt(w.f, start-1); c == '\n' {
				break // not a line: the end after the last newline
			}
		}
		ext = append(ext, extent{start, max(start, e-1)})
		if m.mode == ModeFiles {
			s.col.held(0, true, nil) // it touches a line: the file matches
			return true
		}
		pos = e
		if e == start {
			pos++
		}
	}
	s.ext = ext
	if len(ext) == 0 {
		return true
	}
	w.moveTo(0, false, 0)
	return s.lines(s.size.extPiece, &extentLines{ext: ext})
}

// readByteAt returns the byte at offset off of f.
func readByteAt(f io.ReaderAt, off int64) (byte, error) {
	var b [1]byte
	_, err := f.ReadAt(b[:], off)
	return b[0], err
}

// extentLines finds the lines that multiline matches touch.
type extentLines struct {
	ext []extent
	k   int // the first extent not wholly before the line loop
}

func (el *extentLines) piece(p []byte, off int64, first int, spans []lineSpan) ([]lineSpan, lineCounter) {
	lc := lineCounter{num: first}
	end := off + int64(len(p))
	final := p[len(p)-1] != '\n' // then offset end is in the last line
	last := 0
	for el.k < len(el.ext) {
		x := el.ext[el.k]
		if x.end < off {
			el.k++ // it ended on a long line before p
			continue
		}
		if x.s > end || (x.s == end && !final) {
			break
		}
		ls := bytes.LastIndexByte(p[:max(x.s, off)-off], '\n') + 1
		num := lc.lineOf(p, ls)
		for {
			le := lineEnd(p, ls)
			if num > last {
				spans = append(spans, lineSpan{num, ls, le})
				last = num
			}
			if off+int64(le) >= x.end || le+1 >= len(p) {
				break
			}
			ls = le + 1
			num = lc.lineOf(p, ls)
		}
		if x.end >= end {
			break // it goes on into the next piece
		}
		el.k++
	}
	return spans, lc
}

func (el *extentLines) long(r *runeStream, off int64) (bool, int64, bool) {
	next, ok := r.skipLine()
	if !ok {
		return false, 0, false
	}
	last := next // the last byte of the line, its "\n" if it has one
	if next > off {
		if c, err := readByteAt(r.w.f, next-1); err == nil && c == '\n' {
			last = next - 1
		}
	}
	for el.k < len(el.ext) && el.ext[el.k].end < off {
		el.k++
	}
	return el.k < len(el.ext) && el.ext[el.k].s <= last, next, true
}
