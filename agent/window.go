package agent

import (
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/provider"
)

// DefaultCompactThreshold is the share of the context window a request
// may fill before the conversation is compacted, unless
// WithCompactThreshold says otherwise.
const DefaultCompactThreshold = 0.8

// OllamaContextWindow is the context window assumed for every Ollama
// model. Ollama serves a model with its server's context length, not the
// model's own: 4,096 tokens on a machine with less than 24 GiB of video
// memory by Ollama's documentation, unless OLLAMA_CONTEXT_LENGTH or the
// model's num_ctx raise it. What does not fit is dropped without an error,
// so the served length is the one that counts; set --context-window (or
// WithContextWindow) to the length the server was configured with.
const OllamaContextWindow = 4096

// knownWindows are the context windows, in tokens, of common models by
// provider, as their vendors document them.
var knownWindows = map[string]map[string]int{
	"openai": {
		"gpt-5.1": 400000, "gpt-5": 400000, "gpt-5-mini": 400000, "gpt-5-nano": 400000,
		"gpt-4.1": 1047576, "gpt-4.1-mini": 1047576, "gpt-4.1-nano": 1047576,
		"gpt-4o": 128000, "gpt-4o-mini": 128000, "gpt-4-turbo": 128000,
		"gpt-4": 8192, "gpt-3.5-turbo": 16385,
		"o1": 200000, "o1-mini": 128000, "o3": 200000, "o3-mini": 200000, "o4-mini": 200000,
	},
	"anthropic": {
		"claude-opus-4-5": 200000, "claude-sonnet-4-5": 200000, "claude-haiku-4-5": 200000,
		"claude-opus-4-1": 200000, "claude-opus-4": 200000, "claude-sonnet-4": 200000,
		"claude-opus-4-0": 200000, "claude-sonnet-4-0": 200000,
		"claude-3-7-sonnet": 200000, "claude-3-5-sonnet": 200000, "claude-3-5-haiku": 200000,
		"claude-3-opus": 200000, "claude-3-haiku": 200000,
	},
}

// KnownContextWindow returns the context window in tokens of the model
// that providerName ("KIND:MODEL", as provider.Provider.Name gives it)
// reaches, or 0 when it is not known. model, when not "", names the model
// instead of the part after the kind (WithModel). The rule, never a guess:
//
//   - ollama:MODEL is OllamaContextWindow, for every model (see there);
//   - openai:MODEL and anthropic:MODEL are looked up in a table of common
//     models (GPT-5, GPT-4.1, GPT-4o, o1, o3, o4-mini; Claude 3 to 4.5):
//     the name itself, or a listed name followed by a dated snapshot
//     ("-2024-08-06", "-20241022", or OpenAI's older "-0613") or "-latest";
//   - anything else (a scripted model, an unlisted model) is unknown: no
//     automatic compaction unless WithContextWindow sets one.
//
// A replay is sized as the provider it recorded (see provider.Proxy and
// Agent.ContextWindow). Safe for concurrent use.
func KnownContextWindow(providerName, model string) int {
	kind, name, _ := strings.Cut(providerName, ":")
	if model != "" {
		name = model
	}
	if kind == "ollama" {
		return OllamaContextWindow
	}
	table := knownWindows[kind]
	if n, ok := table[name]; ok {
		return n
	}
	return table[provider.ModelBase(name)] // a dated snapshot, or -latest
}

// WithContextWindow sets the model's context window in tokens (0: the
// known default, see KnownContextWindow). Compaction keeps each request
// under the threshold of it.
func WithContextWindow(n int) Option { return func(c *config) { c.contextWindow = n } }

// WithCompactThreshold sets the share of the context window, more than 0
// and at most 1, that a request may fill before the conversation is
// compacted (0: DefaultCompactThreshold).
func WithCompactThreshold(f float64) Option { return func(c *config) { c.compactThreshold = f } }

func checkWindowConfig(c *config) error {
	if c.contextWindow < 0 {
		return fmt.Errorf("agent: context window got %d, want 0 (the known default) or more; give WithContextWindow a count of tokens", c.contextWindow)
	}
	if c.compactThreshold < 0 || c.compactThreshold > 1 || c.compactThreshold != c.compactThreshold {
		return fmt.Errorf("agent: compact threshold got %v, want more than 0 and at most 1", c.compactThreshold)
	}
	return nil
}

