package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// TestMockToolKeepsDefinition: a stand-in replaces the function but keeps
// the description, schema, concurrency declaration, idempotence and the
// tool's own hooks, so validation still applies.
func TestMockToolKeepsDefinition(t *testing.T) {
	ex := executor.New(nil, executor.WithValidateArguments(true))
	h := NewHost(ex, nil)
	var ownBefore int
	mustNil(t, ex.Registry().RegisterTools(core.Tool{
		Name: "read_file", Description: "Reads a file.",
		Parameters:      []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		ConcurrencySafe: core.Bool(true), Idempotent: true,
		Func: func(context.Context, json.RawMessage) (any, error) { return "real", nil },
		Before: []core.BeforeFunc{func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			ownBefore++
			return nil, nil
		}},
	}))
	mustNil(t, h.MockTool("read_file", ret("fake", "mocked")))

	got := h.GetTool("read_file")
	want := map[string]any{"name": "read_file", "description": "Reads a file.", "concurrency_safe": true, "idempotent": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("GetTool(read_file)[%q] = %v, want %v", k, got[k], v)
		}
	}
	if r := invoke(t, ex, "read_file", `{"path":"a.txt"}`); !r.OK() || r.ForLLM != "mocked" {
		t.Errorf("mocked read_file: got %+v (err %v), want output mocked", r, r.Err)
	}
	r := invoke(t, ex, "read_file", `{}`)
	if r.Kind() != core.KindInvalidArguments {
		t.Errorf("mocked read_file without path: kind %q, want %q (the schema must still apply)", r.Kind(), core.KindInvalidArguments)
	}
	if ownBefore != 2 {
		t.Errorf("the tool's own before hook ran %d times, want 2", ownBefore)
	}
}

// TestMockToolNew: without a tool of that name, a new one is registered.
func TestMockToolNew(t *testing.T) {
	h, ex, _ := newTestHost(t)
	mustNil(t, h.MockTool("fetch", goFunc{"f", func(_ context.Context, args ...any) (any, error) {
		return map[string]any{"got": args[0]}, nil
	}}))
	info := h.GetTool("fetch")
	if info["description"] != "mock" || info["concurrency_safe"] != nil || info["idempotent"] != false {
		t.Errorf("GetTool(fetch) = %v, want description mock, undeclared safety, not idempotent", info)
	}
	if r := invoke(t, ex, "fetch", `{"url":"x"}`); r.ForLLM != `{"got":{"url":"x"}}` {
		t.Errorf("fetch output %q (err %v)", r.ForLLM, r.Err)
	}
	// Mocking again replaces the first stand-in.
	mustNil(t, h.MockTool("fetch", ConstFunc("fetch", "second")))
	if r := invoke(t, ex, "fetch", `{}`); r.ForLLM != "second" {
		t.Errorf("after a second mock: output %q, want second", r.ForLLM)
	}
	if h.GetTool("fetch")["description"] != "mock" {
		t.Errorf("a mock of a mock keeps description mock")
	}
}

func TestMockToolErrors(t *testing.T) {
	h, _, _ := newTestHost(t)
	err := h.MockTool("bad.name", ConstFunc("x", "y"))
	if err == nil || !strings.Contains(err.Error(), "invalid tool name") {
		t.Errorf("MockTool(bad.name) error %v, want an invalid name error", err)
	}
	// A failing stand-in fails the call like any tool.
	mustNil(t, h.MockTool("boom", goFunc{"boom", func(context.Context, ...any) (any, error) {
		return nil, errors.New("exploded")
	}}))
	res, err := h.InvokeTool(context.Background(), "boom", nil, "")
	mustNil(t, err)
	if res.R.Kind() != core.KindFailed || !strings.Contains(res.R.Err.Error(), "exploded") {
		t.Errorf("boom: %v, want failed with exploded", res.R.Err)
	}
}

func TestConstFunc(t *testing.T) {
	h, ex, _ := newTestHost(t)
	f := ConstFunc("c", core.DualToolOutput{ForLLM: "m", ForUser: "p"})
	if f.Name() != "c" {
		t.Errorf("Name() = %q", f.Name())
	}
	v, err := f.Call(context.Background(), "ignored", int64(1))
	if err != nil || v != (core.DualToolOutput{ForLLM: "m", ForUser: "p"}) {
		t.Errorf("Call = %v, %v", v, err)
	}
	mustNil(t, h.MockTool("c", ConstFunc("c", []any{int64(1), "two"})))
	if r := invoke(t, ex, "c", `{"a":1}`); r.ForLLM != `[1,"two"]` {
		t.Errorf("const tool output %q", r.ForLLM)
	}
}

func TestSkipped(t *testing.T) {
	var err error = fmt.Errorf("wrapped: %w", &Skipped{Reason: "not on this system"})
	var s *Skipped
	if !errors.As(err, &s) || s.Reason != "not on this system" {
		t.Fatalf("errors.As did not find the *Skipped in %v", err)
	}
	if s.Error() != "skipped: not on this system" {
		t.Errorf("Error() = %q", s.Error())
	}
}

func TestTestClock(t *testing.T) {
	if got := TestClock.Format(time.RFC3339); got != "2025-01-01T00:00:00Z" {
		t.Errorf("TestClock = %s", got)
	}
}

func TestShapesEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{int64(1), float64(1), true},
		{float64(2), int64(2), true},
		{int64(1), float64(1.5), false},
		{int64(1), "1", false},
		{int64(math.MaxInt64), float64(math.MaxInt64), false}, // 2^63 is not MaxInt64
		{int64(1 << 53), float64(1<<53) + 1, true},            // float64(2^53+1) rounds to 2^53
		{int64(1<<53 + 1), float64(1 << 53), false},
		{float64(1e300), int64(1), false},
		{true, true, true},
		{true, false, false},
		{"a", "a", true},
		{[]any{int64(1), "x"}, []any{float64(1), "x"}, true},
		{[]any{int64(1)}, []any{int64(1), int64(2)}, false},
		{[]any{}, map[string]any{}, false},
		{map[string]any{"a": []any{int64(1)}}, map[string]any{"a": []any{1.0}}, true},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "b": int64(2)}, false},
		{nil, false, false},
	} {
		if got := ShapesEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("ShapesEqual(%#v, %#v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
