package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testFetcher allows private addresses, for httptest servers on 127.0.0.1.
func testFetcher(t *testing.T, p Policy) *HTTPFetcher {
	t.Helper()
	p.AllowPrivate = true
	return newHTTPFetcher(p, testLookup)
}

// testLookup resolves meta.rebind.test to 169.254.169.254, rebind.test and
// its other subdomains to 127.0.0.1, and anything else as the system does.
func testLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if host == "meta.rebind.test" {
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	if host == "rebind.test" || strings.HasSuffix(host, ".rebind.test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return defaultLookup(ctx, host)
}

// watchdog bounds a test that waits on the network.
func watchdog(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func port(t *testing.T, s *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFetchHTMLAndText(t *testing.T) {
	var ua atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.UserAgent())
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>T</title><script>alert(1)</script></head><body><h1>Hello</h1><p>See <a href="/docs/intro">the docs</a>.</p></body></html>`)
		case "/plain":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "line 1\n<b>not html</b>\n")
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"b":1,"a":[true]}`)
		case "/old":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		}
	}))
	defer srv.Close()
	f := testFetcher(t, Policy{})
	ctx := watchdog(t)

	resp, err := f.Fetch(ctx, FetchRequest{URL: srv.URL + "/old"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || resp.URL != srv.URL+"/page" || resp.Truncated || !strings.HasPrefix(resp.ContentType, "text/html") {
		t.Errorf("got status %d, URL %s, truncated %v, type %q; want 200, %s/page, false, text/html", resp.Status, resp.URL, resp.Truncated, resp.ContentType, srv.URL)
	}
	md, err := Convert(resp.Body, resp.ContentType, resp.URL, FormatMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Hello\n\nSee [the docs](" + srv.URL + "/docs/intro)."
	if md != want {
		t.Errorf("markdown:\n got %q\nwant %q", md, want)
	}
	if got, _ := ua.Load().(string); !strings.Contains(got, "agentsh") {
		t.Errorf("User-Agent %q does not name agentsh", got)
	}

	resp, err = f.Fetch(ctx, FetchRequest{URL: srv.URL + "/plain"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats {
		text, err := Convert(resp.Body, resp.ContentType, resp.URL, format)
		if err != nil || text != "line 1\n<b>not html</b>\n" {
			t.Errorf("text/plain as %s: got %q, %v; want the body unchanged", format, text, err)
		}
	}
	resp, err = f.Fetch(ctx, FetchRequest{URL: srv.URL + "/json"})
	if err != nil {
		t.Fatal(err)
	}
	if text, err := Convert(resp.Body, resp.ContentType, resp.URL, ""); err != nil || text != `{"b":1,"a":[true]}` {
		t.Errorf("json: got %q, %v; want the body unchanged", text, err)
	}
}

func TestFetchStatusIsNotAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "no such page")
	}))
	defer srv.Close()
	resp, err := testFetcher(t, Policy{}).Fetch(watchdog(t), FetchRequest{URL: srv.URL + "/missing"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusNotFound || string(resp.Body) != "no such page" {
		t.Errorf("got %d %q, want 404 %q", resp.Status, resp.Body, "no such page")
	}
}

func TestFetchDeniedURL(t *testing.T) {
	f := NewHTTPFetcher(Policy{})
	ctx := watchdog(t)
	tests := map[string]string{
		"http://169.254.169.254/latest/meta-data/": "fetch http://169.254.169.254/latest/meta-data/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
		"http://0xa9fea9fe/":                       "fetch http://0xa9fea9fe/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
		"file:///etc/passwd":                       `fetch file:///etc/passwd: scheme "file" is not http or https; denied by policy`,
		"gopher://example.com/":                    `fetch gopher://example.com/: scheme "gopher" is not http or https; denied by policy`,
		"http://localhost:1/":                      "fetch http://localhost:1/: host localhost is loopback; denied by policy (set Policy.AllowPrivate, or list the address in Policy.AllowHosts)",
	}
	for u, want := range tests {
		_, err := f.Fetch(ctx, FetchRequest{URL: u})
		if err == nil || err.Error() != want || !errors.Is(err, ErrDenied) {
			t.Errorf("Fetch(%s):\n got %v\nwant %s", u, err, want)
		}
	}
	_, err := f.Fetch(ctx, FetchRequest{URL: ""})
	if err == nil || err.Error() != "fetch: empty URL" {
		t.Errorf("empty URL: got %v", err)
	}
	_, err = f.Fetch(ctx, FetchRequest{URL: "example.com"})
	if err == nil || !strings.Contains(err.Error(), "no scheme") {
		t.Errorf("no scheme: got %v", err)
	}
	_, err = NewHTTPFetcher(Policy{AllowHosts: []string{"x*y"}}).Fetch(ctx, FetchRequest{URL: "https://example.com/"})
	if err == nil || !strings.Contains(err.Error(), `AllowHosts entry "x*y"`) {
		t.Errorf("bad policy: got %v", err)
	}
	_, err = f.Fetch(ctx, FetchRequest{URL: "https://example.com/", MaxBytes: -1})
	if err == nil || !strings.Contains(err.Error(), "MaxBytes is -1") {
		t.Errorf("negative MaxBytes: got %v", err)
	}
	_, err = f.Fetch(ctx, FetchRequest{URL: "https://example.com/", Timeout: -time.Second})
	if err == nil || !strings.Contains(err.Error(), "Timeout is -1s") {
		t.Errorf("negative Timeout: got %v", err)
	}
}

func TestFetchRedirectDenied(t *testing.T) {
	var deniedHits atomic.Int32
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deniedHits.Add(1)
		fmt.Fprint(w, "secret")
	}))
	defer denied.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/meta":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/meta-decimal":
			http.Redirect(w, r, "http://2852039166/", http.StatusFound)
		case "/host":
			http.Redirect(w, r, "http://localhost:"+port(t, denied)+"/", http.StatusFound)
		case "/rebind":
			http.Redirect(w, r, "http://meta.rebind.test:"+port(t, denied)+"/", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	}))
	defer srv.Close()
	ctx := watchdog(t)
	f := testFetcher(t, Policy{DenyHosts: []string{"localhost"}})
	tests := map[string]string{
		"/meta":         "redirect to http://169.254.169.254/latest/meta-data/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
		"/meta-decimal": "redirect to http://2852039166/: address 169.254.169.254 is link-local (cloud metadata); denied by policy",
		"/host":         `redirect to http://localhost:` + port(t, denied) + `/: host localhost matches DenyHosts entry "localhost"; denied by policy`,
		"/file":         `redirect to file:///etc/passwd: scheme "file" is not http or https; denied by policy`,
	}
	for path, want := range tests {
		_, err := f.Fetch(ctx, FetchRequest{URL: srv.URL + path})
		want = "fetch " + srv.URL + path + ": " + want
		if err == nil || err.Error() != want || !errors.Is(err, ErrDenied) {
			t.Errorf("Fetch(%s):\n got %v\nwant %s", path, err, want)
		}
	}
	// A redirect to a name that resolves to a denied address is caught
	// when dialling.
	_, err := f.Fetch(ctx, FetchRequest{URL: srv.URL + "/rebind"})
	want := "fetch " + srv.URL + "/rebind: redirect to http://meta.rebind.test:" + port(t, denied) + "/: address 169.254.169.254 (of host meta.rebind.test) is link-local (cloud metadata); denied by policy"
	if err == nil || err.Error() != want || !errors.Is(err, ErrDenied) {
		t.Errorf("redirect to rebind:\n got %v\nwant %s", err, want)
	}
	if n := deniedHits.Load(); n != 0 {
		t.Errorf("the denied server got %d requests, want 0", n)
	}
}

func TestFetchHostResolvesToDeniedAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ctx := watchdog(t)
	u := "http://rebind.test:" + port(t, srv) + "/"
	for _, p := range []Policy{{}, {AllowHosts: []string{"rebind.test"}}} {
		_, err := newHTTPFetcher(p, testLookup).Fetch(ctx, FetchRequest{URL: u})
		want := "fetch " + u + ": address 127.0.0.1 (of host rebind.test) is loopback; denied by policy (set Policy.AllowPrivate, or list the address in Policy.AllowHosts)"
		if err == nil || err.Error() != want || !errors.Is(err, ErrDenied) {
			t.Errorf("policy %+v:\n got %v\nwant %s", p, err, want)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("server got %d requests, want 0", hits.Load())
	}
	// Listing the address allows it.
	resp, err := newHTTPFetcher(Policy{AllowHosts: []string{"rebind.test", "127.0.0.1"}}, testLookup).Fetch(ctx, FetchRequest{URL: u})
	if err != nil || resp.Status != 200 {
		t.Errorf("with 127.0.0.1 listed: got %v, %v", resp, err)
	}
	// The real resolver: localhost is loopback.
	_, err = NewHTTPFetcher(Policy{}).Fetch(ctx, FetchRequest{URL: "http://localhost:" + port(t, srv) + "/"})
	if !errors.Is(err, ErrDenied) {
		t.Errorf("localhost: got %v, want denied", err)
	}
}

func TestFetchRedirectLoop(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/loop", http.StatusFound)
	}))
	defer srv.Close()
	_, err := testFetcher(t, Policy{}).Fetch(watchdog(t), FetchRequest{URL: srv.URL + "/loop"})
	want := fmt.Sprintf("fetch %s/loop: redirect to %s/loop: stopped after %d redirects", srv.URL, srv.URL, MaxRedirects)
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if n := hits.Load(); n != MaxRedirects {
		t.Errorf("server got %d requests, want %d", n, MaxRedirects)
	}
}