// ContextWindow returns the context window of the model in use, in
// tokens: WithContextWindow's, else the known default of the provider's
// model (for a replay, the recorded provider's: provider.Identity), else
// 0 (unknown: the conversation is compacted only when asked, with
// Compact). Safe for concurrent use.
func (a *Agent) ContextWindow() int {
	a.mu.Lock()
	n, p, model := a.cfg.contextWindow, a.cfg.provider, a.cfg.model
	a.mu.Unlock()
	if n > 0 || p == nil {
		return n
	}
	return KnownContextWindow(provider.Identity(p), model)
}

// compactLimit is the estimated request size, in tokens, above which the
// conversation is compacted; 0 when the window is unknown.
func (a *Agent) compactLimit() int {
	w := a.ContextWindow()
	f := a.cfg.compactThreshold
	if f == 0 {
		f = DefaultCompactThreshold
	}
	return int(float64(w) * f)
}

// The size of a request is estimated, deterministically, as follows:
//
//   - after a response that reported usage, the next request is the
//     tokens that response reported as its input (input, cache read and
//     cache write tokens: the whole prompt) plus the estimate of the
//     messages that joined the conversation since;
//   - otherwise (no usage, as from a scripted model that reports none, or
//     after the conversation was replaced by compaction or a resume) it is
//     the estimate of the whole request: the system prompt, the tool
//     definitions and every message.
//
// The estimate of text is its length in bytes divided by 4, rounded up
// (about right for English and code with the vendors' tokenizers). A
// message counts its role, content, tool call ids, names and arguments,
// its tool result's id and name, and 16 bytes of framing; a block counts
// its text, and an image (any block with data) counts as 1,600 tokens,
// Anthropic's figure for the largest image it does not scale down.
const (
	bytesPerToken  = 4
	messageFraming = 16
	imageTokens    = 1600
)

// usageBase is what the last response reported: the prompt's tokens
// (input, cache read and write), how many messages of the conversation
// that prompt held, and the answer's tokens. Compaction estimates the
// next request from it, and budgets take tokens+output as the least the
// next request will send (budget.go). Replacing the conversation resets
// it: it no longer describes the conversation.
type usageBase struct {
	tokens int
	msgs   int
	output int
	ok     bool
}

// noteUsage records the usage of a response to a request that held the
// first n messages of the conversation.
func (a *Agent) noteUsage(n int, u provider.Usage) {
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	a.mu.Lock()
	a.usage = usageBase{tokens: in, msgs: n, output: u.OutputTokens, ok: in > 0}
	a.mu.Unlock()
}

// EstimateTokens estimates the size in tokens of the next request, by the
// rule above. Safe for concurrent use.
func (a *Agent) EstimateTokens() int {
	a.mu.Lock()
	msgs, base := a.messages, a.usage
	a.mu.Unlock()
	if base.ok && base.msgs <= len(msgs) {
		return base.tokens + tokensOf(messagesBytes(msgs[base.msgs:]))
	}
	return a.requestTokens(msgs)
}

// requestTokens estimates a whole request of msgs.
func (a *Agent) requestTokens(msgs []provider.Message) int {
	n := len(a.systemPrompt())
	for _, t := range a.toolDefs() {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + messageFraming
	}
	return tokensOf(n + messagesBytes(msgs))
}

func tokensOf(bytes int) int { return (bytes + bytesPerToken - 1) / bytesPerToken }

// messagesBytes is the size of msgs in bytes, by the rule above; images
// count as imageTokens*bytesPerToken bytes.
func messagesBytes(msgs []provider.Message) int {
	n := 0
	for i := range msgs {
		n += messageBytes(&msgs[i])
	}
	return n
}

func messageBytes(m *provider.Message) int {
	n := messageFraming + len(m.Role) + len(m.Content) + len(m.ToolCallID) + len(m.Name)
	for _, tc := range m.ToolCalls {
		n += len(tc.ID) + len(tc.Name) + len(tc.Args) + len(tc.InvalidArgs)
	}
	for _, b := range m.Blocks {
		n += len(b.Text)
		if len(b.Data) > 0 {
			n += imageTokens * bytesPerToken
		}
	}
	return n
}
