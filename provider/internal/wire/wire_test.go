package wire

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoRetriesAndHonoursRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	var waits []time.Duration
	r := Retry{Backoff: 100 * time.Millisecond, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	resp, err := Client{HTTP: srv.Client(), Retry: r}.Do(context.Background(), func() (*http.Request, error) {
		return http.NewRequest("POST", srv.URL, strings.NewReader("body"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if body := ReadBody(resp); body != "ok" || resp.StatusCode != 200 {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	// The first wait is Retry-After's 3s; the second the doubled backoff.
	if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] != 200*time.Millisecond {
		t.Errorf("waits %v, want [3s 200ms]", waits)
	}
}

func TestDoGivesUpAndReturnsLastResponse(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":"boom"}`))
	}))
	defer srv.Close()
	resp, err := Client{HTTP: srv.Client(), Retry: Retry{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}}.Do(context.Background(), func() (*http.Request, error) {
		return http.NewRequest("GET", srv.URL, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || ReadBody(resp) != `{"error":"boom"}` || calls.Load() != 3 {
		t.Errorf("status %d after %d calls, want 500 after 3", resp.StatusCode, calls.Load())
	}
}

func TestDoDoesNotRetryClientErrors(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	resp, err := Client{HTTP: srv.Client()}.Do(context.Background(), func() (*http.Request, error) {
		return http.NewRequest("GET", srv.URL, nil)
	})
	if err != nil || resp.StatusCode != 401 || calls.Load() != 1 {
		t.Fatalf("err %v, calls %d; want one 401", err, calls.Load())
	}
	resp.Body.Close()
}

func TestDoStopsWhenContextEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Client{HTTP: srv.Client()}.Do(ctx, func() (*http.Request, error) { return http.NewRequest("GET", srv.URL, nil) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	} {
		got, ok := RetryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReadEvents(t *testing.T) {
	stream := ": keep-alive\n\nevent: message_start\ndata: {\"a\":1}\n\ndata: line1\ndata: line2\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\ndata: after\n\n"
	var got []Event
	err := ReadEvents(strings.NewReader(stream), func(e Event) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{"message_start", `{"a":1}`}, {"", "line1\nline2"}, {"", `{"b":2}`}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: got %q, want %q", i, got[i], want[i])
		}
	}
	// A callback error stops the stream; a final event without a blank
	// line still arrives.
	stop := errors.New("stop")
	if err := ReadEvents(strings.NewReader("data: 1\n\ndata: 2\n\n"), func(Event) error { return stop }); err != stop {
		t.Errorf("err %v, want the callback's", err)
	}
	got = nil
	ReadEvents(strings.NewReader("data: tail"), func(e Event) error { got = append(got, e); return nil })
	if len(got) != 1 || got[0].Data != "tail" {
		t.Errorf("unterminated event: got %q", got)
	}
}
