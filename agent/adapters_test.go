package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/anthropic"
	"github.com/agentsh/agentsh/provider/openai"
)

// These tests run agent.Run over the real HTTP adapters against a local
// server that answers each request with the next recorded-style stream
// from testdata.

type httpAdapter struct {
	name string
	open func(t *testing.T, url string) provider.Provider
}

var httpAdapters = []httpAdapter{
	{"openai", func(t *testing.T, url string) provider.Provider {
		p, err := openai.New(openai.Config{Model: "gpt-4o", BaseURL: url + "/v1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
	{"anthropic", func(t *testing.T, url string) provider.Provider {
		p, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", BaseURL: url, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
}

// streams answers request n with testdata/fixtures[n-1] and keeps the
// request bodies.
type streams struct {
	mu     sync.Mutex
	bodies []string
}

func serveStreams(t *testing.T, fixtures ...string) (*streams, string) {
	t.Helper()
	s := &streams{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the request: %v", err)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		n := len(s.bodies)
		s.mu.Unlock()
		if n > len(fixtures) {
			t.Errorf("request %d: the test has only %d answers", n, len(fixtures))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", fixtures[n-1]))
		if err != nil {
			t.Error(err)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range strings.SplitAfter(string(data), "\n\n") {
			w.Write([]byte(ev))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func (s *streams) body(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > len(s.bodies) {
		return ""
	}
	return s.bodies[n-1]
}

// TestCutOffToolCallThroughRun: the model's answer reaches the token limit
// while it writes its second call. The run ends with Stop max_tokens and
// the text; the finished call runs, the cut one does not, is reported in
// the reply and as an event, and never reaches the model again — neither
// as a call nor as a result — when the conversation goes on.
func TestCutOffToolCallThroughRun(t *testing.T) {
	ids := map[string][2]string{"openai": {"call_Read01", "call_Write02"}, "anthropic": {"toolu_01Read", "toolu_02Write"}}
	for _, ad := range httpAdapters {
		t.Run(ad.name, func(t *testing.T) {
			readID, cutID := ids[ad.name][0], ids[ad.name][1]
			srv, url := serveStreams(t, ad.name+"_cut.sse", ad.name+"_final.sse")
			var mu sync.Mutex
			var ran []string
			var events []Event
			tool := func(name string) func(context.Context, json.RawMessage) (any, error) {
				return func(_ context.Context, args json.RawMessage) (any, error) {
					mu.Lock()
					defer mu.Unlock()
					ran = append(ran, name+" "+string(args))
					return "the notes", nil
				}
			}
			a, err := New(WithProvider(ad.open(t, url)), WithPermissions(executor.PermissionsAllowAll), WithObserver(func(e Event) { events = append(events, e) }))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			if err := a.RegisterTools(goTool("read_file", tool("read_file")), goTool("write_file", tool("write_file"))); err != nil {
				t.Fatal(err)
			}

			reply, err := a.Run(context.Background(), "summarise the notes")
			if err != nil {
				t.Fatalf("Run: %v, want the cut-off turn", err)
			}
			if reply.Stop != StopMaxTokens || reply.Text != "Reading the notes, then writing the summary." || reply.Turns != 1 || reply.ToolCalls != 1 {
				t.Errorf("reply %+v, want Stop max_tokens, the text, 1 turn, 1 call", reply)
			}
			if len(reply.Dropped) != 1 || reply.Dropped[0].ID != cutID || reply.Dropped[0].Name != "write_file" {
				t.Errorf("dropped %+v, want write_file %s", reply.Dropped, cutID)
			}
			if len(ran) != 1 || !strings.HasPrefix(ran[0], "read_file ") {
				t.Errorf("ran %q, want read_file alone", ran)
			}
			var dropped []Event
			for _, e := range events {
				if e.Type == "tool_call_dropped" {
					dropped = append(dropped, e)
				}
			}
			if len(dropped) != 1 || dropped[0].CallID != cutID || dropped[0].Tool != "write_file" || !strings.Contains(dropped[0].Text, "token limit") {
				t.Errorf("tool_call_dropped events %+v, want one for write_file %s", dropped, cutID)
			}
			msgs := a.Messages()
			if got := roles(msgs); got != "user,assistant,tool" {
				t.Fatalf("conversation %s, want user,assistant,tool", got)
			}
			if tcs := msgs[1].ToolCalls; len(tcs) != 1 || tcs[0].ID != readID || msgs[2].ToolCallID != readID {
				t.Errorf("assistant calls %+v and result for %q, want only %s", tcs, msgs[2].ToolCallID, readID)
			}

			// The conversation goes on: the model sees the finished call
			// and its result, and nothing of the cut one.
			reply, err = a.Run(context.Background(), "go on")
			if err != nil || reply.Stop != StopFinal || reply.Text != "Done." {
				t.Fatalf("second Run: %+v, %v; want the final answer", reply, err)
			}
			next := srv.body(2)
			if !strings.Contains(next, readID) || !strings.Contains(next, "the notes") || strings.Contains(next, cutID) {
				t.Errorf("second request %s: want %s and its result, and no %s", next, readID, cutID)
			}
		})
	}
}

// TestMalformedArgumentsThroughRun: of three calls in one turn, the middle
// one has arguments that are not JSON. It gets an invalid_arguments result
// the model can correct; the other two run; the results go back in call
// order and the run goes on to the model's answer.
func TestMalformedArgumentsThroughRun(t *testing.T) {
	ids := map[string][3]string{"openai": {"call_A", "call_B", "call_C"}, "anthropic": {"toolu_01A", "toolu_02B", "toolu_03C"}}
	for _, ad := range httpAdapters {
		t.Run(ad.name, func(t *testing.T) {
			want := ids[ad.name]
			srv, url := serveStreams(t, ad.name+"_bad_json.sse", ad.name+"_final.sse")
			a, err := New(WithProvider(ad.open(t, url)), WithPermissions(executor.PermissionsAllowAll), WithValidateArguments(true), WithObserver(func(Event) {})) // an observer: streamed
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			if err := a.RegisterTools(goTool("double", func(_ context.Context, args json.RawMessage) (any, error) {
				var in struct{ N int }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return in.N * 2, nil
			})); err != nil {
				t.Fatal(err)
			}
			reply, err := a.Run(context.Background(), "double 2, 3 and 4")
			if err != nil {
				t.Fatalf("Run: %v, want the turn to go on", err)
			}
			if reply.Stop != StopFinal || reply.Text != "Done." || reply.Turns != 2 || reply.ToolCalls != 3 {
				t.Errorf("reply %+v, want final Done. after 2 turns and 3 calls", reply)
			}
			msgs := a.Messages()
			if got := roles(msgs); got != "user,assistant,tool,tool,tool,assistant" {
				t.Fatalf("conversation %s", got)
			}
			results := msgs[2:5]
			for i, m := range results {
				if m.ToolCallID != want[i] {
					t.Errorf("result %d answers %q, want %q (call order)", i, m.ToolCallID, want[i])
				}
			}
			if results[0].Content != "4" || results[2].Content != "8" || results[0].IsError || results[2].IsError {
				t.Errorf("results %q and %q, want 4 and 8", results[0].Content, results[2].Content)
			}
			if bad := results[1]; !bad.IsError || !strings.HasPrefix(bad.Content, "error (invalid_arguments): ") || !strings.Contains(bad.Content, "not valid JSON") {
				t.Errorf("malformed call's result %+v, want an invalid_arguments error", bad)
			}
			// The second request carries the three results, in order.
			next := srv.body(2)
			first, bad, last := strings.LastIndex(next, `"`+want[0]+`"`), strings.Index(next, "invalid_arguments"), strings.LastIndex(next, `"`+want[2]+`"`)
			if first < 0 || bad < 0 || last < 0 || !(first < bad && bad < last) {
				t.Errorf("second request %s: want the results of %s, %s (invalid_arguments), %s in order", next, want[0], want[1], want[2])
			}
		})
	}
}
