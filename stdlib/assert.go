package stdlib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
)

// The assert module of script tests (agentsh test). Assertions compare
// values as their language does and quote them as the script would write
// them, so the operands are Values, which a binding makes from its own.

// Value is an operand of an assertion: a script value with what only its
// language knows of it.
type Value interface {
	// Go returns the value as a JSON shape or host value, or an error
	// when it has none (a function).
	Go() (any, error)
	// Type names the value's type as the language does: "int", "table".
	Type() string
	// String shows the value as the language does: "None", `("a", 1)`.
	String() string
	// Truth is whether the language takes the value for true.
	Truth() bool
	// Equal compares as the language's == does.
	Equal(other Value) (bool, error)
}

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
// wrong.
func FailAssertion(fn, msg, format string, args ...any) error {
	return &AssertionError{Func: fn, Msg: msg, Text: fmt.Sprintf(format, args...)}
}

// MessageText is an assertion's optional message: a string as it is,
// nil (None) as none, anything else as the language shows it, so
// assert.true(r.ok, r.error) works whether or not there is an error.
func MessageText(msg Value) string {
	if msg == nil {
		return ""
	}
	switch g, _ := msg.Go(); g := g.(type) {
	case nil:
		return ""
	case string:
		return g
	}
	return msg.String()
}

// AssertEqual is assert.eq: nil when got equals want, else an
// *AssertionError such as `assert.eq: got 1, want 2`.
func AssertEqual(got, want Value, msg string) error {
	eq, err := got.Equal(want)
	if err != nil {
		return fmt.Errorf("assert.eq: %v", err)
	}
	if eq {
		return nil
	}
	return FailAssertion("assert.eq", msg, "got %s, want %s", got, want)
}

// AssertNotEqual is assert.ne: nil unless a equals b.
func AssertNotEqual(a, b Value, msg string) error {
	eq, err := a.Equal(b)
	if err != nil {
		return fmt.Errorf("assert.ne: %v", err)
	}
	if !eq {
		return nil
	}
	return FailAssertion("assert.ne", msg, "got %s, want anything else", a)
}

// AssertTrue is assert.true (named fn: assert.true or assert.is_true).
func AssertTrue(fn string, v Value, msg string) error {
	if v.Truth() {
		return nil
	}
	return FailAssertion(fn, msg, "got %s, want a true value", v)
}

// AssertContains is assert.contains: a string contains a substring, a
// list an equal element (numbers by value), a dict a key. A container of
// any other kind, or a non-string item for a string or dict, is an error
// that is not an *AssertionError: the test itself is wrong.
func AssertContains(container, item Value, msg string) error {
	const fn = "assert.contains"
	c, err := container.Go()
	if err != nil {
		return fmt.Errorf("%s: container: %v", fn, err)
	}
	x, err := item.Go()
	if err != nil {
		return fmt.Errorf("%s: item: %v", fn, err)
	}
	found := false
	switch c := c.(type) {
	case string:
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: a string contains strings, got %s", fn, item.Type())
		}
		found = strings.Contains(c, s)
	case []any:
		for _, e := range c {
			if ShapesEqual(e, x) {
				found = true
				break
			}
		}
	case map[string]any:
		k, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: dict keys are strings, got %s", fn, item.Type())
		}
		_, found = c[k]
	default:
		return fmt.Errorf("%s: want a string, list or dict to look in, got %s", fn, container.Type())
	}
	if found {
		return nil
	}
	return FailAssertion(fn, msg, "%s does not contain %s", container, item)
}

// AssertFails is assert.fails once the function has been called: err is
// what the call raised (nil if it returned), with its bare message, no
// script position. It returns err's message when err is non-nil and
// pattern (an RE2 regular expression, searched for, not anchored; ""
// matches anything) matches it. A pattern that does not compile is an
// error that is not an *AssertionError.
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
		return "", FailAssertion(fn, "", "the function returned, want an error matching %s", quote(pattern))
	}
	msg := err.Error()
	if !re.MatchString(msg) {
		return "", FailAssertion(fn, "", "got error %s, want one matching %s", quote(msg), quote(pattern))
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

// quote is s as a JSON string, as transcripts quote text.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}
