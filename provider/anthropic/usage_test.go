package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
)

// Anthropic streams usage twice: message_start holds the input counts
// (input_tokens without the cache, cache_read_input_tokens,
// cache_creation_input_tokens) and a first output count; each
// message_delta holds cumulative counts, so the last one replaces what
// came before. Adding them would count the input twice and the output
// more than once.

func TestStreamUsageCumulativeNotSummed(t *testing.T) {
	f := serve(t, sseFile(t, "stream_usage_cumulative.sse"))
	resp, err := newProvider(t, f, nil).Complete(context.Background(), hello, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{InputTokens: 2048, OutputTokens: 130, CacheReadTokens: 4096, CacheWriteTokens: 512}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v (message_delta counts are cumulative: the last replaces, never adds)", resp.Usage, want)
	}
	if resp.StopReason != "end_turn" || resp.Content != "Counted once." {
		t.Errorf("got stop %q content %q", resp.StopReason, resp.Content)
	}
}

func TestStreamUsageKeepsCacheFromMessageStart(t *testing.T) {
	// The older form: message_delta reports only output_tokens; the cache
	// counts of message_start must survive it.
	f := serve(t, sseFile(t, "stream_usage_start_only.sse"))
	resp, err := newProvider(t, f, nil).Complete(context.Background(), hello, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{InputTokens: 9, OutputTokens: 4, CacheReadTokens: 300, CacheWriteTokens: 1500}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	if resp.Usage.Total() != 1813 {
		t.Errorf("total %d, want 1813", resp.Usage.Total())
	}
}

func TestWholeAnswerUsageWithCache(t *testing.T) {
	f := serve(t, jsonFile(t, "text.json", 200))
	resp, err := newProvider(t, f, nil).Complete(context.Background(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{InputTokens: 2095, OutputTokens: 503, CacheReadTokens: 120, CacheWriteTokens: 1800}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

func TestStreamUsageHostile(t *testing.T) {
	// A count of the wrong type is a protocol error, never a silent zero.
	body := strings.Replace(string(fixture(t, "stream_usage_start_only.sse")), `"output_tokens":4`, `"output_tokens":"4"`, 1)
	f := serve(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	})
	_, err := newProvider(t, f, nil).Complete(context.Background(), hello, func(string) {})
	if !errors.Is(err, provider.ErrProtocol) || !strings.Contains(err.Error(), "message_delta") {
		t.Errorf("got %v, want a protocol error naming message_delta", err)
	}
}
