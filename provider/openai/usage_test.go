package openai

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/internal/wire"
)

// OpenAI reports a stream's usage in the last chunk when asked
// (stream_options.include_usage); prompt_tokens includes the cached
// tokens (prompt_tokens_details.cached_tokens), so InputTokens is the
// difference. Some compatible servers (vLLM's continuous usage stats)
// send cumulative usage in every chunk: the last one counts, once.

func TestStreamUsageCachedTokens(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_usage_cached.sse"})
	resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{InputTokens: 184, OutputTokens: 25, CacheReadTokens: 2816}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v (cached tokens are part of prompt_tokens: counted once, as cache reads)", resp.Usage, want)
	}
	if resp.Usage.Total() != 3025 {
		t.Errorf("total %d, want total_tokens 3025", resp.Usage.Total())
	}
}

func TestStreamUsageInEveryChunkNotSummed(t *testing.T) {
	srv := newServer(t, reply{fixture: "stream_usage_every_chunk.sse"})
	resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want := provider.Usage{InputTokens: 56, OutputTokens: 3, CacheReadTokens: 64}
	if resp.Usage != want || resp.Content != "abc" {
		t.Errorf("usage %+v content %q, want %+v and \"abc\"", resp.Usage, resp.Content, want)
	}
}

func TestWholeAnswerUsageCachedTokens(t *testing.T) {
	srv := newServer(t, reply{fixture: "text.json"})
	resp, err := newTestProvider(t, srv, wire.Retry{}).Complete(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.CacheReadTokens != 1024 || resp.Usage.CacheWriteTokens != 0 {
		t.Errorf("usage %+v, want 1024 cache reads and no cache writes", resp.Usage)
	}
}

func TestUsageCachedExceedingPrompt(t *testing.T) {
	// A server that reports more cached tokens than prompt tokens: never a
	// negative input count.
	u := (&chatUsage{PromptTokens: 10, CompletionTokens: 2, PromptTokensDetails: &struct {
		CachedTokens int `json:"cached_tokens"`
	}{CachedTokens: 50}}).usage()
	if u != (provider.Usage{InputTokens: 0, OutputTokens: 2, CacheReadTokens: 10}) {
		t.Errorf("usage %+v", u)
	}
}
