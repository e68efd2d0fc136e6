// Package replay records a provider's requests and responses as JSON
// lines and answers from such a recording offline, failing clearly when
// the conversation leaves it. A recorded run replays byte for byte: a
// Player is a provider.Proxy, priced and sized as the provider it
// recorded, so budgets and compaction stop and compact where they did.
// Importing the package registers the spec prefix replay: (Open) with
// provider.Register.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentsh/agentsh/internal/jsonl"
	"github.com/agentsh/agentsh/internal/userfile"
	"github.com/agentsh/agentsh/provider"
)

// Entry is one line of a recording: a request and what answered it.
type Entry struct {
	Provider string             `json:"provider"`
	Request  provider.Request   `json:"request"`
	Response *provider.Response `json:"response,omitempty"`
	Error    *RecordedError     `json:"error,omitempty"`
}

// RecordedError is a failed request, kept so a replay fails the same way.
type RecordedError struct {
	Kind    provider.Kind `json:"kind,omitempty"`
	Message string        `json:"message"`
}

// Recorder wraps a provider and writes every exchange to a writer.
type Recorder struct {
	p  provider.Provider
	mu sync.Mutex
	w  io.Writer
}

// Record returns p, writing each request and its response to w as one
// JSON line. Writes are serialized; a write error fails the request.
func Record(p provider.Provider, w io.Writer) *Recorder { return &Recorder{p: p, w: w} }

// Name is the wrapped provider's.
func (r *Recorder) Name() string { return r.p.Name() }

var _ provider.Proxy = (*Recorder)(nil)

// Proxied is the identity of the wrapped provider (provider.Identity), so
// a recording of a replay is priced, sized and recorded as the original.
func (r *Recorder) Proxied() string { return provider.Identity(r.p) }

// Complete asks the wrapped provider and records the exchange.
func (r *Recorder) Complete(ctx context.Context, req provider.Request, stream func(string)) (provider.Response, error) {
	who := provider.Identity(r.p) // before the request: a replay's moves on
	resp, err := r.p.Complete(ctx, req, stream)
	if ctx.Err() != nil {
		return resp, err // an interrupted exchange is not part of the conversation
	}
	e := Entry{Provider: who, Request: req}
	if err != nil {
		e.Error = &RecordedError{Kind: provider.KindOf(err), Message: err.Error()}
	} else {
		e.Response = &resp
	}
	line, merr := json.Marshal(e)
	if merr != nil {
		return resp, fmt.Errorf("record: %w", merr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, werr := r.w.Write(append(line, '\n')); werr != nil {
		return resp, fmt.Errorf("record: %w", werr)
	}
	return resp, err
}

func init() {
	provider.Register("replay", func(path string) (provider.Provider, error) { return Open(path) })
}

// Player answers requests from a recording, in order.
type Player struct {
	name    string
	mu      sync.Mutex
	entries []Entry
	next    int
	torn    int // the line number of a last line cut short, left out; 0: none
}

// Open loads the recording at path, a regular file (a FIFO or a device
// is refused at once rather than waited on).
func Open(path string) (*Player, error) {
	f, err := userfile.Open(path, os.O_RDONLY, userfile.FollowLinks)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	return Load(f, path)
}

// recordAgain ends the messages of a recording that cannot be replayed.
const recordAgain = "record the run again"

// ErrRecording is the error of a recording that cannot be replayed: a
// corrupt line, an entry without a response, a request past its end. It
// is provider.ErrRecording, which a program checks without naming this
// adapter.
var ErrRecording = provider.ErrRecording

// recordingError is an error of a recording, with its own message, that
// errors.Is matches to ErrRecording.
type recordingError struct{ msg string }

func recordingErrorf(format string, args ...any) error {
	return &recordingError{fmt.Sprintf(format, args...)}
}

func (e *recordingError) Error() string        { return e.msg }
func (e *recordingError) Is(target error) bool { return target == ErrRecording }

// Load reads a recording; name identifies it in messages. A last line
// cut short (no newline, not JSON: the recording ended while it was
// written) is left out, and Warnings says so; a corrupt line anywhere
// else is an error.
func Load(r io.Reader, name string) (*Player, error) {
	p := &Player{name: name}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		// As long as the recorder wrote it: a line holds a whole request.
		raw, err := jsonl.ReadLine(br, buf[:0])
		buf = raw
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("replay %s:%d: %w", name, n, err)
		}
		if len(raw) == 0 && err == io.EOF {
			break
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		var e Entry
		if jerr := json.Unmarshal(line, &e); jerr != nil {
			if err == io.EOF {
				p.torn = n // the recorder writes a line and its newline at once
				break
			}
			return nil, recordingErrorf("replay %s:%d: a corrupt line (%v); correct or remove it, or %s", name, n, jerr, recordAgain)
		}
		if e.Response == nil && e.Error == nil {
			return nil, recordingErrorf("replay %s:%d: an entry without a response or an error; correct or remove it, or %s", name, n, recordAgain)
		}
		if e.Response != nil {
			// A count out of bounds would price an answer below nothing,
			// or overflow a budget's sum past its limit.
			if err := e.Response.Usage.Check(); err != nil {
				return nil, recordingErrorf("replay %s:%d: response %v; correct the line or %s", name, n, err, recordAgain)
			}
		}
		p.entries = append(p.entries, e)
		if err == io.EOF {
			break
		}
	}
	return p, nil
}

// Warnings says what Load left out of the recording: a last line cut
// short. Nil when it left out nothing.
func (p *Player) Warnings() []string {
	if p.torn == 0 {
		return nil
	}
	return []string{fmt.Sprintf("replay %s:%d: the last line was cut short (the recording ended while it was written) and is left out, so the recording holds %s; to replay further, %s",
		p.name, p.torn, requests(len(p.entries)), recordAgain)}
}

// Name is "replay:PATH".
func (p *Player) Name() string { return "replay:" + p.name }

var _ provider.Proxy = (*Player)(nil)

// Proxied names the recorded provider of the next exchange (after the
// last, the last one's): a replay is priced and sized as the run it
// replays.
func (p *Player) Proxied() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.entries) == 0 {
		return ""
	}
	return p.entries[min(p.next, len(p.entries)-1)].Provider
}

