package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

// echo answers with the number of messages, or fails on "fail".
var echo = provider.Func{Label: "test:echo", Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
	last := req.Messages[len(req.Messages)-1].Content
	if last == "fail" {
		return provider.Response{}, &provider.Error{Kind: provider.ErrRateLimited, Provider: "test", Message: "slow down"}
	}
	return provider.Response{Content: fmt.Sprintf("%d: %s", len(req.Messages), last),
		ToolCalls: []provider.ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{"a": 1}`)}}}, nil
}}

func conversation(turns ...string) []provider.Request {
	var reqs []provider.Request
	var msgs []provider.Message
	for _, t := range turns {
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: t})
		reqs = append(reqs, provider.Request{Model: "m", System: "be brief", Messages: append([]provider.Message(nil), msgs...),
			Tools: []provider.ToolDef{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}})
	}
	return reqs
}

func TestRecordThenReplay(t *testing.T) {
	var buf bytes.Buffer
	rec := Record(echo, &buf)
	var live []provider.Response
	for _, req := range conversation("hello", "fail", "again") {
		resp, err := rec.Complete(context.Background(), req, nil)
		if err != nil && !errors.Is(err, provider.ErrRateLimited) {
			t.Fatal(err)
		}
		live = append(live, resp)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("%d lines recorded, want 3:\n%s", n, buf.String())
	}
	p, err := Load(strings.NewReader(buf.String()), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var streamed []string
	for i, req := range conversation("hello", "fail", "again") {
		resp, err := p.Complete(context.Background(), req, func(s string) { streamed = append(streamed, s) })
		if i == 1 {
			if !errors.Is(err, provider.ErrRateLimited) || !strings.Contains(err.Error(), "slow down") {
				t.Errorf("replayed error %v, want the recorded rate limit", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if !equalJSON(resp, live[i]) {
			t.Errorf("turn %d: replayed %+v, recorded %+v", i+1, resp, live[i])
		}
	}
	if len(streamed) != 2 || streamed[0] != "1: hello" {
		t.Errorf("streamed %q", streamed)
	}
	if p.Remaining() != 0 || p.Name() != "replay:run.jsonl" {
		t.Errorf("remaining %d, name %q", p.Remaining(), p.Name())
	}
	// Past the end.
	_, err = p.Complete(context.Background(), conversation("x")[0], nil)
	if !errors.Is(err, provider.ErrDiverged) || !strings.Contains(err.Error(), "past the end of the recording (3 requests)") {
		t.Errorf("past the end: %v", err)
	}
}

func TestReplayDivergence(t *testing.T) {
	var buf bytes.Buffer
	rec := Record(echo, &buf)
	for _, req := range conversation("hello", "world") {
		rec.Complete(context.Background(), req, nil)
	}
	for _, tc := range []struct {
		name string
		edit func(*provider.Request)
		want string
	}{
		{"message", func(r *provider.Request) { r.Messages[1].Content = "word" },
			`request 2 differs from the recording at messages[1].content: at byte 3: got "word", recorded "world";`},
		{"extra message", func(r *provider.Request) {
			r.Messages = append(r.Messages, provider.Message{Role: "user", Content: "more"})
		}, `request 2 differs from the recording at messages[2]: got {"role":"user","content":"more"}, which the recording does not have;`},
		{"missing message", func(r *provider.Request) { r.Messages = r.Messages[:1] },
			// The first request of the recording is equal to it.
			`request 2 differs from the recording; it equals recorded request 1 of 2, so the requests came in another order`},
		{"nearer elsewhere", func(r *provider.Request) {
			r.Messages = append(r.Messages[:1:1], provider.Message{Role: "user", Content: "hello"})
		},
			`request 2 differs from the recording at messages[1].content: at byte 0: got "hello", recorded "world"`},
		{"model", func(r *provider.Request) { r.Model = "other" }, `request 2 differs from the recording at model: at byte 0: got "other", recorded "m"`},
		{"system", func(r *provider.Request) { r.System = "be long" }, `at system: at byte 3: got "be long", recorded "be brief"`},
		{"tools", func(r *provider.Request) { r.Tools = nil }, `at tools: missing; recorded [{"name":"t","parameters":{"type":"object"}}]`},
		{"tool parameters", func(r *provider.Request) { r.Tools[0].Parameters = json.RawMessage(`{"type":"array"}`) },
			`at tools[0].parameters.type: at byte 0: got "array", recorded "object"`},
	} {
		p, err := Load(strings.NewReader(buf.String()), "run.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		reqs := conversation("hello", "world")
		if _, err := p.Complete(context.Background(), reqs[0], nil); err != nil {
			t.Fatalf("%s: turn 1: %v", tc.name, err)
		}
		tc.edit(&reqs[1])
		_, err = p.Complete(context.Background(), reqs[1], nil)
		if !errors.Is(err, provider.ErrDiverged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "record it again") {
			t.Errorf("%s: err %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{not json\n", "run.jsonl:1:"},
		{`{"provider":"x","request":{"messages":[]}}` + "\n", "without a response or an error"},
	} {
		if _, err := Load(strings.NewReader(tc.in), "run.jsonl"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := Open("/nonexistent/run.jsonl"); err == nil {
		t.Error("Open of a missing file: no error")
	}
}

// TestLoadRefusesImpossibleUsage: a recorded count of tokens below 0 or
// above provider.MaxTokenCount (a negative cost, a sum that overflows past
// --max-tokens) is refused at load, naming the file, line, field and value.
func TestLoadRefusesImpossibleUsage(t *testing.T) {
	entry := func(usage string) string {
		return `{"provider":"x","request":{"messages":[]},"response":{"content":"a","usage":` + usage + "}}\n"
	}
	good := entry(`{"input_tokens":3}`)
	for _, tc := range []struct{ usage, want string }{
		{`{"input_tokens":-100000000}`, "run.jsonl:2: response usage input_tokens = -100000000;"},
		{`{"output_tokens":9223372036854775807}`, "run.jsonl:2: response usage output_tokens = 9223372036854775807;"},
		{`{"cache_read_tokens":1125899906842625}`, "run.jsonl:2: response usage cache_read_tokens = 1125899906842625;"},
		{`{"input_tokens":1,"cache_write_tokens":-1}`, "run.jsonl:2: response usage cache_write_tokens = -1;"},
	} {
		_, err := Load(strings.NewReader(good+entry(tc.usage)), "run.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "from 0 to 1125899906842624") ||
			!strings.Contains(err.Error(), "record the run again") || !errors.Is(err, ErrRecording) {
			t.Errorf("usage %s: %v, want an error containing %q, the bound and how to record again", tc.usage, err, tc.want)
		}
	}
	p, err := Load(strings.NewReader(good+entry(`{"input_tokens":1125899906842624,"output_tokens":0}`)), "run.jsonl")
	if err != nil || p.Remaining() != 2 {
		t.Errorf("usage at the bound: %v, want it loaded", err)
	}
}

// TestReplayLongLine: a line is read back however long the recorder
// wrote it, here a prompt past 64 MiB.
func TestReplayLongLine(t *testing.T) {
	short := provider.Func{Label: "test:short", Fn: func(context.Context, provider.Request) (provider.Response, error) {
		return provider.Response{Content: "ok"}, nil
	}}
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: strings.Repeat("a", longLine)}}}
	var buf bytes.Buffer
	if _, err := Record(short, &buf).Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	p, err := Load(&buf, "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := p.Complete(context.Background(), req, nil); err != nil || resp.Content != "ok" {
		t.Errorf("replayed %q, %v; want the recorded answer", resp.Content, err)
	}
}

// TestTornRecording: a recording whose last line is cut short (it ended
// while the line was written) replays the lines before it, says so in
// Warnings and past the end; a corrupt line before the last is an error.
func TestTornRecording(t *testing.T) {
	var buf bytes.Buffer
	rec := Record(echo, &buf)
	reqs := conversation("a", "b", "c")
	for _, req := range reqs {
		rec.Complete(context.Background(), req, nil)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	whole := lines[0] + lines[1]
	torn := whole + lines[2][:len(lines[2])/2]

	p, err := Load(strings.NewReader(torn), "run.jsonl")
	if err != nil {
		t.Fatalf("a torn last line: %v, want the lines before it loaded", err)
	}
	if p.Remaining() != 2 {
		t.Errorf("%d requests loaded, want 2", p.Remaining())
	}
	w := p.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "run.jsonl:3: the last line was cut short") || !strings.Contains(w[0], "holds 2 requests") ||
		!strings.Contains(w[0], "record the run again") {
		t.Errorf("warnings %q, want one naming the file and line 3, the requests kept and how to record again", w)
	}
	for _, req := range reqs[:2] {
		if _, err := p.Complete(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = p.Complete(context.Background(), reqs[2], nil)
	if want := "request 3 is past the end of the recording (2 requests), whose last line, 3, was cut short"; !errors.Is(err, provider.ErrDiverged) ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("past the torn end: %v, want it to contain %q", err, want)
	}

	for _, in := range []string{whole, strings.TrimSuffix(whole, "\n")} {
		p, err := Load(strings.NewReader(in), "run.jsonl")
		if err != nil || p.Remaining() != 2 || p.Warnings() != nil {
			t.Errorf("a whole recording (%d bytes): %v, %d requests, warnings %q; want 2 and none", len(in), err, p.Remaining(), p.Warnings())
		}
	}

	mid := lines[0] + lines[1][:len(lines[1])/2] + "\n" + lines[2]
	if _, err := Load(strings.NewReader(mid), "run.jsonl"); err == nil || !strings.Contains(err.Error(), "replay run.jsonl:2: a corrupt line") ||
		!strings.Contains(err.Error(), "record the run again") {
		t.Errorf("a corrupt line 2 of 3: %v, want an error naming the file and line and how to record again", err)
	}
}

func TestCancelledExchangeIsNotRecorded(t *testing.T) {
	var buf bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	slow := provider.Func{Fn: func(ctx context.Context, _ provider.Request) (provider.Response, error) {
		return provider.Response{}, ctx.Err()
	}}
	if _, err := Record(slow, &buf).Complete(ctx, conversation("x")[0], nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("recorded %q", buf.String())
	}
}

// TestReplayedAuthErrorKeepsItsHint checks that a recorded auth error
// replays with the adapter's hint it was recorded with, once, and without
// the general advice to check a key (nothing is sent while replaying).
func TestReplayedAuthErrorKeepsItsHint(t *testing.T) {
	failing := provider.Func{Fn: func(context.Context, provider.Request) (provider.Response, error) {
		return provider.Response{}, &provider.Error{Kind: provider.ErrAuth, Provider: "myco", Message: "no API key", Hint: "set MYCO_KEY"}
	}}
	var rec bytes.Buffer
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}}
	if _, err := Record(failing, &rec).Complete(context.Background(), req, nil); err == nil {
		t.Fatal("the recorded provider did not fail")
	}
	p, err := Load(&rec, "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), req, nil)
	if !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("got %v, want the recorded auth error", err)
	}
	msg := err.Error()
	if strings.Count(msg, "set MYCO_KEY") != 1 || strings.Contains(msg, "check the provider's API key") || !strings.Contains(msg, "record the run again") {
		t.Errorf("got %q, want the recorded hint once, no general key advice, and how to record again", msg)
	}
}

// TestDivergenceNamesTheNearestRequest: a request that skips ahead is
// explained against the recorded request it is nearest to, not the one
// the replay expected, and past the end too.
func TestDivergenceNamesTheNearestRequest(t *testing.T) {
	var buf bytes.Buffer
	rec := Record(echo, &buf)
	reqs := conversation("a", "b", "c")
	for _, req := range reqs {
		rec.Complete(context.Background(), req, nil)
	}
	p, err := Load(strings.NewReader(buf.String()), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	skip := reqs[2]
	skip.Messages = append(append([]provider.Message(nil), skip.Messages...), provider.Message{Role: "user", Content: "d"})
	_, err = p.Complete(context.Background(), skip, nil)
	want := `request 1 differs from the recording; the nearest recorded request, 3 of 3, differs at messages[3]: got {"role":"user","content":"d"}, which the recording does not have`
	if !errors.Is(err, provider.ErrDiverged) || !strings.Contains(err.Error(), want) {
		t.Errorf("skipping ahead: %v\nwant it to contain %s", err, want)
	}
	for _, req := range reqs {
		if _, err := p.Complete(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = p.Complete(context.Background(), reqs[1], nil)
	want = "request 4 is past the end of the recording (3 requests); it equals recorded request 2 of 3"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("past the end: %v\nwant it to contain %s", err, want)
	}
}

// TestFirstFieldPaths: the path of the first difference walks objects in
// their order and arrays by index, down to the differing scalar.
func TestFirstFieldPaths(t *testing.T) {
	for _, tc := range []struct{ want, got, path string }{
		{`{"a":1,"b":[1,{"c":"x"}]}`, `{"a":1,"b":[1,{"c":"y"}]}`, `b[1].c: at byte 0: got "y", recorded "x"`},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, ""},
		{`{"a":1}`, `{"a":1,"z":true}`, `z: got true, which the recording does not have`},
		{`{"a":[1,2]}`, `{"a":[1]}`, `a[1]: missing; recorded 2`},
		{`{"a":{"b":1}}`, `{"a":"b"}`, `a: got "b", recorded {"b":1}`},
		{`[1]`, `[2]`, `[0]: got 2, recorded 1`},
		{`"x"`, `"y"`, `the request: at byte 0: got "y", recorded "x"`},
	} {
		if got := firstField(json.RawMessage(tc.want), json.RawMessage(tc.got)); got != tc.path {
			t.Errorf("firstField(%s, %s) = %q, want %q", tc.want, tc.got, got, tc.path)
		}
	}
}

// TestRecordingAReplayKeepsTheProviders: a replay recorded again
// (--record with --model replay:FILE) records, and is priced as, the
// provider each exchange was first recorded from, not "replay:FILE".
func TestRecordingAReplayKeepsTheProviders(t *testing.T) {
	first := `{"provider":"ollama:qwen3","request":{"messages":[{"role":"user","content":"a"}]},"response":{"content":"one","usage":{}}}
{"provider":"anthropic:claude-sonnet-4-5","request":{"messages":[{"role":"user","content":"b"}]},"response":{"content":"two","usage":{}}}
`
	player, err := Load(strings.NewReader(first), "first.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	rec := Record(player, &again)
	for i, prompt := range []string{"a", "b"} {
		want := []string{"ollama:qwen3", "anthropic:claude-sonnet-4-5"}[i]
		if got := provider.Identity(rec); got != want {
			t.Errorf("before request %d the recorder's identity is %q, want %q", i+1, got, want)
		}
		if _, err := rec.Complete(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: prompt}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if again.String() != first {
		t.Errorf("the recording of the replay:\n%s\nwant the first recording:\n%s", again.String(), first)
	}
	if got := provider.Identity(Record(echo, &again)); got != "test:echo" {
		t.Errorf("a recorder of a plain provider has identity %q, want its name", got)
	}
}
