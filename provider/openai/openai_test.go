package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// reply is one canned answer of the fake server.
type reply struct {
	status  int
	header  map[string]string
	fixture string // file under testdata; .sse files are sent as a stream
	body    string // used when fixture is empty
}

// recorded is one request the fake server received.
type recorded struct {
	method, path string
	header       http.Header
	body         []byte
}

// fakeServer answers with the replies in turn (the last one repeats) and
// records the requests.
type fakeServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	reqs    []recorded
}

func newServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
	rep := f.replies[min(n, len(f.replies)-1)]
	f.mu.Unlock()

	data := []byte(rep.body)
	if rep.fixture != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", rep.fixture)); err != nil {
			f.t.Errorf("fixture: %v", err)
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	sse := strings.HasSuffix(rep.fixture, ".sse")
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if !sse {
		w.Write(data)
		return
	}
	// Send the stream event by event, as a server would.
	for _, ev := range strings.SplitAfter(string(data), "\n\n") {
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
	}
}

func (f *fakeServer) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// noWait records the waits of wire.Do instead of waiting.
type noWait struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (n *noWait) retry(attempts int) wire.Retry {
	return wire.Retry{Attempts: attempts, Sleep: func(_ context.Context, d time.Duration) error {
		n.mu.Lock()
		n.waits = append(n.waits, d)
		n.mu.Unlock()
		return nil
	}}
}

func newTestProvider(t *testing.T, srv *fakeServer, r wire.Retry) *Provider {
	t.Helper()
	p, err := New(Config{Model: "gpt-4o", BaseURL: srv.URL + "/v1/", APIKey: "sk-test", HTTPClient: srv.Client(), Retry: r})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func userRequest(text string) provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: text}}}
}

// bodyOf decodes a recorded request body.
func bodyOf(t *testing.T, r recorded) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("request body %s: %v", r.body, err)
	}
	return m
}

func TestCompleteText(t *testing.T) {
	srv := newServer(t, reply{fixture: "text.json"})
	p := newTestProvider(t, srv, wire.Retry{})
	resp, err := p.Complete(context.Background(), userRequest("find the TODOs"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		Content:    "There are 3 TODOs, all in main.go.",
		StopReason: "stop",
		Usage:      provider.Usage{InputTokens: 195, OutputTokens: 12, CacheReadTokens: 1024},
	}
	if !equalJSON(resp, want) {
		t.Errorf("got %+v, want %+v", resp, want)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != "POST" || r.path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.method, r.path)
	}
	if got := r.header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q, want %q", got, "Bearer sk-test")
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	body := bodyOf(t, r)
	if body["model"] != "gpt-4o" {
		t.Errorf("model %v, want gpt-4o", body["model"])
	}
	for _, k := range []string{"stream", "stream_options", "tools", "max_tokens"} {
		if _, ok := body[k]; ok {
			t.Errorf("body has %q: %s", k, r.body)
		}
	}
	if p.Name() != "openai:gpt-4o" {
		t.Errorf("Name() = %q, want openai:gpt-4o", p.Name())
	}
}

