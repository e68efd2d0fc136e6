package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

// TestMaxTokensMidToolUse: an answer cut off by max_tokens while the model
// wrote its second tool_use keeps its text, its stop reason and the call it
// finished; the one it was writing is reported in Incomplete, with what
// arrived of its input, and is not among the calls to run. Streamed and not.
func TestMaxTokensMidToolUse(t *testing.T) {
	read := provider.ToolCall{ID: "toolu_01Read", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}
	for _, tc := range []struct {
		name   string
		answer func(*testing.T) *fakeServer
		stream bool
		cut    provider.ToolCall
	}{
		{"stream", func(t *testing.T) *fakeServer { return serve(t, sseFile(t, "stream_max_tokens_tool_use.sse")) }, true,
			provider.ToolCall{ID: "toolu_02Write", Name: "write_file", InvalidArgs: `{"path": "summary.txt", "content": "The notes say th`}},
		// Whole answers hold the input as the API parsed it: it may parse
		// and still be cut short, so the last call is dropped all the same.
		{"whole", func(t *testing.T) *fakeServer { return serve(t, jsonFile(t, "max_tokens_tool_use.json", 200)) }, false,
			provider.ToolCall{ID: "toolu_02Write", Name: "write_file", Args: json.RawMessage(`{"path":"summary.txt"}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, tc.answer(t), nil)
			var streamed strings.Builder
			var fn func(string)
			if tc.stream {
				fn = func(s string) { streamed.WriteString(s) }
			}
			resp, err := p.Complete(context.Background(), hello, fn)
			if err != nil {
				t.Fatalf("got %v, want the cut-off answer", err)
			}
			want := provider.Response{
				Content:    "Reading the notes, then writing the summary.",
				ToolCalls:  []provider.ToolCall{read},
				Incomplete: []provider.ToolCall{tc.cut},
				StopReason: "max_tokens",
				Usage:      provider.Usage{InputTokens: 812, OutputTokens: 64},
			}
			if !reflect.DeepEqual(resp, want) {
				t.Errorf("got  %s\nwant %s", jsonString(resp), jsonString(want))
			}
			if !resp.CutOff() {
				t.Error("CutOff() is false for stop reason max_tokens")
			}
			if tc.stream && streamed.String() != want.Content {
				t.Errorf("streamed %q, want %q", streamed.String(), want.Content)
			}
		})
	}
}

// TestMalformedToolInput: a finished tool_use whose streamed input is not
// JSON is returned with InvalidArgs, between the calls around it; the
// answer is not an error.
func TestMalformedToolInput(t *testing.T) {
	p := newProvider(t, serve(t, sseFile(t, "stream_bad_json_tool_use.sse")), nil)
	resp, err := p.Complete(context.Background(), hello, func(string) {})
	if err != nil {
		t.Fatalf("got %v, want the answer with the malformed call kept", err)
	}
	want := []provider.ToolCall{
		{ID: "toolu_01A", Name: "double", Args: json.RawMessage(`{"n":2}`)},
		{ID: "toolu_02B", Name: "double", InvalidArgs: `{"n": 3,, }`},
		{ID: "toolu_03C", Name: "double", Args: json.RawMessage(`{"n":4}`)},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.Incomplete != nil || resp.StopReason != "tool_use" {
		t.Errorf("got %s, want %s and nothing incomplete", jsonString(resp), jsonString(want))
	}
	// Sent back, the malformed call's input is {}: the API takes only
	// objects.
	body, err := encodeRequest("m", 100, provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, ToolCalls: resp.ToolCalls},
	}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"id":"toolu_02B","name":"double","input":{}`) {
		t.Errorf("request %s does not send the malformed call with input {}", body)
	}
}
