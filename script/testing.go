package script

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// This file holds what script tests (agentsh test) need from the host,
// shared by every binding: stand-in tools, skipping, the fixed clock and
// the assertions of the assert module.

// TestClock is the fixed clock of script tests: time.now() returns it in
// every test unless the runner is given another time. A fixed clock keeps
// test output byte-identical from run to run.
var TestClock = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// MockTool registers fn as the tool name, a stand-in for a test. An
// existing tool of that name is replaced, but its Description, Parameters,
// ConcurrencySafe, Idempotent and its own Before and After hooks are kept,
// so calls of the stand-in go through the same argument validation, hooks
// and middleware decisions as calls of the real tool. When there is no such
// tool, a new one is registered with the description "mock". fn receives
// the decoded arguments object and returns the output, like the function
// of a script tool.
func (h *Host) MockTool(name string, fn Func) error {
	t, err := h.scriptTool(ToolSpec{Name: name, Description: "mock", Fn: fn})
	if err != nil {
		return err
	}
	reg := h.exec.Registry()
	if old := reg.GetTool(name); old != nil {
		t.Description = old.Description
		t.Parameters = old.Parameters
		if old.ConcurrencySafe != nil {
			safe := *old.ConcurrencySafe
			t.ConcurrencySafe = &safe
		}
		t.Idempotent = old.Idempotent
		t.Before = old.Before
		t.After = old.After
	}
	if err := reg.ReplaceTools(t); err != nil {
		return fmt.Errorf("mock_tool: %w", err)
	}
	return nil
}

// ConstFunc returns a Func named name that ignores its arguments and
// returns v, which is a JSON shape or a host output such as
// core.DualToolOutput. It is safe for concurrent use as long as nobody
// changes v.
func ConstFunc(name string, v any) Func { return constFunc{name: name, v: v} }

type constFunc struct {
	name string
	v    any
}

func (f constFunc) Name() string                              { return f.name }
func (f constFunc) Call(context.Context, ...any) (any, error) { return f.v, nil }

// Skipped is the error of skip(reason): the test stops and is reported as
// skipped, not failed. Bindings raise a *Skipped and keep it reachable with
// errors.As through their own error types.
type Skipped struct{ Reason string }

func (s *Skipped) Error() string { return "skipped: " + s.Reason }

// AssertionError is a failed assertion of the assert module.
type AssertionError struct {
	Func string // the assertion, such as "assert.eq"
	Msg  string // the script's own message, or ""
	Text string // what went wrong, such as "got 1, want 2"
}

// Error reads "assert.eq: got 1, want 2", or with a message
// "assert.eq: MSG: got 1, want 2".
func (e *AssertionError) Error() string {
	if e.Msg == "" {
		return e.Func + ": " + e.Text
	}
	return e.Func + ": " + e.Msg + ": " + e.Text
}

// FailAssertion returns the *AssertionError of the assertion fn with the
// script's message msg (may be empty) and a description of what went
// wrong. Bindings use it for assertions they check natively, so failures
// read the same in every language.
func FailAssertion(fn, msg, format string, args ...any) error {
	return &AssertionError{Func: fn, Msg: msg, Text: fmt.Sprintf(format, args...)}
}

// AssertEqual is assert.eq on JSON shapes: nil when got equals want, else
// an *AssertionError such as `assert.eq: got 1, want 2`. Numbers compare
// by value (int64 1 equals float64 1.0); lists and dicts compare deeply.
// msg is the script's message, or "".
func AssertEqual(got, want any, msg string) error {
	if ShapesEqual(got, want) {
		return nil
	}
	return FailAssertion("assert.eq", msg, "got %s, want %s", Quote(got), Quote(want))
}

// AssertNotEqual is assert.ne on JSON shapes: nil unless a equals b, as
// AssertEqual compares them.
func AssertNotEqual(a, b any, msg string) error {
	if !ShapesEqual(a, b) {
		return nil
	}
	return FailAssertion("assert.ne", msg, "got %s, want anything else", Quote(a))
}

// AssertContains is assert.contains on JSON shapes: a string contains
// a substring, a list an equal element, a dict a key. A container of any
// other kind, or a non-string item for a string or dict, is an error that
// is not an *AssertionError: the test itself is wrong.
func AssertContains(container, item any, msg string) error {
	const fn = "assert.contains"
	found := false
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			return fmt.Errorf("%s: a string contains strings, got %s", fn, describe(item))
		}
		found = strings.Contains(c, s)
	case []any:
		for _, e := range c {
			if ShapesEqual(e, item) {
				found = true
				break
			}
		}
	case map[string]any:
		k, ok := item.(string)
		if !ok {
			return fmt.Errorf("%s: dict keys are strings, got %s", fn, describe(item))
		}
		_, found = c[k]
	default:
		return fmt.Errorf("%s: want a string, list or dict to look in, got %s", fn, describe(container))
	}
	if found {
		return nil
	}
	return FailAssertion(fn, msg, "%s does not contain %s", Quote(container), Quote(item))
}

// AssertFails is assert.fails once the binding has called the function: err
// is what the call raised (nil if it returned). It returns err's message
// when err is non-nil and pattern (an RE2 regular expression, searched
// for, not anchored; "" matches anything) matches it. A binding passes an
// error whose Error() is the bare message, without a script position. A
// pattern that does not compile is an error that is not an
// *AssertionError.
func AssertFails(err error, pattern string) (string, error) {
	const fn = "assert.fails"
	re, cerr := regexp.Compile(pattern)
	if cerr != nil {
		return "", fmt.Errorf("%s: pattern %q: %v", fn, pattern, cerr)
	}
	if err == nil {
		if pattern == "" {
			return "", FailAssertion(fn, "", "the function returned, want an error")
		}
		return "", FailAssertion(fn, "", "the function returned, want an error matching %s", quoteString(pattern))
	}
	msg := err.Error()
	if !re.MatchString(msg) {
		return "", FailAssertion(fn, "", "got error %s, want one matching %s", quoteString(msg), quoteString(pattern))
	}
	return msg, nil
}

// ShapesEqual reports whether two JSON shapes are equal: numbers by value
// whatever their Go type (int64 or float64), lists and dicts element by
// element. Anything else compares with reflect.DeepEqual.
func ShapesEqual(a, b any) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return intEqualsFloat(x, y)
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return intEqualsFloat(y, x)
		case float64:
			return x == y
		}
		return false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !ShapesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !ShapesEqual(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// intEqualsFloat compares exactly: float64(i) would round large integers.
func intEqualsFloat(i int64, f float64) bool {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return false
	}
	return int64(f) == i
}
