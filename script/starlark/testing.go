package starlark

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
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
	d := star.StringDict{}
	for _, m := range script.TestingModules() {
		d[m.Name] = newModuleValue(m)
	}
	d["mock_tool"] = star.NewBuiltin("mock_tool", in.builtinMockTool)
	d["skip"] = star.NewBuiltin("skip", builtinSkip)
	return d
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
