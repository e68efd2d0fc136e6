package core

import (
	"context"
	"encoding/json"
	"path"
)

// BeforeFunc inspects a call before it runs. Returning non-nil args
// rewrites the arguments: later hooks, validation and the tool see the new
// object. The error is the verdict: nil is no opinion, Allow and Ask give
// those verdicts (with the rewrite, if any), and Deny or any other error
// rejects the call (no middleware, no tool; after hooks still see the
// rejection). See Verdict for how verdicts combine.
type BeforeFunc func(ctx context.Context, call *Call) (args json.RawMessage, err error)

// AfterFunc observes a finished call: its result and error, including
// rejections, unknown tools and invalid arguments. Transforming results is
// middleware's job; an error returned here marks the call failed (the
// output is kept), so a failing audit is never silent.
type AfterFunc func(ctx context.Context, call *Call, res *Result) error

// Handler runs a call and returns its result (never nil).
type Handler func(ctx context.Context, call *Call) *Result

// MiddlewareFunc wraps the execution of a call. It may change the call (pass
// a modified copy to next), the context (a deadline), or the result; it may
// call next several times (retry) or not at all.
type MiddlewareFunc func(ctx context.Context, call *Call, next Handler) *Result

// BeforeHook is a before hook registered with an executor.
type BeforeHook struct {
	// Name identifies the hook in rejection messages and logs.
	Name string
	// Tools limits the hook to these tool names or path.Match globs
	// ("mcp__*"). Nil or empty makes the hook global. A hook with Tools is
	// tool-specific and runs in the first pipeline stage.
	Tools []string
	Func  BeforeFunc
	// Source is where the hook was defined (file:line), for decision
	// records; empty for Go hooks unless set.
	Source string
}

// AfterHook is an after hook registered with an executor.
type AfterHook struct {
	Name   string
	Tools  []string
	Func   AfterFunc
	Source string
}

// Middleware is a middleware registered with an executor. The first
// registered is the outermost.
type Middleware struct {
	Name   string
	Tools  []string
	Func   MiddlewareFunc
	Source string
}

// MatchTools reports whether name matches one of the patterns: exact names
// or path.Match globs. An empty list matches every name.
func MatchTools(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if p == name {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// CheckToolPatterns reports the first malformed glob in patterns.
func CheckToolPatterns(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return &patternError{p}
		}
	}
	return nil
}

type patternError struct{ pattern string }

func (e *patternError) Error() string {
	return "malformed tool pattern " + quote(e.pattern) + ": use exact names or globs such as \"mcp__*\""
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
