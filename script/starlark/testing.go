package starlark

import (
	"context"
	"fmt"

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
//	assert.allowed(name, args?, origin?, reason?, msg?)
//	assert.asks(name, args?, origin?, reason?, msg?)
//	assert.denied(name, args?, origin?, reason?, msg?)
//	                                 the loaded policies would run, ask for
//	                                 or refuse the call (origin "person" or
//	                                 "model"; reason a substring of the
//	                                 reason); nothing runs; returns the
//	                                 ruling, as decide(...) does
//	mock_tool(name, fn_or_value)     a stand-in tool for this test
//	skip(reason)                     stops the test; it counts as skipped
//
// A failed assertion is an error at the position of the assert call.

// testingBuiltins returns the names Options.Testing predeclares.
func (in *Interp) testingBuiltins() star.StringDict {
	d := star.StringDict{}
	for _, m := range in.host.TestingModules() {
		d[m.Name] = newModuleValue(m)
	}
	for _, b := range in.host.TestingAPI() {
		d[b.Name] = newBuiltin(b)
	}
	return d
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
