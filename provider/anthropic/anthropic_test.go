package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// captured is one request the fake server received.
type captured struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// fakeServer answers the n-th request (from 1) with answer.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []captured
}

func (f *fakeServer) requests() []captured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]captured(nil), f.reqs...)
}

func serve(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, captured{r.Method, r.URL.Path, r.Header.Clone(), body})
		n := len(f.reqs)
		f.mu.Unlock()
		answer(n, w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonFile answers with a fixture as JSON and the given status.
func jsonFile(t *testing.T, name string, status int) func(int, http.ResponseWriter, *http.Request) {
	b := fixture(t, name)
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(b)
	}
}

// sseFile answers with a fixture as an event stream, a few bytes at a
// time, so events, lines and JSON are split across reads.
func sseFile(t *testing.T, name string) func(int, http.ResponseWriter, *http.Request) {
	b := fixture(t, name)
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(200)
		for len(b) > 0 {
			n := min(7, len(b))
			w.Write(b[:n])
			w.(http.Flusher).Flush()
			b = b[n:]
		}
	}
}

// waits records the retry waits.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func (w *waits) get() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newProvider(t *testing.T, f *fakeServer, edit func(*Config)) *Provider {
	t.Helper()
	cfg := Config{
		Model:      "claude-test",
		BaseURL:    f.URL,
		APIKey:     "sk-ant-test",
		HTTPClient: f.Client(),
		Retry:      wire.Retry{Sleep: func(context.Context, time.Duration) error { return nil }},
	}
	if edit != nil {
		edit(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, b)
	}
	return m
}

var hello = provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hello"}}}

func TestTextAnswer(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	p := newProvider(t, f, nil)
	resp, err := p.Complete(context.Background(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Content:    "Hello! The TODOs are in main.go and util.go.",
		StopReason: "end_turn",
		Usage:      provider.Usage{InputTokens: 2095, OutputTokens: 503, CacheReadTokens: 120, CacheWriteTokens: 1800},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got %+v\nwant %+v", resp, want)
	}

	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/messages" {
		t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.Path)
	}
	for k, v := range map[string]string{"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	body := decode(t, r.Body)
	if body["model"] != "claude-test" || body["max_tokens"] != float64(4096) {
		t.Errorf("model %v, max_tokens %v; want claude-test, 4096", body["model"], body["max_tokens"])
	}
	if _, ok := body["stream"]; ok {
		t.Errorf("stream sent without a stream callback: %s", r.Body)
	}
	if p.Name() != "anthropic:claude-test" {
		t.Errorf("Name() = %q", p.Name())
	}
}

