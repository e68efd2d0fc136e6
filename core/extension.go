package core

import "context"

// Extension is a named bundle of capabilities. An extension implements only
// the optional interfaces below that it contributes; the executor finds them
// by type assertion when the extension is installed.
type Extension interface {
	Name() string
}

// ToolProvider contributes tools.
type ToolProvider interface {
	Tools() []Tool
}

// PromptProvider contributes a section of the system prompt.
type PromptProvider interface {
	SystemPrompt() string
}

// BeforeHookProvider contributes before hooks.
type BeforeHookProvider interface {
	BeforeHooks() []BeforeHook
}

// AfterHookProvider contributes after hooks.
type AfterHookProvider interface {
	AfterHooks() []AfterHook
}

// MiddlewareProvider contributes middleware.
type MiddlewareProvider interface {
	Middleware() []Middleware
}

// Initializer is called once, before any capability is collected. If one
// extension's Init fails, the extensions initialised before it are closed
// in reverse order.
type Initializer interface {
	Init(ctx context.Context) error
}

// Closer releases what an extension holds; called in reverse install order.
type Closer interface {
	Close() error
}

// WorkingDirProvider is an extension that works in a directory (the
// built-in tools). An executor that was given no working directory takes
// the first installed one's as the directory its calls' paths are
// relative to.
type WorkingDirProvider interface {
	WorkingDir() string
}
