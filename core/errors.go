package core

import (
	"context"
	"errors"
)

// Kind classifies why a call did not succeed. The string form is stable:
// scripts see it as result.error_kind and JSON output as "error_kind".
//
// A Kind is itself an error, so errors.Is(err, core.ErrTimeout) works for
// any error the pipeline returns.
type Kind string

const (
	KindUnknownTool      Kind = "unknown_tool"      // no tool has the name
	KindInvalidArguments Kind = "invalid_arguments" // not a JSON object, or a schema violation
	KindRejected         Kind = "rejected"          // a before hook refused the call
	KindTimeout          Kind = "timeout"           // a deadline passed
	KindCanceled         Kind = "canceled"          // the caller gave up
	KindFailed           Kind = "failed"            // the tool's own error
	KindPanic            Kind = "panic"             // recovered from a panic
)

// Error implements error so that a Kind can be an errors.Is target.
func (k Kind) Error() string { return string(k) }

// Sentinels for errors.Is.
var (
	ErrUnknownTool      error = KindUnknownTool
	ErrInvalidArguments error = KindInvalidArguments
	ErrRejected         error = KindRejected
	ErrTimeout          error = KindTimeout
	ErrCanceled         error = KindCanceled
	ErrFailed           error = KindFailed
	ErrPanic            error = KindPanic
)

// Kinds lists every Kind, in a stable order.
var Kinds = []Kind{KindUnknownTool, KindInvalidArguments, KindRejected, KindTimeout, KindCanceled, KindFailed, KindPanic}

// Error is the error of a call that did not succeed.
type Error struct {
	Kind   Kind
	Tool   string
	CallID string
	// Message is the human-readable text; Error() returns it.
	Message string
	// Hook names the hook or middleware that rejected, panicked or failed.
	Hook string
	// Violations lists schema violations (KindInvalidArguments), sorted by
	// JSON pointer.
	Violations []Violation
	// Stack is the goroutine stack of a recovered panic.
	Stack string
	// Err is the cause: the tool's own error, a context error, a hook error.
	Err error
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Kind)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is this error's Kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// KindOf classifies err: the Kind of a *Error in its chain, timeout and
// canceled for context errors, failed for anything else, "" for nil.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var k Kind
	if errors.As(err, &k) {
		return k
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	}
	return KindFailed
}

// Violation is one schema violation: where in the arguments, and what.
type Violation struct {
	Pointer string `json:"pointer"` // JSON pointer into the arguments; "" is the whole object
	Message string `json:"message"`
}

func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}
