package provider_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/anthropic"
	"github.com/agentsh/agentsh/provider/internal/wire"
	"github.com/agentsh/agentsh/provider/openai"
)

// The hostile-server suite: servers that never answer, stall after the
// headers, stream without end or trickle, against both HTTP adapters,
// streamed and not. Every case must end with a limit's error kind, after
// one attempt, within a guard deadline far beyond the limits under test.

const guardDeadline = testwait.Step

// endlessGuard stops an "endless" server, so that a client without a size
// limit ends too (with some other error) instead of hanging the test.
const endlessGuard = 32 << 20

type adapter struct {
	name string
	open func(t *testing.T, url string, lim provider.Limits, retry wire.Retry) provider.Provider
	// endless returns what an endless answer starts with and what it
	// repeats: a whole JSON body that never closes, or stream events.
	endless func(stream bool) (head, repeat string)
}

var adapters = []adapter{
	{
		name: "openai",
		open: func(t *testing.T, url string, lim provider.Limits, retry wire.Retry) provider.Provider {
			p, err := openai.New(openai.Config{Model: "m", BaseURL: url + "/v1", APIKey: "k", Limits: lim, Retry: retry})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
		endless: func(stream bool) (string, string) {
			if stream {
				return "", `data: {"choices":[{"index":0,"delta":{"content":"more and more "}}]}` + "\n\n"
			}
			return `{"choices":[{"index":0,"message":{"role":"assistant","content":"`, "more and more "
		},
	},
	{
		name: "anthropic",
		open: func(t *testing.T, url string, lim provider.Limits, retry wire.Retry) provider.Provider {
			p, err := anthropic.New(anthropic.Config{Model: "m", BaseURL: url, APIKey: "k", Limits: lim, Retry: retry})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
		endless: func(stream bool) (string, string) {
			if stream {
				return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{}}}\n\n" +
						"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
					"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"more and more \"}}\n\n"
			}
			return `{"type":"message","content":[{"type":"text","text":"`, "more and more "
		},
	},
}

// hostile is a server misbehaving in one way.
type hostile struct {
	name   string
	limits provider.Limits
	// start serves and returns the URL and the number of requests (or
	// connections) it has seen.
	start func(t *testing.T, a adapter, stream bool) (url string, seen *atomic.Int32, sent *atomic.Int64)
	kind  provider.Kind
	msg   string
}

var hostiles = []hostile{
	{
		name:   "never sends headers",
		limits: provider.Limits{IdleTimeout: 200 * time.Millisecond},
		start:  silentServer,
		kind:   provider.ErrTimeout,
		msg:    "within 200ms",
	},
	{
		name:   "headers then nothing",
		limits: provider.Limits{IdleTimeout: 200 * time.Millisecond},
		start: func(t *testing.T, a adapter, stream bool) (string, *atomic.Int32, *atomic.Int64) {
			return handler(t, stream, func(w http.ResponseWriter, r *http.Request, _ *atomic.Int64) {
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
		},
		kind: provider.ErrTimeout,
		msg:  "sent nothing for 200ms in the middle of the answer",
	},
	{
		name:   "never ends",
		limits: provider.Limits{IdleTimeout: 10 * time.Second, MaxBytes: 256 << 10},
		start: func(t *testing.T, a adapter, stream bool) (string, *atomic.Int32, *atomic.Int64) {
			head, repeat := a.endless(stream)
			return handler(t, stream, func(w http.ResponseWriter, r *http.Request, sent *atomic.Int64) {
				io.WriteString(w, head)
				chunk := []byte(strings.Repeat(repeat, max(1, 8<<10/len(repeat))))
				for sent.Load() < endlessGuard {
					if _, err := w.Write(chunk); err != nil {
						return
					}
					sent.Add(int64(len(chunk)))
				}
			})
		},
		kind: provider.ErrTooLarge,
		msg:  "larger than 256 KiB",
	},
	{
		name:   "trickles a byte at a time",
		limits: provider.Limits{IdleTimeout: 10 * time.Second, MaxDuration: 300 * time.Millisecond},
		start: func(t *testing.T, a adapter, stream bool) (string, *atomic.Int32, *atomic.Int64) {
			head, repeat := a.endless(stream)
			body := head + strings.Repeat(repeat, 1000)
			return handler(t, stream, func(w http.ResponseWriter, r *http.Request, sent *atomic.Int64) {
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for i := 0; ; i = (i + 1) % len(body) {
					select {
					case <-r.Context().Done():
						return
					case <-tick.C:
					}
					if _, err := w.Write([]byte{body[i]}); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					sent.Add(1)
				}
			})
		},
		kind: provider.ErrTimeout,
		msg:  "took longer than 300ms",
	},
}

// handler serves fn after 200 headers of the right content type, counting
// requests.
func handler(t *testing.T, stream bool, fn func(http.ResponseWriter, *http.Request, *atomic.Int64)) (string, *atomic.Int32, *atomic.Int64) {
	seen, sent := new(atomic.Int32), new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		io.Copy(io.Discard, r.Body)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(200)
		fn(w, r, sent)
	}))
	// A client that never leaves (a failing case) must not hold Close.
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL, seen, sent
}

// silentServer accepts connections and never reads or writes.
func silentServer(t *testing.T, _ adapter, _ bool) (string, *atomic.Int32, *atomic.Int64) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := new(atomic.Int32)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			seen.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String(), seen, new(atomic.Int64)
}

func TestHostileServers(t *testing.T) {
	for _, a := range adapters {
		for _, stream := range []bool{true, false} {
			mode := "whole"
			if stream {
				mode = "stream"
			}
			for _, h := range hostiles {
				t.Run(a.name+"/"+mode+"/"+h.name, func(t *testing.T) {
					url, seen, sent := h.start(t, a, stream)
					var waits atomic.Int32
					retry := wire.Retry{Attempts: 4, Sleep: func(context.Context, time.Duration) error { waits.Add(1); return nil }}
					p := a.open(t, url, h.limits, retry)
					var streamed atomic.Int64
					var onText func(string)
					if stream {
						onText = func(s string) { streamed.Add(int64(len(s))) }
					}
					req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}}

					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					done := make(chan error, 1)
					go func() {
						_, err := p.Complete(context.Background(), req, onText)
						done <- err
					}()
					var err error
					select {
					case err = <-done:
					case <-time.After(guardDeadline):
						t.Fatalf("Complete still running after %v", guardDeadline)
					}
					runtime.ReadMemStats(&after)

					var pe *provider.Error
					if !errors.As(err, &pe) || pe.Kind != h.kind || pe.Provider != a.name || !strings.Contains(pe.Message, h.msg) {
						t.Fatalf("got %v, want a %s error of %s saying %q", err, h.kind, a.name, h.msg)
					}
					if n := seen.Load(); n != 1 || waits.Load() != 0 {
						t.Errorf("the server saw %d requests after %d retry waits; want 1 and 0", n, waits.Load())
					}
					if h.kind == provider.ErrTooLarge {
						if sent.Load() >= endlessGuard {
							t.Errorf("the client read the whole %d-byte guard: the size limit did not stop it", endlessGuard)
						}
						if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
							t.Errorf("allocated %d bytes reading a reply capped at %d", alloc, h.limits.MaxBytes)
						}
						if streamed.Load() > h.limits.MaxBytes {
							t.Errorf("streamed %d bytes of text, more than the cap %d", streamed.Load(), h.limits.MaxBytes)
						}
					}
				})
			}
		}
	}
}
