package lua

import (
	"errors"

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
// A failed assertion is an error at the position of the assert call. Test
// functions are the global functions whose names start with test_.

// installTesting predeclares assert, mock_tool and skip.
func (in *Interp) installTesting(st *state) {
	L := st.main
	g := st.predeclared
	assert := in.moduleTable(L, in.host.TestingModules()[0])
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

	for _, b := range in.host.TestingAPI() {
		g.RawSetString(b.Name, in.newFunction(L, b, nil, false))
	}
}

// raise raises err as a Lua error at the caller's position that keeps the
// Go error reachable with errors.As.
func (in *Interp) raise(L *lua.LState, err error) {
	ud := L.NewUserData()
	ud.Value = goError{err: err}
	L.Error(ud, 1)
}

// bareMessage is an error's message without its script position.
func bareMessage(err error) string {
	var e *script.Error
	if errors.As(wrapError(err), &e) {
		return e.Msg
	}
	return err.Error()
}