func TestMaxTokensAndModelPrecedence(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	p := newProvider(t, f, func(c *Config) { c.MaxTokens = 1000; c.Label = "mine" })
	if p.Name() != "mine" {
		t.Errorf("Name() = %q, want the label", p.Name())
	}
	ctx := context.Background()
	if _, err := p.Complete(ctx, hello, nil); err != nil {
		t.Fatal(err)
	}
	req := hello
	req.MaxTokens, req.Model = 77, "claude-other"
	if _, err := p.Complete(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if got := decode(t, reqs[0].Body)["max_tokens"]; got != float64(1000) {
		t.Errorf("max_tokens %v, want Config's 1000", got)
	}
	b := decode(t, reqs[1].Body)
	if b["max_tokens"] != float64(77) || b["model"] != "claude-other" {
		t.Errorf("max_tokens %v, model %v; want the Request's 77, claude-other", b["max_tokens"], b["model"])
	}
}

func TestToolUseAnswer(t *testing.T) {
	f := serve(t, jsonFile(t, "tool_use.json", 200))
	p := newProvider(t, f, nil)
	resp, err := p.Complete(context.Background(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Content: "I'll search for TODOs and list the files.",
		ToolCalls: []provider.ToolCall{
			{ID: "toolu_01A09q90qw90lq917835lq9", Name: "grep", Args: json.RawMessage(`{"pattern":"TODO","path":"src/"}`)},
			{ID: "toolu_01B7x8c6v5b4n3m2", Name: "glob", Args: json.RawMessage(`{"pattern":"**/*.go","limit":10}`)},
		},
		StopReason: "tool_use",
		Usage:      provider.Usage{InputTokens: 472, OutputTokens: 91},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got %s\nwant %s", jsonString(resp), jsonString(want))
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestStreamText(t *testing.T) {
	f := serve(t, sseFile(t, "stream_text.sse"))
	p := newProvider(t, f, nil)
	var pieces []string
	resp, err := p.Complete(context.Background(), hello, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	wantPieces := []string{"Hello", ",", " wor", "ld", "! Ünïcödé ✓", "\nSecond line."}
	if !reflect.DeepEqual(pieces, wantPieces) {
		t.Errorf("streamed %q, want %q", pieces, wantPieces)
	}
	want := provider.Response{
		Content:    strings.Join(wantPieces, ""),
		StopReason: "end_turn",
		Usage:      provider.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 10},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got %+v\nwant %+v", resp, want)
	}
	r := f.requests()[0]
	if b := decode(t, r.Body); b["stream"] != true {
		t.Errorf(`request lacks "stream": true: %s`, r.Body)
	}
}

func TestStreamToolUse(t *testing.T) {
	f := serve(t, sseFile(t, "stream_tool_use.sse"))
	p := newProvider(t, f, nil)
	var streamed strings.Builder
	resp, err := p.Complete(context.Background(), hello, func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Content: "Checking both.",
		ToolCalls: []provider.ToolCall{
			{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Args: json.RawMessage(`{"location":"San Francisco, CA","unit":"fahrenheit","days":12}`)},
			{ID: "toolu_02Xy9", Name: "get_time", Args: json.RawMessage(`{"tz":"America/Los_Angeles","fmt":["hh:mm",true]}`)},
		},
		StopReason: "tool_use",
		Usage:      provider.Usage{InputTokens: 472, OutputTokens: 89},
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("got %s\nwant %s", jsonString(resp), jsonString(want))
	}
	if streamed.String() != "Checking both." {
		t.Errorf("streamed %q", streamed.String())
	}
}

func TestStreamFallsBackToJSON(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	p := newProvider(t, f, nil)
	var pieces []string
	resp, err := p.Complete(context.Background(), hello, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 1 || pieces[0] != resp.Content || resp.Content == "" {
		t.Errorf("streamed %q for content %q, want it once", pieces, resp.Content)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	f := serve(t, sseFile(t, "stream_error.sse"))
	p := newProvider(t, f, nil)
	_, err := p.Complete(context.Background(), hello, func(string) {})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrServer || pe.Provider != "anthropic" || !strings.Contains(pe.Message, "Overloaded") {
		t.Fatalf("got %#v, want an ErrServer *provider.Error saying Overloaded", err)
	}
}

func TestStreamCutShort(t *testing.T) {
	full := fixture(t, "stream_text.sse")
	cut := full[:bytes.Index(full, []byte("event: message_delta"))]
	f := serve(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(cut)
	})
	p := newProvider(t, f, nil)
	_, err := p.Complete(context.Background(), hello, func(string) {})
	if provider.KindOf(err) != provider.ErrProtocol {
		t.Fatalf("got %v, want an ErrProtocol error for a stream without message_stop", err)
	}
}

func TestErrors(t *testing.T) {
	html := func(status int) func(int, http.ResponseWriter, *http.Request) {
		return func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			io.WriteString(w, "<html><body>Bad Gateway</body></html>")
		}
	}
	tests := []struct {
		name     string
		answer   func(int, http.ResponseWriter, *http.Request)
		kind     provider.Kind
		status   int
		calls    int
		contains string
	}{
		{"401", jsonFile(t, "error_401.json", 401), provider.ErrAuth, 401, 1, "invalid x-api-key"},
		{"404 model", jsonFile(t, "error_404_model.json", 404), provider.ErrUnknownModel, 404, 1, "claude-nonexistent-9"},
		{"400 too long", jsonFile(t, "error_400_too_long.json", 400), provider.ErrContextOverflow, 400, 1, "prompt is too long"},
		{"400 other", jsonFile(t, "error_400.json", 400), provider.ErrBadRequest, 400, 1, "valid dictionary"},
		{"429 throughout", jsonFile(t, "error_429.json", 429), provider.ErrRateLimited, 429, 3, "rate limit"},
		{"529 overloaded", jsonFile(t, "error_529.json", 529), provider.ErrServer, 529, 3, "overloaded_error: Overloaded"},
		{"400 unparseable", html(400), provider.ErrProtocol, 400, 1, "Bad Gateway"},
		{"502 unparseable", html(502), provider.ErrServer, 502, 3, "Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := serve(t, tt.answer)
			var w waits
			p := newProvider(t, f, func(c *Config) {
				c.Retry = wire.Retry{Attempts: 3, Backoff: time.Second, Sleep: w.sleep}
			})
			_, err := p.Complete(context.Background(), hello, nil)
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want a *provider.Error", err, err)
			}
			if pe.Kind != tt.kind || pe.Status != tt.status || pe.Provider != "anthropic" {
				t.Errorf("got kind %q status %d provider %q, want %q %d anthropic", pe.Kind, pe.Status, pe.Provider, tt.kind, tt.status)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("errors.Is(err, %q) is false", tt.kind)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not contain %q", err, tt.contains)
			}
			if msg := err.Error(); tt.kind == provider.ErrAuth && (!strings.Contains(msg, "ANTHROPIC_API_KEY") || strings.Contains(msg, "OPENAI")) {
				t.Errorf("error %q, want a hint naming ANTHROPIC_API_KEY and no other vendor's key", msg)
			}
			if n := len(f.requests()); n != tt.calls {
				t.Errorf("%d requests, want %d", n, tt.calls)
			}
			if tt.calls == 3 {
				if got, want := w.get(), []time.Duration{time.Second, 2 * time.Second}; !reflect.DeepEqual(got, want) {
					t.Errorf("waits %v, want %v", got, want)
				}
			}
		})
	}
}

func TestRateLimitRetryAfterThenSuccess(t *testing.T) {
	limited := fixture(t, "error_429.json")
	ok := jsonFile(t, "text.json", 200)
	f := serve(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			w.Write(limited)
			return
		}
		ok(n, w, r)
	})
	var w waits
	p := newProvider(t, f, func(c *Config) { c.Retry = wire.Retry{Sleep: w.sleep} })
	resp, err := p.Complete(context.Background(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != "end_turn" || !strings.HasPrefix(resp.Content, "Hello!") {
		t.Errorf("got %+v", resp)
	}
	if got := w.get(); !reflect.DeepEqual(got, []time.Duration{7 * time.Second}) {
		t.Errorf("waits %v, want [7s] from Retry-After", got)
	}
	reqs := f.requests()
	if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Errorf("%d requests, want 2 with the same body", len(reqs))
	}
}

// goldenRequest is a conversation with every kind of message.
var goldenRequest = provider.Request{
	System: "You are a careful assistant.",
	Tools: []provider.ToolDef{
		{Name: "grep", Description: "Search files.", Parameters: json.RawMessage(`{"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}`)},
		{Name: "screenshot", Description: "Take a screenshot."},
	},
	Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "Find the TODOs and show me the screen."},
		{Role: provider.RoleAssistant, Content: "Looking.", ToolCalls: []provider.ToolCall{
			{ID: "toolu_1", Name: "grep", Args: json.RawMessage(`{ "pattern": "TODO" }`)},
			{ID: "toolu_2", Name: "screenshot", Args: json.RawMessage(`{}`)},
		}},
		{Role: provider.RoleTool, ToolCallID: "toolu_1", Name: "grep", Content: "grep: permission denied", IsError: true},
		{Role: provider.RoleTool, ToolCallID: "toolu_2", Name: "screenshot", Content: "1x1 screenshot",
			Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")}}},
		{Role: provider.RoleUser, Content: "Thanks. Now summarise."},
	},
}