func TestFetchTruncates(t *testing.T) {
	body := strings.Repeat("0123456789", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/gzip" {
			// A small compressed body that expands a lot.
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			gz.Write(bytes.Repeat([]byte("A"), 10<<20))
			gz.Close()
			return
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	f := testFetcher(t, Policy{})
	ctx := watchdog(t)
	for _, tt := range []struct {
		max       int64
		truncated bool
	}{{10, true}, {999, true}, {1000, false}, {1001, false}} {
		resp, err := f.Fetch(ctx, FetchRequest{URL: srv.URL, MaxBytes: tt.max})
		if err != nil {
			t.Fatal(err)
		}
		wantLen := min(tt.max, int64(len(body)))
		if int64(len(resp.Body)) != wantLen || resp.Truncated != tt.truncated || string(resp.Body) != body[:wantLen] {
			t.Errorf("MaxBytes %d: got %d bytes, truncated %v; want %d bytes, truncated %v", tt.max, len(resp.Body), resp.Truncated, wantLen, tt.truncated)
		}
	}
	f.MaxBytes = 25 // the fetcher's default
	resp, err := f.Fetch(ctx, FetchRequest{URL: srv.URL})
	if err != nil || len(resp.Body) != 25 || !resp.Truncated {
		t.Errorf("fetcher MaxBytes 25: got %v, %v", resp, err)
	}
	resp, err = f.Fetch(ctx, FetchRequest{URL: srv.URL + "/gzip", MaxBytes: 4096})
	if err != nil || len(resp.Body) != 4096 || !resp.Truncated || resp.Body[4095] != 'A' {
		t.Errorf("gzip: got %d bytes, truncated %v, %v; want 4096 decoded bytes, truncated", len(resp.Body), resp.Truncated, err)
	}
}

func TestFetchLimits(t *testing.T) {
	f := NewHTTPFetcher(Policy{})
	for _, tt := range []struct {
		req      FetchRequest
		maxBytes int64
		timeout  time.Duration
	}{
		{FetchRequest{}, DefaultMaxBytes, DefaultTimeout},
		{FetchRequest{MaxBytes: 7, Timeout: time.Second}, 7, time.Second},
		{FetchRequest{MaxBytes: 1 << 40, Timeout: time.Hour}, MaxMaxBytes, MaxTimeout},
	} {
		m, d, err := f.limits(tt.req)
		if err != nil || m != tt.maxBytes || d != tt.timeout {
			t.Errorf("limits(%+v) = %d, %v, %v; want %d, %v", tt.req, m, d, err, tt.maxBytes, tt.timeout)
		}
	}
}

// blockingServer's handlers write what write says, then block until the
// client goes away or the test ends.
func blockingServer(t *testing.T, write func(w http.ResponseWriter)) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	started := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		write(w)
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() {
		close(done)
		srv.Close()
	})
	return srv, started
}

func TestFetchSlowBodyTimesOut(t *testing.T) {
	srv, _ := blockingServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "partial")
		w.(http.Flusher).Flush()
	})
	_, err := testFetcher(t, Policy{}).Fetch(watchdog(t), FetchRequest{URL: srv.URL, Timeout: 200 * time.Millisecond})
	want := "fetch " + srv.URL + ": timed out after 200ms reading the body (7 bytes read): context deadline exceeded"
	if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestFetchSlowHeadersTimesOut(t *testing.T) {
	srv, _ := blockingServer(t, func(http.ResponseWriter) {})
	f := testFetcher(t, Policy{})
	f.Timeout = 200 * time.Millisecond // the fetcher's default applies
	_, err := f.Fetch(watchdog(t), FetchRequest{URL: srv.URL})
	want := "fetch " + srv.URL + ": timed out after 200ms waiting for the response: context deadline exceeded"
	if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestFetchCancel(t *testing.T) {
	srv, started := blockingServer(t, func(http.ResponseWriter) {})
	ctx, cancel := context.WithCancel(watchdog(t))
	go func() {
		<-started
		cancel()
	}()
	_, err := testFetcher(t, Policy{}).Fetch(ctx, FetchRequest{URL: srv.URL})
	want := "fetch " + srv.URL + ": waiting for the response: context canceled"
	if err == nil || err.Error() != want || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want %s", err, want)
	}
	// Cancelled before starting.
	_, err = testFetcher(t, Policy{}).Fetch(ctx, FetchRequest{URL: srv.URL})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v", err)
	}
}

func TestFetchConcurrent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, r.URL.Path)
	}))
	defer srv.Close()
	f := testFetcher(t, Policy{})
	ctx := watchdog(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			path := fmt.Sprintf("/p%d", i)
			resp, err := f.Fetch(ctx, FetchRequest{URL: srv.URL + path})
			if err != nil || string(resp.Body) != path {
				t.Errorf("Fetch(%s): got %v, %v", path, resp, err)
			}
		})
	}
	wg.Wait()
}
