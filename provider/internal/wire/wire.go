// Package wire holds what the HTTP adapters share: sending a request with
// retries that honour Retry-After and under provider.Limits, and reading
// server-sent events.
package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh/provider"
)

// Retry says how requests are retried on 429 and 5xx answers and on
// network errors.
type Retry struct {
	// Attempts counts the first try; 0 means 4.
	Attempts int
	// Backoff is the first wait, doubled each retry; 0 means 500ms.
	Backoff time.Duration
	// MaxWait caps any single wait, Retry-After included; 0 means 60s.
	MaxWait time.Duration
	// Sleep waits for d or until ctx ends; nil means a timer. Tests
	// replace it to record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (r Retry) attempts() int {
	if r.Attempts <= 0 {
		return 4
	}
	return r.Attempts
}

func (r Retry) wait(ctx context.Context, d time.Duration) error {
	max := r.MaxWait
	if max <= 0 {
		max = 60 * time.Second
	}
	d = min(d, max)
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Retryable reports whether an HTTP status is worth another try: rate
// limits, server errors and overload (529).
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// Client sends a provider's requests: with retries, under limits.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// Retry says how 429 and 5xx answers and network errors are retried.
	Retry Retry
	// Limits bound each attempt and its response; zero fields mean the
	// defaults.
	Limits provider.Limits
	// Provider names the provider in the errors of broken limits.
	Provider string
}

// Do sends the request that newReq builds (anew for every attempt, so the
// body can be read again) and retries it as c.Retry says. It returns the
// last response, whatever its status, for the caller to read and close;
// or the last network error; or ctx's error.
//
// Each attempt runs under c.Limits, and so does reading the returned
// body: a broken limit is a *provider.Error of kind ErrTimeout or
// ErrTooLarge, from Do or from the body's Read, and is never retried. So
// a server that accepts requests and then says nothing costs one
// IdleTimeout, not one per attempt.
func (c Client) Do(ctx context.Context, newReq func() (*http.Request, error)) (*http.Response, error) {
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	lim := c.Limits.OrDefaults()
	r := c.Retry
	backoff := r.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	for n := 1; ; n++ {
		req, err := newReq()
		if err != nil {
			return nil, err
		}
		a := startAttempt(ctx, lim, c.Provider, req.URL.Redacted())
		resp, err := client.Do(req.WithContext(a.ctx))
		last := n >= r.attempts()
		switch {
		case ctx.Err() != nil:
			if resp != nil {
				resp.Body.Close()
			}
			a.stop()
			return nil, ctx.Err()
		case err != nil:
			broken := a.broken()
			a.stop()
			if broken != nil {
				return nil, broken
			}
			if last {
				return nil, err
			}
		case !Retryable(resp.StatusCode) || last:
			a.answered.Store(true)
			a.idle.Reset(lim.IdleTimeout)
			resp.Body = &body{rc: resp.Body, a: a}
			return resp, nil
		}
		wait := backoff
		if resp != nil {
			if d, ok := RetryAfter(resp.Header, time.Now()); ok {
				wait = d
			}
			// Not drained: a server that trickles its error body must not
			// hold the retry.
			resp.Body.Close()
			a.stop()
		}
		if err := r.wait(ctx, wait); err != nil {
			return nil, err
		}
		backoff *= 2
	}
}

// RetryAfter reads a Retry-After header (seconds, or an HTTP date) and the
// retry-after-ms header some providers send.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if ms := h.Get("retry-after-ms"); ms != "" {
		if n, err := strconv.ParseFloat(ms, 64); err == nil && n >= 0 {
			return time.Duration(n * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Event is one server-sent event.
type Event struct {
	Name string // the event: field; "" when absent
	Data string // the data: lines, joined by newlines
}

// maxLine bounds one SSE line, so a broken stream cannot take all memory.
const maxLine = 4 << 20

// ReadEvents reads server-sent events from r and calls fn for each. It
// stops at the end of the stream, at fn's first error, or at a data line
// of "[DONE]" (OpenAI's end marker).
func ReadEvents(r io.Reader, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var ev Event
	var data []string
	flush := func() error {
		if len(data) == 0 && ev.Name == "" {
			return nil
		}
		ev.Data = strings.Join(data, "\n")
		err := fn(ev)
		ev, data = Event{}, nil
		return err
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if err := flush(); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(line, ":"):
			continue // a comment, such as a keep-alive
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Name = value
		case "data":
			if value == "[DONE]" {
				return nil
			}
			data = append(data, value)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("server-sent event line longer than %d bytes", maxLine)
		}
		return err
	}
	return flush()
}

// ReadBody reads at most 1 MiB of an error response's body.
func ReadBody(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return string(b)
}
