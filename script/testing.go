package script

import (
	"context"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/stdlib"
)

// This file holds what script tests (agentsh test) need from the host,
// shared by every binding: stand-in tools, skipping and the fixed clock.
// The assert module is in modules.go.

// TestClock is the fixed clock of script tests: time.now() returns it in
// every test unless the runner is given another time. A fixed clock keeps
// test output byte-identical from run to run.
var TestClock = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// MockTool registers fn as the tool name, a stand-in for a test. An
// existing tool of that name is replaced, but its Description, Parameters,
// ConcurrencySafe, Idempotent, ReadOnly, Effects, Preview and its own
// Before and After hooks are kept, so calls of the stand-in are made
// canonical and go through the same argument validation, hooks and
// middleware decisions as calls of the real tool. When there is no such
// tool, a new one is registered with the description "mock", declared as
// SetDeclarations says (a built-in tool that is not installed). fn receives
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
		t.ReadOnly = old.ReadOnly
		t.Effects = old.Effects
		t.Sandboxed = old.Sandboxed
		t.Preview = old.Preview
		t.Before = old.Before
		t.After = old.After
	}
	if old := reg.GetTool(name); old == nil && h.declared != nil {
		// A stand-in for a built-in tool that is not installed takes its
		// declaration, so policies decide on it as on the tool.
		if d, ok := h.declared(name); ok {
			t.ReadOnly, t.Effects, t.Sandboxed = d.ReadOnly, d.Effects, d.Sandboxed
		}
	}
	if err := reg.ReplaceTools(t); err != nil {
		return fmt.Errorf("mock_tool: %w", err)
	}
	return nil
}

// SetDeclarations tells mock_tool how to declare a stand-in for a tool
// that is not registered: fn returns the ReadOnly and Effects of the tool
// named (the built-in tools', see tools/builtins), or false. Call it
// before the host runs scripts.
func (h *Host) SetDeclarations(fn func(name string) (core.Tool, bool)) { h.declared = fn }

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

// TestingAPI returns the names script tests have besides the assert
// module (agentsh test): mock_tool and skip.
func (h *Host) TestingAPI() []Builtin {
	return []Builtin{
		{Name: "mock_tool", Doc: "Stands in for a tool in this test: fn(args), or a value it returns whatever the arguments.",
			Params: []Param{{Name: "name", Kind: String}, {Name: "fn_or_value", Kind: Any}},
			Fn: func(_ context.Context, a Args) (any, error) {
				name := a["name"].(string)
				fn, ok := a["fn_or_value"].(Func)
				if !ok {
					fn = ConstFunc(name, a["fn_or_value"])
				}
				return nil, h.MockTool(name, fn)
			}},
		{Name: "skip", Doc: "Stops the test; it counts as skipped.",
			Params: []Param{{Name: "reason", Kind: String, Optional: true, Default: ""}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return nil, &Skipped{Reason: a["reason"].(string)}
			}},
	}
}

// Skipped is the error of skip(reason): the test stops and is reported as
// skipped, not failed. Bindings raise a *Skipped and keep it reachable with
// errors.As through their own error types.
type Skipped struct{ Reason string }

func (s *Skipped) Error() string { return "skipped: " + s.Reason }

// AssertionError is a failed assertion of the assert module.
type AssertionError = stdlib.AssertionError

// ShapesEqual reports whether two JSON shapes are equal, numbers by value
// whatever their Go type (see stdlib.ShapesEqual).
func ShapesEqual(a, b any) bool { return stdlib.ShapesEqual(a, b) }
