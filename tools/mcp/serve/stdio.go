package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the longest JSON-RPC message the server reads: a
// line over stdio (StdioTransport), a request body over HTTP (Handler).
const MaxMessageBytes = 16 << 20

// JSON-RPC's error codes for a message the server cannot read.
const (
	codeParseError     = -32700 // not JSON
	codeInvalidRequest = -32600 // not a JSON-RPC message, or too long to read
)

// StdioTransport serves one session over newline-delimited JSON-RPC, as
// sdk.IOTransport does, except that a line it cannot read does not end
// the session: a line longer than MaxLineBytes, one that is not JSON and
// one that is not a JSON-RPC message each get a JSON-RPC error response
// (id null: the request's id cannot be read) saying why, and the session
// goes on with the next line. An over-long line is skipped as it arrives,
// without being held in memory.
//
// A StdioTransport serves one session; its Writer gets whole messages,
// one Write each.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLineBytes bounds a line, without its newline; 0 means
	// MaxMessageBytes.
	MaxLineBytes int
}

var _ sdk.Transport = (*StdioTransport)(nil)

// Connect implements sdk.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	limit := t.MaxLineBytes
	if limit <= 0 {
		limit = MaxMessageBytes
	}
	w := &lockedWriter{w: t.Writer}
	lines := &lineReader{r: bufio.NewReaderSize(t.Reader, 64<<10), w: w, limit: limit}
	// The lines reach the sdk one message each, within the limit.
	return (&sdk.IOTransport{Reader: io.NopCloser(lines), Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter writes one message at a time: the sdk's and the errors
// for the lines that were refused.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the writer open: it belongs to the caller (stdout).
func (l *lockedWriter) Close() error { return nil }

// lineReader hands the sdk the lines that are JSON-RPC messages, each
// trimmed and ended by a newline, and answers the others.
type lineReader struct {
	r       *bufio.Reader
	w       io.Writer
	limit   int
	line    []byte
	pending []byte // what is left of the line being handed over
	err     error  // the input's error, once every line before it is handed over
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		line, size, err := l.next()
		l.err = err
		switch {
		case size > l.limit:
			l.refuse(codeInvalidRequest, fmt.Sprintf("invalid request: the message is %d bytes long, over the limit of %d bytes; it was not read", size, l.limit))
		case len(line) == 0:
		default:
			if code, why := check(line); why != "" {
				l.refuse(code, why)
				continue
			}
			l.pending = append(line, '\n')
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads the next line: its text without surrounding white space,
// and its size in bytes without the newline. A line longer than the limit
// is read to its end and dropped: its text is nil. err is the input's
// error (io.EOF at the end), after the last line.
func (l *lineReader) next() (line []byte, size int, err error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += len(chunk)
		if size <= l.limit+1 { // + the newline
			l.line = append(l.line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if bytes.HasSuffix(chunk, []byte("\n")) {
			size--
		}
		if size > l.limit {
			return nil, size, err
		}
		return bytes.TrimSpace(l.line), size, err
	}
}

// check says why line is not a message the sdk reads, with the JSON-RPC
// error code for it, or returns "" when it is one: an object, or a
// non-empty array of them, that decodes as a JSON-RPC message.
func check(line []byte) (int, string) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return codeParseError, fmt.Sprintf("parse error: the message is not JSON: %v", err)
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return codeInvalidRequest, fmt.Sprintf("invalid request: the batch is not a list of messages: %v", err)
		}
		if len(batch) == 0 {
			return codeInvalidRequest, "invalid request: the batch is empty"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return codeInvalidRequest, fmt.Sprintf("invalid request: a message of the batch is not JSON-RPC 2.0: %v", err)
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return codeInvalidRequest, fmt.Sprintf("invalid request: the message is not JSON-RPC 2.0: %v", err)
	}
	return 0, ""
}

// refuse answers a line it cannot read. A failed write is the sdk's to
// find: its next write fails too.
func (l *lineReader) refuse(code int, message string) {
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": message},
	})
	if err != nil {
		return
	}
	_, _ = l.w.Write(append(b, '\n'))
}
