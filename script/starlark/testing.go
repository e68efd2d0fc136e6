package starlark

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// With Options.Testing, scripts also have the names of agentsh test:
//
//	assert.eq(got, want, msg?)       got == want
//	assert.ne(a, b, msg?)            a != b
//	assert.true(v, msg?)             v is true (alias: assert.is_true)
//	assert.contains(c, item, msg?)   substring, list or tuple element, dict key
//	assert.fails(fn, pattern?)       fn() raises an error matching the RE2
//	                                 pattern (searched); returns the message
//	mock_tool(name, fn_or_value)     a stand-in tool for this test
//	skip(reason)                     stops the test; it counts as skipped
//
// A failed assertion is an error at the position of the assert call.

// testingBuiltins returns the names Options.Testing predeclares.
func (in *Interp) testingBuiltins() star.StringDict {
	return star.StringDict{
		"assert":    in.assertModule(),
		"mock_tool": star.NewBuiltin("mock_tool", in.builtinMockTool),
		"skip":      star.NewBuiltin("skip", builtinSkip),
	}
}

func (in *Interp) assertModule() *starlarkstruct.Module {
	isTrue := func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		var v star.Value
		var msg star.Value = star.None
		if err := star.UnpackArgs(b.Name(), args, kwargs, "v", &v, "msg?", &msg); err != nil {
			return nil, err
		}
		if v.Truth() {
			return star.None, nil
		}
		return nil, script.FailAssertion(b.Name(), msgText(msg), "got %s, want a true value", v)
	}
	return newModule("assert", map[string]builtinFunc{
		"eq":      assertEq,
		"ne":      assertNe,
		"true":    isTrue,
		"is_true": isTrue,
		"contains": func(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
			var container, item star.Value
			var msg star.Value = star.None
			if err := star.UnpackArgs(b.Name(), args, kwargs, "container", &container, "item", &item, "msg?", &msg); err != nil {
				return nil, err
			}
			switch container.(type) {
			case star.String, *star.List, star.Tuple, *star.Dict:
			default:
				return nil, fmt.Errorf("%s: want a string, list, tuple or dict to look in, got %s", b.Name(), container.Type())
			}
			if _, ok := container.(star.String); ok {
				if _, ok := item.(star.String); !ok {
					return nil, fmt.Errorf("%s: a string contains strings, got %s", b.Name(), item.Type())
				}
			}
			found, err := star.Binary(syntax.IN, item, container)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			if found.Truth() {
				return star.None, nil
			}
			return nil, script.FailAssertion(b.Name(), msgText(msg), "%s does not contain %s", container, item)
		},
		"fails": in.assertFails,
	})
}

func assertEq(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var got, want star.Value
	var msg star.Value = star.None
	if err := star.UnpackArgs(b.Name(), args, kwargs, "got", &got, "want", &want, "msg?", &msg); err != nil {
		return nil, err
	}
	eq, err := star.Equal(got, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if eq {
		return star.None, nil
	}
	return nil, script.FailAssertion(b.Name(), msgText(msg), "got %s, want %s", got, want)
}

func assertNe(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var x, y star.Value
	var msg star.Value = star.None
	if err := star.UnpackArgs(b.Name(), args, kwargs, "a", &x, "b", &y, "msg?", &msg); err != nil {
		return nil, err
	}
	eq, err := star.Equal(x, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if !eq {
		return star.None, nil
	}
	return nil, script.FailAssertion(b.Name(), msgText(msg), "got %s, want anything else", x)
}

// msgText is an assertion's optional message: a string as it is, None as
// no message, anything else as str() shows it (so assert.true(r.ok,
// r.error) works whether or not there is an error).
func msgText(v star.Value) string {
	switch x := v.(type) {
	case star.NoneType:
		return ""
	case star.String:
		return string(x)
	}
	return v.String()
}

// assertFails calls fn() on the same thread and requires an error. An
// error caused by the end of the test's context or step budget is passed
// on, never taken for the expected failure.
func (in *Interp) assertFails(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var fn star.Callable
	var pattern string
	if err := star.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "pattern?", &pattern); err != nil {
		return nil, err
	}
	_, err := star.Call(t, fn, nil, nil)
	if err != nil && (threadContext(t).Err() != nil || t.ExecutionSteps() >= in.opts.MaxSteps) {
		return nil, err
	}
	var raised error
	if err != nil {
		msg := err.Error()
		var ee *star.EvalError
		if errors.As(err, &ee) {
			msg = ee.Msg
		}
		raised = errors.New(msg)
	}
	msg, err := script.AssertFails(raised, pattern)
	if err != nil {
		return nil, err
	}
	return star.String(msg), nil
}

// builtinMockTool is mock_tool(name, fn_or_value): a function is
// registered as a tool function would be; any other value is what the
// stand-in returns, whatever its arguments.
func (in *Interp) builtinMockTool(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var name string
	var v star.Value
	if err := star.UnpackPositionalArgs("mock_tool", args, kwargs, 2, &name, &v); err != nil {
		return nil, err
	}
	var fn script.Func
	if c, ok := v.(star.Callable); ok {
		fn = in.register(c)
	} else {
		g, err := toGo(v, "value")
		if err != nil {
			return nil, fmt.Errorf("mock_tool %s: %w", name, err)
		}
		fn = script.ConstFunc(name, g)
	}
	if err := in.host.MockTool(name, fn); err != nil {
		return nil, err
	}
	return star.None, nil
}

func builtinSkip(t *star.Thread, b *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var reason string
	if err := star.UnpackPositionalArgs("skip", args, kwargs, 1, &reason); err != nil {
		return nil, err
	}
	return nil, &script.Skipped{Reason: reason}
}

// TestNames returns the names of the functions in globals (as ExecFile
// returns them) that start with "test_", sorted.
func TestNames(globals star.StringDict) []string {
	var names []string
	for name, v := range globals {
		if _, ok := v.(star.Callable); ok && strings.HasPrefix(name, "test_") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// Call calls fn (for example a function from the globals ExecFile
// returned) with args on a fresh thread under ctx, with the interpreter's
// step budget, print and clock. An error is an *Error with the position of
// the innermost script frame; when ctx ended, errors.Is also matches
// ctx.Err(). Like top-level evaluation, Call must not run concurrently with
// the interpreter's ExecFile, Exec or EvalChunk.
func (in *Interp) Call(ctx context.Context, fn star.Value, args ...star.Value) (star.Value, error) {
	c, ok := fn.(star.Callable)
	if !ok {
		return nil, fmt.Errorf("call: want a function, got %s", fn.Type())
	}
	t, stop := in.newThread(ctx, c.Name(), ".")
	defer stop()
	v, err := star.Call(t, c, args, nil)
	if err != nil {
		return nil, in.runError(ctx, err)
	}
	return v, nil
}
