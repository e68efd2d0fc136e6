package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/provider"
)

// guardDeadline only keeps a broken test from hanging; every limit under
// test is far shorter.
const guardDeadline = testwait.Step

// silentListener accepts connections and never reads or writes: a server
// that never sends headers. It counts the connections.
func silentListener(t *testing.T) (url string, accepted *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int32)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String() + "/", accepted
}

// within runs fn and returns its error, failing the test if fn has not
// returned by the guard deadline.
func within(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guardDeadline):
		t.Fatalf("still waiting after %v", guardDeadline)
		return nil
	}
}

func get(url string) func() (*http.Request, error) {
	return func() (*http.Request, error) { return http.NewRequest("GET", url, nil) }
}

func wantLimit(t *testing.T, err error, kind provider.Kind, msg string) {
	t.Helper()
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != kind || pe.Provider != "test" || !strings.Contains(pe.Message, msg) {
		t.Fatalf("got %v, want a %s error of provider test saying %q", err, kind, msg)
	}
}

// TestNoHeadersIsOneIdleTimeout: a server that accepts the connection and
// never answers fails the request after IdleTimeout, and the retries (four
// attempts, none of them waited for) do not ask it again.
func TestNoHeadersIsOneIdleTimeout(t *testing.T) {
	url, accepted := silentListener(t)
	var waits atomic.Int32
	c := Client{
		Retry:    Retry{Attempts: 4, Sleep: func(context.Context, time.Duration) error { waits.Add(1); return nil }},
		Limits:   provider.Limits{IdleTimeout: 200 * time.Millisecond},
		Provider: "test",
	}
	err := within(t, func() error {
		resp, err := c.Do(context.Background(), get(url))
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	wantLimit(t, err, provider.ErrTimeout, "no answer from "+url+" within 200ms")
	if n := accepted.Load(); n != 1 || waits.Load() != 0 {
		t.Errorf("%d connections and %d retry waits, want 1 and 0: a timeout is not retried", n, waits.Load())
	}
}

// TestHeadersThenSilence: after the headers, a body that stalls fails the
// read after IdleTimeout.
func TestHeadersThenSilence(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := Client{HTTP: srv.Client(), Limits: provider.Limits{IdleTimeout: 200 * time.Millisecond}, Provider: "test"}
	resp, err := c.Do(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []byte
	err = within(t, func() (err error) { got, err = io.ReadAll(resp.Body); return err })
	if string(got) != "partial" {
		t.Errorf("read %q before the stall, want %q", got, "partial")
	}
	wantLimit(t, err, provider.ErrTimeout, "sent nothing for 200ms in the middle of the answer")
}

// trickle sends one byte every millisecond until the client leaves,
// counting them in sent.
func trickle(sent *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := w.Write([]byte("a")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				sent.Add(1)
			}
		}
	}
}

// TestTrickleHitsMaxDuration: a byte now and then keeps IdleTimeout from
// firing; MaxDuration ends the response.
func TestTrickleHitsMaxDuration(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(trickle(&sent))
	defer srv.Close()
	c := Client{HTTP: srv.Client(), Limits: provider.Limits{IdleTimeout: 10 * time.Second, MaxDuration: 300 * time.Millisecond}, Provider: "test"}
	resp, err := c.Do(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	err = within(t, func() error { _, err := io.Copy(io.Discard, resp.Body); return err })
	wantLimit(t, err, provider.ErrTimeout, "took longer than 300ms")
	if sent.Load() == 0 {
		t.Error("the server sent nothing: the test did not trickle")
	}
}

// TestEndlessBodyHitsMaxBytes: a body without end is cut at MaxBytes, and
// exactly MaxBytes of it are read.
func TestEndlessBodyHitsMaxBytes(t *testing.T) {
	chunk := []byte(strings.Repeat("x", 32<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	const max = 100_000
	c := Client{HTTP: srv.Client(), Limits: provider.Limits{MaxBytes: max}, Provider: "test"}
	resp, err := c.Do(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var n int64
	err = within(t, func() (err error) { n, err = io.Copy(io.Discard, resp.Body); return err })
	if n != max {
		t.Errorf("read %d bytes, want exactly the cap, %d", n, max)
	}
	wantLimit(t, err, provider.ErrTooLarge, "larger than 100000 bytes")
	// Reads after the cap keep failing.
	if _, err := resp.Body.Read(make([]byte, 10)); provider.KindOf(err) != provider.ErrTooLarge {
		t.Errorf("read after the cap: %v, want too_large again", err)
	}
}

// TestRetriedErrorBodyIsNotDrained: a 503 whose body trickles forever does
// not hold the retry: the next attempt starts at once.
func TestRetriedErrorBodyIsNotDrained(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(503)
			w.Write([]byte("over"))
			w.(http.Flusher).Flush()
			<-r.Context().Done() // an error body that never ends
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	c := Client{HTTP: srv.Client(), Retry: Retry{Sleep: func(context.Context, time.Duration) error { return nil }},
		Limits: provider.Limits{IdleTimeout: 10 * time.Second}, Provider: "test"}
	var resp *http.Response
	err := within(t, func() (err error) { resp, err = c.Do(context.Background(), get(srv.URL)); return err })
	if err != nil {
		t.Fatal(err)
	}
	if body := ReadBody(resp); body != "ok" || calls.Load() != 2 {
		t.Errorf("got %q after %d calls, want ok after 2", body, calls.Load())
	}
}

// TestLimitsLeaveContextErrorsAlone: when the caller's context ends, Do
// returns its error, not a limit's.
func TestLimitsLeaveContextErrorsAlone(t *testing.T) {
	url, _ := silentListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := Client{Limits: provider.Limits{IdleTimeout: time.Hour}, Provider: "test"}
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err := within(t, func() error { _, err := c.Do(ctx, get(url)); return err })
	if !errors.Is(err, context.Canceled) || provider.KindOf(err) != "" {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 256 << 10: "256 KiB", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
