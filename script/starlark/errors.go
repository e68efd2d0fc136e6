package starlark

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Error is a script error with its position and, for runtime errors, a
// Starlark backtrace.
type Error struct {
	// Pos is file:line:col of the innermost script frame, if known.
	Pos string
	Msg string
	// Backtrace is the call stack, most recent call last; empty for syntax
	// and resolution errors.
	Backtrace string
	cause     error
}

func (e *Error) Error() string {
	if e.Pos == "" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

// Unwrap returns the underlying error (a *starlark.EvalError, a syntax
// error, or the error a built-in returned).
func (e *Error) Unwrap() error { return e.cause }

// Detail returns the backtrace followed by the positioned message, for
// people reading a terminal.
func (e *Error) Detail() string {
	if e.Backtrace == "" {
		return e.Error()
	}
	return e.Backtrace + "\n" + e.Error()
}

// wrapError converts Starlark's error types into *Error.
func wrapError(err error) error {
	if err == nil {
		return nil
	}
	if se, ok := err.(*Error); ok {
		return se
	}
	var ee *star.EvalError
	if errors.As(err, &ee) {
		e := &Error{Msg: ee.Msg, cause: err}
		for i := 0; i < len(ee.CallStack); i++ { // innermost script frame
			fr := ee.CallStack.At(i)
			if fr.Pos.Filename() != "<builtin>" && fr.Pos.IsValid() {
				e.Pos = fr.Pos.String()
				break
			}
		}
		e.Backtrace = backtrace(ee.CallStack)
		return e
	}
	var sx syntax.Error
	if errors.As(err, &sx) {
		return &Error{Pos: sx.Pos.String(), Msg: sx.Msg, cause: err}
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		msgs := make([]string, len(rl))
		for i, r := range rl {
			msgs[i] = r.Error()
		}
		return &Error{Pos: rl[0].Pos.String(), Msg: rl[0].Msg + moreErrors(msgs[1:]), cause: err}
	}
	return err
}

func moreErrors(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return "\n" + strings.Join(rest, "\n")
}

func backtrace(stack star.CallStack) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):")
	for _, fr := range stack {
		fmt.Fprintf(&b, "\n  %s: in %s", fr.Pos, fr.Name)
	}
	return b.String()
}