// canonical re-encodes JSON with sorted keys and indentation.
func canonical(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestRequestBodyGolden(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	p := newProvider(t, f, func(c *Config) { c.MaxTokens = 1000 })
	if _, err := p.Complete(context.Background(), goldenRequest, nil); err != nil {
		t.Fatal(err)
	}
	got := canonical(t, f.requests()[0].Body)
	path := filepath.Join("testdata", "request.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("request body differs from %s\ngot:\n%s", path, got)
	}
}

// cachePaths lists where cache_control markers are, as "tools[1]" or
// "messages[2].content[0]".
func cachePaths(t *testing.T, req provider.Request) []string {
	t.Helper()
	b, err := encodeRequest("m", 10, req, false)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if cc, ok := v["cache_control"]; ok {
				if !reflect.DeepEqual(cc, map[string]any{"type": "ephemeral"}) {
					t.Errorf("%s: cache_control %v", path, cc)
				}
				paths = append(paths, path)
			}
			for k, x := range v {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	var v any
	json.Unmarshal(b, &v)
	walk("", v)
	sort.Strings(paths)
	return paths
}

func TestCacheControlPlacement(t *testing.T) {
	tools := []provider.ToolDef{{Name: "a", Cache: true}, {Name: "b", Cache: true}, {Name: "c"}}
	call := []provider.ToolCall{{ID: "t1", Name: "a", Args: json.RawMessage(`{}`)}, {ID: "t2", Name: "b"}}
	base := func() provider.Request {
		return provider.Request{
			System:      "sys",
			SystemCache: true,
			Tools:       tools,
			Messages: []provider.Message{
				{Role: provider.RoleUser, Content: "q"},
				{Role: provider.RoleAssistant, Content: "calling", ToolCalls: call, Cache: true},
				{Role: provider.RoleTool, ToolCallID: "t1", Content: "r1"},
				{Role: provider.RoleTool, ToolCallID: "t2", Content: "r2", Cache: true},
				{Role: provider.RoleUser, Content: "next"},
			},
		}
	}

	// Four flags: the last flagged tool, the system block, the assistant's
	// last block (a tool_use) and the flagged tool_result.
	got := cachePaths(t, base())
	want := []string{"messages[1].content[2]", "messages[2].content[1]", "system[0]", "tools[1]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("four flags: cache_control at %v, want %v", got, want)
	}

	// No flags, no markers.
	plain := base()
	plain.SystemCache, plain.Tools = false, []provider.ToolDef{{Name: "a"}}
	for i := range plain.Messages {
		plain.Messages[i].Cache = false
	}
	if got := cachePaths(t, plain); len(got) != 0 {
		t.Errorf("no flags: cache_control at %v", got)
	}

	// Six flags: only the last four in request order remain, so the
	// tool and system markers go.
	six := base()
	six.Messages[0].Cache = true
	six.Messages[4].Cache = true // merged after the tool results
	got = cachePaths(t, six)
	want = []string{"messages[0].content[0]", "messages[1].content[2]", "messages[2].content[1]", "messages[2].content[2]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("six flags: cache_control at %v, want %v", got, want)
	}

	// Five flags: the tool marker goes, the system one stays.
	five := base()
	five.Messages[4].Cache = true
	got = cachePaths(t, five)
	want = []string{"messages[1].content[2]", "messages[2].content[1]", "messages[2].content[2]", "system[0]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("five flags: cache_control at %v, want %v", got, want)
	}
}

func TestMissingAPIKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	_, err := New(Config{Model: "claude-test"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrAuth || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || strings.Contains(err.Error(), "OPENAI") {
		t.Fatalf("got %v, want an ErrAuth error naming ANTHROPIC_API_KEY", err)
	}
}

func TestEnvironmentDefaults(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", f.URL+"/")
	p, err := New(Config{Model: "claude-test", HTTPClient: f.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), hello, nil); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Header.Get("x-api-key") != "sk-from-env" || r.Path != "/v1/messages" {
		t.Errorf("key %q path %q, want the environment's key at /v1/messages", r.Header.Get("x-api-key"), r.Path)
	}
}

func TestCancelMidStream(t *testing.T) {
	head := fixture(t, "stream_error.sse")
	head = head[:bytes.Index(head, []byte("event: error"))]
	released := make(chan struct{})
	t.Cleanup(func() { close(released) })
	f := serve(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(head)
		w.(http.Flusher).Flush()
		select { // hold the stream open
		case <-r.Context().Done():
		case <-released:
		}
	})
	p := newProvider(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := p.Complete(ctx, hello, func(s string) {
			got = append(got, s)
			cancel()
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if !reflect.DeepEqual(got, []string{"Partial"}) {
			t.Errorf("streamed %q before the cancellation, want [Partial]", got)
		}
		if d := time.Since(start); d > testwait.Bound(2*time.Second) {
			t.Errorf("returned after %v", d)
		}
	case <-time.After(testwait.Step):
		t.Fatal("Complete did not return after cancellation")
	}
}

func TestConcurrentUse(t *testing.T) {
	f := serve(t, jsonFile(t, "tool_use.json", 200))
	p := newProvider(t, f, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.Complete(context.Background(), goldenRequest, nil)
			if err == nil && len(resp.ToolCalls) != 2 {
				err = fmt.Errorf("%d tool calls, want 2", len(resp.ToolCalls))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	reqs := f.requests()
	for _, r := range reqs[1:] {
		if !bytes.Equal(r.Body, reqs[0].Body) {
			t.Fatalf("concurrent requests sent different bodies")
		}
	}
}

func TestUnknownRole(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	p := newProvider(t, f, nil)
	_, err := p.Complete(context.Background(), provider.Request{Messages: []provider.Message{{Role: "narrator", Content: "x"}}}, nil)
	if provider.KindOf(err) != provider.ErrBadRequest || len(f.requests()) != 0 {
		t.Errorf("got %v after %d requests, want ErrBadRequest before sending", err, len(f.requests()))
	}
}