func TestCompleteParallelToolCalls(t *testing.T) {
	srv := newServer(t, reply{fixture: "tool_calls.json"})
	p := newTestProvider(t, srv, wire.Retry{})
	resp, err := p.Complete(context.Background(), userRequest("look around"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.ToolCall{
		{ID: "call_8qty38V5tVQOz0JWqGaWPhTz", Name: "grep", Args: json.RawMessage(`{"pattern":"TODO","path":"src"}`)},
		{ID: "call_Wn3b6XkPq1m0yZrT5uVd2cHs", Name: "read_file", Args: json.RawMessage(`{"path":"README.md"}`)},
	}
	if !equalJSON(resp.ToolCalls, want) {
		t.Errorf("tool calls %s, want %s", mustJSON(resp.ToolCalls), mustJSON(want))
	}
	if resp.Content != "" || resp.StopReason != "tool_calls" {
		t.Errorf("content %q stop %q, want empty and tool_calls", resp.Content, resp.StopReason)
	}
	if resp.Usage.InputTokens != 82 || resp.Usage.OutputTokens != 51 {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestToolCallArguments(t *testing.T) {
	answer := func(args string) string {
		return `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"call_1","type":"function","function":{"name":"list_dir","arguments":` + args + `}}]},"finish_reason":"tool_calls"}]}`
	}
	t.Run("empty", func(t *testing.T) {
		srv := newServer(t, reply{body: answer(`""`)})
		resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("ls"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Args) != "{}" {
			t.Errorf("tool calls %s, want one with args {}", mustJSON(resp.ToolCalls))
		}
	})
	t.Run("invalid", func(t *testing.T) {
		// Not an error of the answer: the call keeps what the model wrote,
		// for the agent to answer with invalid_arguments.
		srv := newServer(t, reply{body: answer(`"{\"path\": \"sr"`)})
		resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("ls"), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []provider.ToolCall{{ID: "call_1", Name: "list_dir", InvalidArgs: `{"path": "sr`}}
		if mustJSON(resp.ToolCalls) != mustJSON(want) {
			t.Errorf("tool calls %s, want %s", mustJSON(resp.ToolCalls), mustJSON(want))
		}
	})
}

func TestCompleteUnparseableBody(t *testing.T) {
	srv := newServer(t, reply{body: `<html>gateway says hello</html>`})
	_, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrProtocol || pe.Status != 200 || pe.Provider != "openai" {
		t.Fatalf("got %#v, want an openai protocol error with status 200", err)
	}
}

func TestStreamText(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_text.sse"})
	p := newTestProvider(t, srv, wire.Retry{})
	var pieces []string
	resp, err := p.Complete(context.Background(), userRequest("greet"), func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	wantPieces := []string{"Hel", "lo", ", wor", "ld", "! ünïcode ✓"}
	if strings.Join(pieces, "|") != strings.Join(wantPieces, "|") {
		t.Errorf("streamed %q, want %q", pieces, wantPieces)
	}
	if resp.Content != "Hello, world! ünïcode ✓" || resp.StopReason != "stop" {
		t.Errorf("got content %q stop %q", resp.Content, resp.StopReason)
	}
	if resp.Usage != (provider.Usage{InputTokens: 19, OutputTokens: 9}) {
		t.Errorf("usage %+v, want 19 in, 9 out", resp.Usage)
	}
	r := srv.requests()[0]
	body := bodyOf(t, r)
	if body["stream"] != true || !equalJSON(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("body %s lacks stream and stream_options.include_usage", r.body)
	}
	if got := r.header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept %q, want text/event-stream", got)
	}
}

func TestStreamToolCalls(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_tools.sse"})
	p := newTestProvider(t, srv, wire.Retry{})
	var pieces []string
	resp, err := p.Complete(context.Background(), userRequest("look around"), func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Response{
		ToolCalls: []provider.ToolCall{
			{ID: "call_Ab12Cd34Ef56", Name: "grep", Args: json.RawMessage(`{"pattern":"TODO","path":"src"}`)},
			{ID: "call_Gh78Ij90Kl12", Name: "read_file", Args: json.RawMessage(`{"path":"README.md"}`)},
		},
		StopReason: "tool_calls",
		Usage:      provider.Usage{InputTokens: 54, OutputTokens: 44, CacheReadTokens: 256},
	}
	if !equalJSON(resp, want) {
		t.Errorf("got\n%s\nwant\n%s", mustJSON(resp), mustJSON(want))
	}
	if len(pieces) != 0 {
		t.Errorf("streamed %q, want nothing", pieces)
	}
}

func TestStreamErrorObject(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_error.sse"})
	p := newTestProvider(t, srv, wire.Retry{})
	var pieces []string
	_, err := p.Complete(context.Background(), userRequest("hi"), func(s string) { pieces = append(pieces, s) })
	if !errors.Is(err, provider.ErrServer) || !strings.Contains(err.Error(), "The server had an error") {
		t.Fatalf("got %v, want a server error with the stream's message", err)
	}
	if len(pieces) != 1 || pieces[0] != "Partial" {
		t.Errorf("streamed %q before the error, want [Partial]", pieces)
	}
}

func TestStreamEndsEarly(t *testing.T) {
	// Text, then the end of the body: no finish_reason, no [DONE].
	chunk := `data: {"choices":[{"index":0,"delta":{"content":"Partial"},"finish_reason":null}]}` + "\n\n"
	srv := newServer(t, reply{header: map[string]string{"Content-Type": "text/event-stream"}, body: chunk})
	_, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), func(string) {})
	if !errors.Is(err, provider.ErrProtocol) {
		t.Errorf("got %v, want a protocol error for a stream without finish_reason", err)
	}
}

func TestStreamFallsBackToWholeAnswer(t *testing.T) {
	// A server that ignores "stream": true and answers with JSON.
	srv := newServer(t, reply{fixture: "text.json"})
	var pieces []string
	resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 1 || pieces[0] != resp.Content || resp.Content == "" {
		t.Errorf("streamed %q, want the whole content %q once", pieces, resp.Content)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		fixture string
		body    string
		kind    provider.Kind
		message string
	}{
		{"invalid key", 401, "error_401.json", "", provider.ErrAuth, "Incorrect API key provided"},
		{"forbidden", 403, "", `{"error":{"message":"Project does not have access","type":"invalid_request_error","code":null}}`, provider.ErrAuth, "Project does not have access"},
		{"unknown model", 404, "error_404.json", "", provider.ErrUnknownModel, "The model `gpt-9-turbo` does not exist"},
		{"model_not_found code", 400, "", `{"error":{"message":"no such model","type":"invalid_request_error","code":"model_not_found"}}`, provider.ErrUnknownModel, "no such model"},
		{"context overflow", 400, "error_400_context.json", "", provider.ErrContextOverflow, "maximum context length is 128000 tokens"},
		{"overflow by message", 400, "", `{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","code":400}`, provider.ErrContextOverflow, "maximum context length is 8192"},
		{"bad request", 400, "error_400.json", "", provider.ErrBadRequest, "Invalid type for 'messages[1].content'"},
		{"bare string error", 422, "", `{"error":"invalid tool schema"}`, provider.ErrBadRequest, "invalid tool schema"},
		{"not json", 418, "", "short and stout", provider.ErrBadRequest, "short and stout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, reply{status: tt.status, fixture: tt.fixture, body: tt.body})
			_, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), nil)
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%T), want *provider.Error", err, err)
			}
			if pe.Kind != tt.kind || pe.Status != tt.status || pe.Provider != "openai" {
				t.Errorf("got kind %q status %d provider %q, want %q %d openai", pe.Kind, pe.Status, pe.Provider, tt.kind, tt.status)
			}
			if !strings.Contains(pe.Message, tt.message) {
				t.Errorf("message %q, want it to contain %q", pe.Message, tt.message)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("errors.Is(err, %q) is false", tt.kind)
			}
			if msg := err.Error(); tt.kind == provider.ErrAuth && (!strings.Contains(msg, "OPENAI_API_KEY") || strings.Contains(msg, "ANTHROPIC")) {
				t.Errorf("error %q, want a hint naming OPENAI_API_KEY and no other vendor's key", msg)
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("%d requests, want 1 (client errors are not retried)", n)
			}
		})
	}
}