// Remaining counts the exchanges not yet replayed.
func (p *Player) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries) - p.next
}

var _ provider.Skipper = (*Player)(nil)

// Skip passes over the next recorded exchange: a resumed durable run had
// req answered by its journal, as the recording answered it the first
// time.
func (p *Player) Skip(provider.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next < len(p.entries) {
		p.next++
	}
}

// Complete returns the recorded answer to req, which must equal the
// recorded request byte for byte (as JSON); otherwise it fails with
// provider.ErrDiverged, saying where the conversations part.
func (p *Player) Complete(ctx context.Context, req provider.Request, stream func(string)) (provider.Response, error) {
	if err := ctx.Err(); err != nil {
		return provider.Response{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	turn := p.next + 1
	if p.next >= len(p.entries) {
		end := ""
		if p.torn != 0 {
			// Most likely the request whose exchange was being written.
			end = fmt.Sprintf(", whose last line, %d, was cut short as the recording ended while it was written", p.torn)
		}
		return provider.Response{}, p.diverged(fmt.Sprintf("request %d is past the end of the recording (%s)%s%s", turn, requests(len(p.entries)), end, p.against(req, -1)))
	}
	e := p.entries[p.next]
	if !equalJSON(e.Request, req) {
		return provider.Response{}, p.diverged(fmt.Sprintf("request %d differs from the recording%s", turn, p.against(req, p.next)))
	}
	p.next++
	if e.Error != nil {
		kind := e.Error.Kind
		if kind == "" {
			kind = provider.ErrProtocol
		}
		// The recorded message holds the original hint; the general one
		// for the kind (check the key, the server) does not apply offline.
		return provider.Response{}, &provider.Error{Kind: kind, Provider: p.Name(), Message: "recorded error: " + e.Error.Message,
			Hint: "replayed from the recording; record the run again once the cause is fixed"}
	}
	if stream != nil && e.Response.Content != "" {
		stream(e.Response.Content)
	}
	return *e.Response, nil
}

func (p *Player) diverged(msg string) error {
	return &provider.Error{Kind: provider.ErrDiverged, Provider: p.Name(),
		Message: msg + "; the conversation has left the recording (record it again)"}
}

// against explains a request that left the recording by the recorded
// request nearest to it (see nearest): where they first differ, and which
// recorded request that is when it is not the one expected (want; -1
// past the end).
func (p *Player) against(req provider.Request, want int) string {
	if len(p.entries) == 0 {
		return ""
	}
	near := p.nearest(req, want)
	where := firstField(p.entries[near].Request, req)
	if where == "" {
		return fmt.Sprintf("; it equals recorded request %d of %d, so the requests came in another order (one was repeated or skipped)", near+1, len(p.entries))
	}
	if near == want {
		return " at " + where
	}
	return fmt.Sprintf("; the nearest recorded request, %d of %d, differs at %s", near+1, len(p.entries), where)
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// firstDiff shows where two texts part, with a little context.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(i-20, 0)
	clip := func(s string) string {
		end := min(i+40, len(s))
		if from > len(s) {
			return ""
		}
		return s[from:end]
	}
	return fmt.Sprintf("at byte %d: got %q, recorded %q", i, clip(got), clip(want))
}

var (
	_ provider.Provider = (*Recorder)(nil)
	_ provider.Provider = (*Player)(nil)
)

// requests counts n requests, for messages.
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
