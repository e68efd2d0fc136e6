package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/core"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID, Name and IsError describe a tool message: the result of
	// the call with that ID, to the tool of that name, and whether it
	// failed (Content is then the error message, for the model to correct).
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	// Blocks are a tool result's images and other non-text parts, for
	// providers that accept them.
	Blocks []core.Block `json:"blocks,omitempty"`
	// Cache marks a prompt-cache breakpoint after this message (providers
	// without prompt caching ignore it).
	Cache bool `json:"cache,omitempty"`
}

// ToolCall is one call a model asks for.
type ToolCall struct {
	// ID pairs the call with its result. A provider leaves it "" when the
	// model gave none (some local servers omit it); the agent then names
	// the call, uniquely in its conversation.
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	// InvalidArgs holds the arguments as the model wrote them when they
	// are not valid JSON; Args is then empty. The agent answers such a
	// call with an invalid_arguments result the model can correct, and
	// sends it back to the model with {} as its arguments.
	InvalidArgs string `json:"invalid_args,omitempty"`
}

// ToolDef describes a tool to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Cache marks a prompt-cache breakpoint after this tool definition.
	Cache bool `json:"cache,omitempty"`
}

// Request is what the agent sends for one model turn.
type Request struct {
	Model       string    `json:"model,omitempty"`
	System      string    `json:"system,omitempty"`
	SystemCache bool      `json:"system_cache,omitempty"` // breakpoint after the system prompt
	Messages    []Message `json:"messages"`
	Tools       []ToolDef `json:"tools,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"` // 0: the adapter's default
}

// Response is the model's answer to a Request: text, tool calls, or both.
type Response struct {
	Content   string     `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Incomplete are tool calls the model had begun when the answer was
	// cut off by the token limit (see CutOff): they are not in ToolCalls,
	// are never run, and get no result. InvalidArgs (or Args) holds what
	// arrived of their arguments.
	Incomplete []ToolCall `json:"incomplete_tool_calls,omitempty"`
	StopReason string     `json:"stop_reason,omitempty"`
	Usage      Usage      `json:"usage,omitempty"`
}

// CutOff reports whether the answer ended because it reached a token
// limit rather than because the model finished: Anthropic's stop reasons
// max_tokens and model_context_window_exceeded, OpenAI's finish reason
// length.
func (r Response) CutOff() bool {
	switch r.StopReason {
	case "max_tokens", "model_context_window_exceeded", "length":
		return true
	}
	return false
}

// Usage counts tokens, where the provider reports them.
type Usage struct {
	InputTokens      int `json:"input_tokens,omitempty"`
	OutputTokens     int `json:"output_tokens,omitempty"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Add returns the sum of u and v, field by field.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CacheReadTokens: u.CacheReadTokens + v.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens}
}

// Total is every token counted: input, output, cache read and write.
func (u Usage) Total() int {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// MaxTokenCount bounds a count of tokens taken from outside the program
// (a scripted model's usage, a recording's): far above any real count,
// and low enough that sums of many such counts cannot overflow.
const MaxTokenCount = 1 << 50

// Check reports the first count of u below 0 or above MaxTokenCount,
// naming the field as JSON does and the value.
func (u Usage) Check() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens},
		{"cache_read_tokens", u.CacheReadTokens}, {"cache_write_tokens", u.CacheWriteTokens}} {
		if f.n < 0 || f.n > MaxTokenCount {
			return fmt.Errorf("usage %s = %d; want a whole number of tokens from 0 to %d", f.name, f.n, MaxTokenCount)
		}
	}
	return nil
}

// Provider answers requests. Implementations must be safe for concurrent
// use.
type Provider interface {
	// Name identifies the provider and model, such as "openai:gpt-4o".
	Name() string
	// Complete sends req and returns the model's response. When stream is
	// non-nil, text is passed to it as it arrives (the Response still
	// holds all of it); adapters that cannot stream call it once.
	Complete(ctx context.Context, req Request, stream func(text string)) (Response, error)
}

// Func adapts a function to a Provider: the scripted model.
type Func struct {
	Label string // Name(); "scripted" when empty
	Fn    func(ctx context.Context, req Request) (Response, error)
}

// Name returns the label.
func (f Func) Name() string {
	if f.Label == "" {
		return "scripted"
	}
	return f.Label
}

// Complete calls the function and streams its whole text at once.
func (f Func) Complete(ctx context.Context, req Request, stream func(string)) (Response, error) {
	resp, err := f.Fn(ctx, req)
	if err == nil && stream != nil && resp.Content != "" {
		stream(resp.Content)
	}
	return resp, err
}

var _ Provider = Func{}
