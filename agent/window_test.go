package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// TestKnownContextWindow: the table by its documented rule: exact names,
// dated snapshots and -latest; every Ollama model; nothing fuzzy.
func TestKnownContextWindow(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		want        int
	}{
		{"openai:gpt-4o", "", 128000},
		{"openai:gpt-4o-mini", "", 128000},
		{"openai:gpt-4o-2024-08-06", "", 128000},
		{"openai:gpt-4o-mini-2024-07-18", "", 128000},
		{"openai:gpt-4-0613", "", 8192},
		{"openai:gpt-4.1-nano", "", 1047576},
		{"openai:o1-mini", "", 128000},
		{"openai:o1", "", 200000},
		{"openai:gpt-5", "", 400000},
		{"anthropic:claude-sonnet-4-5-20250929", "", 200000},
		{"anthropic:claude-3-5-sonnet-latest", "", 200000},
		{"anthropic:claude-opus-4-1", "", 200000},
		{"ollama:llama3.1:8b", "", OllamaContextWindow},
		{"ollama:anything-at-all", "", OllamaContextWindow},
		{"openai:anything", "gpt-4", 8192}, // the request's model names it
		// Never fuzzy: near names and foreign suffixes are unknown.
		{"openai:gpt-4o-audio-preview", "", 0},
		{"openai:gpt-4oo", "", 0},
		{"openai:gpt-4o-2024-8-6", "", 0},
		{"openai:gpt-4o-20240806x", "", 0},
		{"openai:claude-3-opus", "", 0}, // a table is per provider
		{"anthropic:claude-3-opus-2024022", "", 0},
		{"scripted:m", "", 0},
		{"replay:run.jsonl", "", 0},
		{"", "", 0},
	} {
		if got := KnownContextWindow(tc.name, tc.model); got != tc.want {
			t.Errorf("KnownContextWindow(%q, %q) = %d, want %d", tc.name, tc.model, got, tc.want)
		}
	}
}

// TestContextWindowOption: WithContextWindow overrides the table; bad
// values are refused by New with the value and the flag.
func TestContextWindowOption(t *testing.T) {
	p := provider.Func{Label: "openai:gpt-4o", Fn: func(context.Context, provider.Request) (provider.Response, error) {
		return provider.Response{Content: "ok"}, nil
	}}
	for _, tc := range []struct {
		opts []Option
		want int
	}{
		{nil, 128000},
		{[]Option{WithContextWindow(5000)}, 5000},
		{[]Option{WithContextWindow(0)}, 128000},
	} {
		a, err := New(append([]Option{WithProvider(p)}, tc.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.ContextWindow(); got != tc.want {
			t.Errorf("ContextWindow() = %d, want %d", got, tc.want)
		}
		a.Close()
	}
	if _, err := New(WithContextWindow(-1)); err == nil || !strings.Contains(err.Error(), "got -1") || !strings.Contains(err.Error(), "WithContextWindow") || strings.Contains(err.Error(), "--") {
		t.Errorf("New(WithContextWindow(-1)) = %v, want an error naming the value and the option, and no flag", err)
	}
	for _, f := range []float64{-0.1, 1.5} {
		if _, err := New(WithCompactThreshold(f)); err == nil || !strings.Contains(err.Error(), "threshold") {
			t.Errorf("New(WithCompactThreshold(%v)) = %v, want an error", f, err)
		}
	}
	a, _ := New()
	defer a.Close()
	if a.ContextWindow() != 0 {
		t.Errorf("an agent without a provider has window %d, want 0 (unknown)", a.ContextWindow())
	}
}

// TestEstimateTokens: bytes/4 of the whole request without usage; the
// reported prompt tokens plus the messages added since with it; the whole
// request again after the conversation was replaced.
func TestEstimateTokens(t *testing.T) {
	var usage provider.Usage
	s := &script{steps: []func(provider.Request) provider.Response{
		func(provider.Request) provider.Response {
			return provider.Response{Content: "working", ToolCalls: []provider.ToolCall{tc("a", "echo", `{"n":1}`)}, Usage: usage}
		},
		answer("done"),
	}}
	a := newAgent(t, s, WithSystemPrompt(strings.Repeat("s", 400)))
	a.RegisterTools(goTool("echo", func(context.Context, json.RawMessage) (any, error) { return strings.Repeat("r", 1000), nil }))

	whole := func() int {
		n := len(a.systemPrompt())
		for _, d := range a.toolDefs() {
			n += len(d.Name) + len(d.Description) + len(d.Parameters) + messageFraming
		}
		for _, m := range a.Messages() {
			n += messageBytes(&m)
		}
		return (n + 3) / 4
	}
	if got, want := a.EstimateTokens(), whole(); got != want || got < 100 {
		t.Errorf("empty conversation: %d tokens, want %d", got, want)
	}
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got, want := a.EstimateTokens(), whole(); got != want {
		t.Errorf("no usage reported: %d tokens, want the whole request's %d", got, want)
	}

	// With usage: the base of the last response plus what joined since.
	usage = provider.Usage{InputTokens: 7000, CacheReadTokens: 2000, CacheWriteTokens: 1000, OutputTokens: 50}
	s.seen = nil
	a.Reset(context.Background())
	var atTurn2 int
	a.On(LifecycleHook{Name: "probe", Event: BeforeModel, Func: func(_ context.Context, d *LifecycleData) error {
		if d.Turn == 2 {
			atTurn2 = a.EstimateTokens()
		}
		return nil
	}})
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := a.Messages() // user, assistant(call), tool, assistant("done")
	if want := 10000 + (messageBytes(&msgs[1])+messageBytes(&msgs[2])+3)/4; atTurn2 != want {
		t.Errorf("before turn 2: %d tokens, want the first response's 10000 + the call and its result, %d", atTurn2, want)
	}
	// The second response reported no usage: no base.
	if got, want := a.EstimateTokens(), whole(); got != want {
		t.Errorf("last response without usage: %d, want %d", got, want)
	}
	a.noteUsage(2, usage) // as if the request had held user and assistant
	added := messageBytes(&msgs[2]) + messageBytes(&msgs[3])
	if got, want := a.EstimateTokens(), 10000+(added+3)/4; got != want {
		t.Errorf("with usage: %d, want 10000 + %d", got, (added+3)/4)
	}
	a.replaceConversation(msgs[:1], "test")
	if got, want := a.EstimateTokens(), whole(); got != want {
		t.Errorf("after a replacement: %d, want the whole request's %d", got, want)
	}

	// Images count a fixed amount, whatever their bytes.
	small := provider.Message{Role: provider.RoleTool, Blocks: []core.Block{{Type: "image", Data: []byte{1}}}}
	big := provider.Message{Role: provider.RoleTool, Blocks: []core.Block{{Type: "image", Data: make([]byte, 1<<20)}}}
	if messageBytes(&small) != messageBytes(&big) || tokensOf(messageBytes(&big)) < imageTokens {
		t.Errorf("images count %d and %d bytes, want the same, at least %d tokens", messageBytes(&small), messageBytes(&big), imageTokens)
	}
}
