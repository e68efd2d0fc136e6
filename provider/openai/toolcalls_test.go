package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// TestLengthMidToolCall: an answer cut off by the token limit (finish
// reason "length") while the model wrote its second call keeps its text,
// its stop reason and the call it finished; the one it was writing is
// reported in Incomplete, with what arrived of its arguments, and is not
// among the calls to run. Streamed and not.
func TestLengthMidToolCall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fixture string
		stream  bool
	}{{"stream", "stream_length_tool_call.sse", true}, {"whole", "length_tool_call.json", false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, reply{fixture: tc.fixture})
			var streamed strings.Builder
			var fn func(string)
			if tc.stream {
				fn = func(s string) { streamed.WriteString(s) }
			}
			resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("summarise"), fn)
			if err != nil {
				t.Fatalf("got %v, want the cut-off answer", err)
			}
			want := provider.Response{
				Content:    "Reading the notes, then writing the summary.",
				ToolCalls:  []provider.ToolCall{{ID: "call_Read01", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}},
				Incomplete: []provider.ToolCall{{ID: "call_Write02", Name: "write_file", InvalidArgs: `{"path":"summary.txt","content":"The notes say th`}},
				StopReason: "length",
				Usage:      provider.Usage{InputTokens: 812, OutputTokens: 64},
			}
			if mustJSON(resp) != mustJSON(want) {
				t.Errorf("got  %s\nwant %s", mustJSON(resp), mustJSON(want))
			}
			if !resp.CutOff() {
				t.Error("CutOff() is false for finish reason length")
			}
			if tc.stream && streamed.String() != want.Content {
				t.Errorf("streamed %q, want %q", streamed.String(), want.Content)
			}
		})
	}
}

// TestStreamMalformedArguments: a streamed call whose arguments are not
// JSON is returned with InvalidArgs between the calls around it, and is
// sent back to the model with {} as its arguments.
func TestStreamMalformedArguments(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_bad_json_tool_call.sse"})
	p := newTestProvider(t, srv, wire.Retry{})
	resp, err := p.Complete(context.Background(), userRequest("double them"), func(string) {})
	if err != nil {
		t.Fatalf("got %v, want the answer with the malformed call kept", err)
	}
	want := []provider.ToolCall{
		{ID: "call_A", Name: "double", Args: json.RawMessage(`{"n": 2}`)},
		{ID: "call_B", Name: "double", InvalidArgs: `{"n": 3,, }`},
		{ID: "call_C", Name: "double", Args: json.RawMessage(`{"n": 4}`)},
	}
	if mustJSON(resp.ToolCalls) != mustJSON(want) || resp.Incomplete != nil {
		t.Errorf("got %s, want %s and nothing incomplete", mustJSON(resp), mustJSON(want))
	}
	body, err := p.encodeRequest(provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, ToolCalls: resp.ToolCalls},
	}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"id":"call_B","type":"function","function":{"name":"double","arguments":"{}"}`) {
		t.Errorf("request %s does not send the malformed call with arguments {}", body)
	}
}
