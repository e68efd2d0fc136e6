package lua

import (
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// With Options.Testing, scripts also have the names of agentsh test:
//
//	assert(v, msg?)                  Lua's assert, unchanged
//	assert.eq(got, want, msg?)       got equals want (tables compare deeply)
//	assert.ne(a, b, msg?)            a does not equal b
//	assert["true"](v, msg?)          v is neither nil nor false (alias:
//	                                 assert.is_true; true is a Lua keyword)
//	assert.contains(c, item, msg?)   substring, array element or object key
//	assert.fails(fn, pattern?)       fn() raises an error matching the RE2
//	                                 pattern (searched); returns the message
//	mock_tool(name, fn_or_value)     a stand-in tool for this test
//	skip(reason)                     stops the test; it counts as skipped
//
// A failed assertion is an error at the position of the assert call. Test
// functions are the global functions whose names start with test_.

// installTesting predeclares assert, mock_tool and skip.
func (in *Interp) installTesting(L *lua.LState) {
	g := in.predeclared
	isTrue := func(L *lua.LState) int {
		v := L.Get(1)
		if lua.LVAsBool(v) {
			return 0
		}
		in.raise(L, script.FailAssertion("assert.true", L.OptString(2, ""), "got %s, want a true value", in.show(L, v)))
		return 0
	}
	assert := newModule(L, map[string]lua.LGFunction{
		"eq": func(L *lua.LState) int {
			got, want := L.CheckAny(1), L.CheckAny(2)
			if !in.equal(got, want) {
				in.raise(L, script.FailAssertion("assert.eq", L.OptString(3, ""), "got %s, want %s", in.show(L, got), in.show(L, want)))
			}
			return 0
		},
		"ne": func(L *lua.LState) int {
			a, b := L.CheckAny(1), L.CheckAny(2)
			if in.equal(a, b) {
				in.raise(L, script.FailAssertion("assert.ne", L.OptString(3, ""), "got %s, want anything else", in.show(L, a)))
			}
			return 0
		},
		"true":    isTrue,
		"is_true": isTrue,
		"contains": func(L *lua.LState) int {
			c := in.checkGo(L, 1, "assert.contains", "container")
			item := in.checkGo(L, 2, "assert.contains", "item")
			if err := script.AssertContains(c, item, L.OptString(3, "")); err != nil {
				in.raise(L, err)
			}
			return 0
		},
		"fails": func(L *lua.LState) int {
			fn := L.CheckFunction(1)
			pattern := L.OptString(2, "")
			L.Push(fn)
			var raised error
			if err := in.pcall(L, 0, 0); err != nil {
				raised = errors.New(bareMessage(err))
			}
			msg, err := script.AssertFails(raised, pattern)
			if err != nil {
				in.raise(L, err)
			}
			L.Push(lua.LString(msg))
			return 1
		},
	})
	// assert(v, msg) keeps working: the module is callable.
	mt := L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		L.Remove(1) // the module itself
		if !lua.LVAsBool(L.Get(1)) {
			L.RaiseError("%s", L.OptString(2, "assertion failed!"))
		}
		return L.GetTop()
	}))
	assert.Metatable = mt
	g.RawSetString("assert", assert)

	g.RawSetString("mock_tool", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		var fn script.Func
		if f, ok := L.Get(2).(*lua.LFunction); ok {
			fn = in.register(L, f, name)
		} else {
			v, err := in.toGo(L.CheckAny(2), "value")
			if err != nil {
				L.RaiseError("mock_tool %s: %v", name, err)
			}
			fn = script.ConstFunc(name, v)
		}
		if err := in.host.MockTool(name, fn); err != nil {
			L.RaiseError("mock_tool: %v", err)
		}
		return 0
	}))
	g.RawSetString("skip", L.NewFunction(func(L *lua.LState) int {
		in.raise(L, &script.Skipped{Reason: L.OptString(1, "")})
		return 0
	}))
}

// raise raises err as a Lua error at the caller's position that keeps the
// Go error reachable with errors.As.
func (in *Interp) raise(L *lua.LState, err error) {
	ud := L.NewUserData()
	ud.Value = goError{err: err}
	L.Error(ud, 1)
}

// equal compares two Lua values: as JSON shapes when both have one (so
// tables compare deeply), else by identity.
func (in *Interp) equal(a, b lua.LValue) bool {
	ga, errA := in.toGo(a, "")
	gb, errB := in.toGo(b, "")
	if errA == nil && errB == nil {
		return script.ShapesEqual(ga, gb)
	}
	return a == b
}

// show renders a value in an assertion message.
func (in *Interp) show(L *lua.LState, v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return in.render(L, []lua.LValue{v})
}

// bareMessage is an error's message without its script position.
func bareMessage(err error) string {
	var e *script.Error
	if errors.As(wrapError(err), &e) {
		return e.Msg
	}
	return err.Error()
}
