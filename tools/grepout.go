package tools

import (
	"io"
	"strconv"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/search"
)

// Streaming grep's output. When the caller was granted a stream (see
// core.OutputStream), grep writes its text there as it goes, in whole
// lines, and keeps no result: what it holds is the lines of the file
// being formatted plus about streamChunk bytes waiting to be written
// (and what the backend has in flight), however much it prints. The 64
// MiB cap on what grep prints (maxOutputBytes) applies either way; the
// bytes written are those the held output would show.
const (
	// streamChunk is how much text is gathered before a write: 64 KiB
	// makes writes few (a 64 MiB output is a thousand of them) and stays
	// far below the memory the backends use.
	streamChunk = 64 << 10
	// streamLatency bounds how long printed lines wait for a write when
	// results come slowly, so that a person sees them as they come. It is
	// checked between files.
	streamLatency = 100 * time.Millisecond
)

// grepOutput formats grep's results as they come: the text, into one
// buffer (held, or written to a stream by the chunk), and, when held, the
// data. It applies offset, head_limit and the output cap, and says when to
// stop searching.
type grepOutput struct {
	mode     string
	numbers  bool // content: line numbers
	grouped  bool // content with context: "--" between groups
	offset   int
	limit    int
	max      int       // the output cap, maxOutputBytes
	buf      []byte    // the text; when streaming, what waits to be written
	items    []any     // the shown results as data; nil when streaming
	w        io.Writer // the stream, or nil
	werr     error     // the stream's first write error
	flushed  time.Time // the last write
	seen     int       // results so far, counting those before offset
	shown    int
	size     int // what the cap counts of the shown text
	more     bool
	lastPath string
	lastLine int
}

func newGrepOutput(mode string, offset, limit int, grouped, numbers bool, w io.Writer) *grepOutput {
	o := &grepOutput{mode: mode, numbers: numbers, grouped: grouped, offset: offset, limit: limit, max: maxOutputBytes, w: w}
	if w == nil {
		o.items = []any{}
	} else {
		o.buf = make([]byte, 0, 4<<10) // grows to a chunk once, then is reused
		o.flushed = time.Now()
	}
	return o
}

// file adds the results of one file; false stops the search.
func (o *grepOutput) file(f search.FileResult, stopped func() bool) bool {
	name := quotePath(f.Path)
	ok := true
	switch o.mode {
	case "files_with_matches":
		if ok = o.admit(len(name), f.Path, 0); ok && o.seen > o.offset {
			o.buf = append(o.buf, name...)
			o.buf = append(o.buf, '\n')
			if o.items != nil {
				o.items = append(o.items, name)
			}
		}
	case "count":
		if ok = o.admit(len(name)+1+digits(f.Count), f.Path, 0); ok && o.seen > o.offset {
			o.buf = append(o.buf, name...)
			o.buf = append(o.buf, ':')
			o.writeInt(f.Count)
			o.buf = append(o.buf, '\n')
			if o.items != nil {
				o.items = append(o.items, map[string]any{"path": name, "count": int64(f.Count)})
			}
		}
	default:
		ok = o.lines(f, name, stopped)
	}
	if ok && o.w != nil && len(o.buf) > 0 && (len(o.buf) >= streamChunk || time.Since(o.flushed) >= streamLatency) {
		ok = o.flush()
	}
	return ok
}

// lines adds a file's lines in content mode.
func (o *grepOutput) lines(f search.FileResult, name string, stopped func() bool) bool {
	var path any // the data's path, boxed once per file
	for i, l := range f.Lines {
		if i%1024 == 1023 && stopped() {
			return false
		}
		line := cutLine(l.Text, maxLineChars)
		n := len(name) + 1 + len(line)
		if o.numbers {
			n += digits(l.Number) + 1
		}
		if !o.admit(n, f.Path, l.Number) {
			return false
		}
		if o.seen <= o.offset {
			continue
		}
		sep := byte('-')
		if l.Match {
			sep = ':'
		}
		o.buf = append(o.buf, name...)
		o.buf = append(o.buf, sep)
		if o.numbers {
			o.writeInt(l.Number)
			o.buf = append(o.buf, sep)
		}
		o.buf = append(o.buf, line...)
		o.buf = append(o.buf, '\n')
		if o.items != nil {
			if path == nil {
				path = name
			}
			o.items = append(o.items, map[string]any{"path": path, "line": int64(l.Number), "text": jsonText(line), "match": l.Match})
		} else if len(o.buf) >= streamChunk && !o.flush() {
			return false
		}
	}
	return true
}

// admit counts one result whose text is n bytes long, and writes the
// group separator it needs. It reports false when the result is past
// head_limit or the cap: then there are more results and the search
// stops. A result before offset is admitted but not shown (o.seen is at
// most o.offset).
func (o *grepOutput) admit(n int, path string, line int) bool {
	o.seen++
	switch {
	case o.seen <= o.offset:
		return true
	case o.shown == o.limit || o.size+n+4 > o.max && o.shown > 0:
		o.more = true
		return false
	}
	o.size += n + 4 // and a newline, perhaps after "--"
	if o.grouped && o.shown > 0 && (path != o.lastPath || line != o.lastLine+1) {
		o.buf = append(o.buf, "--\n"...)
	}
	o.shown++
	o.lastPath, o.lastLine = path, line
	return true
}

func (o *grepOutput) writeInt(n int) {
	o.buf = strconv.AppendInt(o.buf, int64(n), 10)
}

// digits is the length of n in decimal; n >= 0.
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// flush writes the text gathered so far to the stream. A failed write
// (a closed pipe) is kept in werr and stops the search.
func (o *grepOutput) flush() bool {
	if len(o.buf) > 0 && o.werr == nil {
		_, o.werr = o.w.Write(o.buf)
		o.buf = o.buf[:0]
		o.flushed = time.Now()
	}
	return o.werr == nil
}

// finish ends the output: it adds the trailer, or says why nothing was
// shown, and returns the tool's output (the text and data, or
// core.StreamedOutput once all of it is written).
func (o *grepOutput) finish(pattern string) (any, error) {
	var msg string
	switch {
	case o.shown > 0:
		if o.more {
			o.buf = append(o.buf, "[more results; continue with offset "...)
			o.writeInt(o.offset + o.shown)
			o.buf = append(o.buf, "]\n"...)
		}
	case o.seen > 0:
		msg = "no results after offset " + strconv.Itoa(o.offset) + " (there are " + strconv.Itoa(o.seen) + ")"
	default:
		msg = "no matches for " + pattern
	}
	if o.w != nil {
		if msg != "" {
			o.buf = append(o.buf, msg...)
			o.buf = append(o.buf, '\n')
		}
		if !o.flush() {
			return nil, o.werr
		}
		return core.StreamedOutput{}, nil
	}
	if msg == "" {
		msg = string(o.buf)
	}
	return core.DataOutput{Text: msg, Data: grepData(o.mode, o.items, o.offset, o.shown, o.seen, o.more)}, nil
}
