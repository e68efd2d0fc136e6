package agent

import (
	"context"

	"github.com/agentsh/agentsh/provider"
)

// PromptCaching returns an extension that marks prompt-cache breakpoints
// on every request: after the tool definitions, after the system prompt,
// and after the latest message. Providers with prompt caching (Anthropic)
// turn the marks into cache_control; the others ignore them. Three marks
// stay within Anthropic's limit of four, leaving one for other hooks.
func PromptCaching() *Caching { return &Caching{} }

// Caching is the prompt-caching extension.
type Caching struct{}

// Name is "prompt_caching".
func (*Caching) Name() string { return "prompt_caching" }

// LifecycleHooks marks the breakpoints before each model request.
func (*Caching) LifecycleHooks() []LifecycleHook {
	return []LifecycleHook{{Name: "prompt_caching", Event: BeforeModel, Func: func(_ context.Context, d *LifecycleData) error {
		MarkCacheBreakpoints(d.Request)
		return nil
	}}}
}

// MarkCacheBreakpoints sets the breakpoints PromptCaching places.
func MarkCacheBreakpoints(req *provider.Request) {
	if n := len(req.Tools); n > 0 {
		req.Tools[n-1].Cache = true
	}
	if req.System != "" {
		req.SystemCache = true
	}
	if n := len(req.Messages); n > 0 {
		// The request's messages share the conversation's array; the
		// mark must not stick to the conversation, which later turns
		// extend (the breakpoint moves to their last message).
		req.Messages = append([]provider.Message(nil), req.Messages...)
		req.Messages[n-1].Cache = true
	}
}
