package stdlib

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// shape is a Value over a JSON shape, shown as JSON.
type shape struct{ v any }

func (s shape) Go() (any, error) { return s.v, nil }
func (s shape) Type() string     { return fmt.Sprintf("%T", s.v) }
func (s shape) String() string {
	b, _ := testJSON.Marshal(s.v)
	return string(b)
}
func (s shape) Truth() bool                 { return s.v != nil && s.v != false }
func (s shape) Equal(o Value) (bool, error) { g, _ := o.Go(); return ShapesEqual(s.v, g), nil }

func TestAssertions(t *testing.T) {
	ok := func(err error) {
		t.Helper()
		if err != nil {
			t.Error(err)
		}
	}
	fails := func(err error, want string) {
		t.Helper()
		var ae *AssertionError
		if !errors.As(err, &ae) || err.Error() != want {
			t.Errorf("error %v, want the assertion failure %q", err, want)
		}
	}
	ok(AssertEqual(shape{int64(1)}, shape{1.0}, ""))
	fails(AssertEqual(shape{int64(1)}, shape{int64(2)}, ""), "assert.eq: got 1, want 2")
	fails(AssertEqual(shape{"a"}, shape{"b"}, "msg"), `assert.eq: msg: got "a", want "b"`)
	ok(AssertNotEqual(shape{"1"}, shape{int64(1)}, ""))
	fails(AssertNotEqual(shape{[]any{int64(1)}}, shape{[]any{1.0}}, "lists"), "assert.ne: lists: got [1], want anything else")
	ok(AssertTrue("assert.true", shape{int64(0)}, ""))
	fails(AssertTrue("assert.is_true", shape{nil}, "none"), "assert.is_true: none: got null, want a true value")
	ok(AssertContains(shape{"hello"}, shape{"ll"}, ""))
	ok(AssertContains(shape{[]any{int64(2)}}, shape{2.0}, ""))
	ok(AssertContains(shape{map[string]any{"k": nil}}, shape{"k"}, ""))
	fails(AssertContains(shape{[]any{}}, shape{"x"}, "ids"), `assert.contains: ids: [] does not contain "x"`)
	for _, tc := range []struct {
		c, item any
		want    string
	}{
		{int64(5), int64(5), "want a string, list or dict to look in, got int64"},
		{"abc", int64(1), "a string contains strings, got int64"},
		{map[string]any{}, int64(1), "dict keys are strings, got int64"},
	} {
		err := AssertContains(shape{tc.c}, shape{tc.item}, "")
		var ae *AssertionError
		if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("contains(%v, %v) = %v, want a usage error %q", tc.c, tc.item, err, tc.want)
		}
	}
	if msg := MessageText(shape{nil}); msg != "" {
		t.Errorf("MessageText(None) = %q", msg)
	}
	if msg := MessageText(shape{[]any{"call", int64(3)}}); msg != `["call",3]` {
		t.Errorf("MessageText(list) = %q", msg)
	}
}

func TestAssertFails(t *testing.T) {
	if msg, err := AssertFails(errors.New("kaboom 42"), `kaboom \d+`); err != nil || msg != "kaboom 42" {
		t.Errorf("AssertFails = %q, %v", msg, err)
	}
	for _, tc := range []struct {
		err     error
		pattern string
		want    string
	}{
		{nil, "", "assert.fails: the function returned, want an error"},
		{nil, "denied", `assert.fails: the function returned, want an error matching "denied"`},
		{errors.New("fail: x"), "^denied", `assert.fails: got error "fail: x", want one matching "^denied"`},
	} {
		_, err := AssertFails(tc.err, tc.pattern)
		if err == nil || err.Error() != tc.want {
			t.Errorf("AssertFails(%v, %q) = %v, want %s", tc.err, tc.pattern, err, tc.want)
		}
	}
	_, err := AssertFails(errors.New("x"), "(")
	var ae *AssertionError
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), `pattern "(": error parsing regexp`) {
		t.Errorf("bad pattern: %v", err)
	}
}