func TestRateLimitRetriedThenSucceeds(t *testing.T) {
	srv := newServer(t,
		reply{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "7"}},
		reply{fixture: "text.json"},
	)
	var nw noWait
	resp, err := newTestProvider(t, srv, nw.retry(0)).Complete(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content == "" {
		t.Error("empty content after the retry")
	}
	if len(nw.waits) != 1 || nw.waits[0] != 7*time.Second {
		t.Errorf("waits %v, want [7s] from Retry-After", nw.waits)
	}
	reqs := srv.requests()
	if len(reqs) != 2 || !bytes.Equal(reqs[0].body, reqs[1].body) {
		t.Errorf("%d requests, want 2 with the same body", len(reqs))
	}
}

func TestRateLimitGivesUp(t *testing.T) {
	srv := newServer(t, reply{status: 429, fixture: "error_429.json", header: map[string]string{"Retry-After": "1"}})
	var nw noWait
	_, err := newTestProvider(t, srv, nw.retry(2)).Complete(context.Background(), userRequest("hi"), nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrRateLimited || pe.Status != 429 || !strings.Contains(pe.Message, "Rate limit reached") {
		t.Fatalf("got %v, want a rate-limit error with the server's message", err)
	}
	if len(srv.requests()) != 2 {
		t.Errorf("%d requests, want 2", len(srv.requests()))
	}
}

func TestServerErrorRetriedThenFails(t *testing.T) {
	srv := newServer(t, reply{status: 500, fixture: "error_500.json"})
	var nw noWait
	_, err := newTestProvider(t, srv, nw.retry(3)).Complete(context.Background(), userRequest("hi"), nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrServer || pe.Status != 500 {
		t.Fatalf("got %v, want a server error with status 500", err)
	}
	if !strings.Contains(pe.Message, "The server had an error") {
		t.Errorf("message %q lacks the server's message", pe.Message)
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if len(nw.waits) != 2 || nw.waits[1] != 2*nw.waits[0] {
		t.Errorf("waits %v, want two, doubling", nw.waits)
	}
}

func TestNetworkErrorNamesURL(t *testing.T) {
	// A listener that is closed at once: nothing answers on its port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p, err := New(Config{Model: "m", BaseURL: "http://" + addr + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	p.http.Retry = (&noWait{}).retry(1)
	_, err = p.Complete(context.Background(), userRequest("hi"), nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "http://"+addr+"/v1/chat/completions") || pe.Err == nil {
		t.Fatalf("got %v, want a provider error naming the URL and wrapping the cause", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	sent := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"first"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		close(sent)
		<-r.Context().Done() // hold the stream open until the client leaves
	}))
	defer srv.Close()
	p, err := New(Config{Model: "m", BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var got []string
	go func() {
		_, err := p.Complete(ctx, userRequest("hi"), func(s string) { got = append(got, s) })
		done <- err
	}()
	<-sent
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if len(got) != 1 || got[0] != "first" {
			t.Errorf("streamed %q, want [first]", got)
		}
	case <-time.After(testwait.Step):
		t.Fatal("Complete did not return after the context was cancelled")
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	srv := newServer(t, reply{status: 503, body: `{"error":{"message":"overloaded"}}`})
	p := newTestProvider(t, srv, wire.Retry{Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Complete(ctx, userRequest("hi"), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > testwait.Bound(5*time.Second) {
		t.Errorf("returned after %v", d)
	}
}

// TestRequestGolden checks the exact body for a conversation with every
// kind of message. Run with -update to rewrite the golden file.
func TestRequestGolden(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	req := provider.Request{
		System: "You are a careful assistant.",
		Messages: []provider.Message{
			{Role: provider.RoleUser, Content: "Find the TODOs and show me the screenshot."},
			{Role: provider.RoleAssistant, Content: "Looking.", ToolCalls: []provider.ToolCall{
				{ID: "call_1", Name: "grep", Args: json.RawMessage(`{"pattern":"TODO"}`)},
				{ID: "call_2", Name: "screenshot", Args: nil},
				{ID: "call_3", Name: "read_file", Args: json.RawMessage(`{"path":"missing.txt"}`)},
			}},
			{Role: provider.RoleTool, ToolCallID: "call_1", Name: "grep", Content: "main.go:3: // TODO: tidy"},
			{Role: provider.RoleTool, ToolCallID: "call_2", Content: "one screenshot", Blocks: []core.Block{
				{Type: "image", MIMEType: "image/png", Data: png},
				{Type: "text", Text: "not an image"},
			}},
			{Role: provider.RoleTool, ToolCallID: "call_3", Name: "read_file", IsError: true, Content: "open missing.txt: no such file or directory"},
			{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{
				{ID: "call_4", Name: "grep", Args: json.RawMessage(`{"pattern":"FIXME"}`)},
			}},
			{Role: provider.RoleTool, ToolCallID: "call_4", Name: "grep", Content: ""},
			{Role: provider.RoleAssistant, Content: "One TODO in main.go."},
			{Role: provider.RoleUser, Content: "Thanks."},
		},
		Tools: []provider.ToolDef{
			{Name: "grep", Description: "Search files.", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			{Name: "screenshot"},
		},
		MaxTokens: 1024,
	}
	srv := newServer(t, reply{fixture: "text.json"})
	p := newTestProvider(t, srv, wire.Retry{})
	if _, err := p.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := canonical(t, srv.requests()[0].body)
	golden := filepath.Join("testdata", "request.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("request body differs from %s:\n%s", golden, got)
	}
}

func TestRequestModelOverridesConfig(t *testing.T) {
	srv := newServer(t, reply{fixture: "text.json"})
	req := userRequest("hi")
	req.Model = "gpt-4o-mini"
	if _, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if m := bodyOf(t, srv.requests()[0])["model"]; m != "gpt-4o-mini" {
		t.Errorf("model %v, want gpt-4o-mini", m)
	}
}

func TestUnknownRole(t *testing.T) {
	srv := newServer(t, reply{fixture: "text.json"})
	req := provider.Request{Messages: []provider.Message{{Role: "narrator", Content: "x"}}}
	_, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), req, nil)
	if !errors.Is(err, provider.ErrBadRequest) || len(srv.requests()) != 0 {
		t.Errorf("got %v after %d requests, want a bad-request error before sending", err, len(srv.requests()))
	}
}

func TestMissingKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := New(Config{Model: "gpt-4o"})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrAuth || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "ANTHROPIC") {
		t.Fatalf("got %v, want an auth error naming OPENAI_API_KEY and no other vendor's key", err)
	}

	t.Setenv("OPENAI_API_KEY", "sk-env")
	p, err := New(Config{Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if p.baseURL != DefaultBaseURL || p.apiKey != "sk-env" {
		t.Errorf("base %q key %q, want the default URL and the key from the environment", p.baseURL, p.apiKey)
	}
}

func TestLocalServerNeedsNoKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := newServer(t, reply{fixture: "text.json"})
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	p, err := New(Config{Model: "qwen2.5-coder", Label: "vllm:qwen"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "vllm:qwen" {
		t.Errorf("Name() = %q, want the label", p.Name())
	}
	if _, err := p.Complete(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.path != "/v1/chat/completions" || r.header.Get("Authorization") != "" {
		t.Errorf("request to %s with Authorization %q, want /v1/chat/completions and none", r.path, r.header.Get("Authorization"))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{BaseURL: "http://localhost:8000/v1"},
		{Model: "m", BaseURL: "localhost:8000"},
		{Model: "m", BaseURL: "ftp://example.com"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}

func TestOllama(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "")
	p, err := Ollama("llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	if p.baseURL != "http://localhost:11434/v1" || p.Name() != "ollama:llama3.2" || p.apiKey != "" {
		t.Errorf("base %q name %q key %q", p.baseURL, p.Name(), p.apiKey)
	}

	// Requests go to OLLAMA_HOST, without a key, and errors say "ollama".
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	srv := newServer(t, reply{fixture: "text.json"}, reply{status: 404, body: `{"error":{"message":"model \"nope\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`})
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	p, err = Ollama("llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), userRequest("hi"), nil); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.path != "/v1/chat/completions" || r.header.Get("Authorization") != "" {
		t.Errorf("request to %s with Authorization %q", r.path, r.header.Get("Authorization"))
	}
	_, err = p.Complete(context.Background(), userRequest("hi"), nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Provider != "ollama" || pe.Kind != provider.ErrUnknownModel {
		t.Errorf("got %v, want an ollama unknown-model error", err)
	}
	if !strings.Contains(err.Error(), "ollama pull llama3.2") {
		t.Errorf("got %q, want a hint to pull the model", err)
	}
}

// TestOllamaAuthHint checks that a server behind OLLAMA_HOST that wants a
// key is answered with what the user can do (ollama sends none), not with
// OpenAI's key.
func TestOllamaAuthHint(t *testing.T) {
	srv := newServer(t, reply{status: 401, body: `{"error":"unauthorized"}`})
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	p, err := Ollama("llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), userRequest("hi"), nil)
	if !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("got %v, want an auth error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "openai:MODEL") || !strings.Contains(msg, "sends no key") || strings.Contains(msg, "ANTHROPIC") {
		t.Errorf("got %q, want a hint saying ollama sends no key and naming openai:MODEL", msg)
	}
}

func TestOllamaHost(t *testing.T) {
	tests := map[string]string{
		"":                           "http://localhost:11434/v1",
		"127.0.0.1:11500":            "http://127.0.0.1:11500/v1",
		"gpu-box":                    "http://gpu-box:11434/v1",
		":9999":                      "http://localhost:9999/v1",
		"0.0.0.0":                    "http://localhost:11434/v1",
		"0.0.0.0:8080":               "http://localhost:8080/v1",
		"http://gpu-box:11434":       "http://gpu-box:11434/v1",
		"https://ollama.example.com": "https://ollama.example.com:443/v1",
		"http://proxy:80/ollama/":    "http://proxy:80/ollama/v1",
		"[::1]:11434":                "http://[::1]:11434/v1",
	}
	for env, want := range tests {
		if got := ollamaBaseURL(env); got != want {
			t.Errorf("OLLAMA_HOST=%q: got %q, want %q", env, got, want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_tools.sse"})
	p := newTestProvider(t, srv, wire.Retry{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			resp, err := p.Complete(context.Background(), userRequest("hi"), func(string) {})
			if err == nil && len(resp.ToolCalls) != 2 {
				err = errors.New("want 2 tool calls")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// canonical re-encodes JSON with sorted keys and indentation.
func canonical(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func equalJSON(a, b any) bool { return mustJSON(a) == mustJSON(b) }
