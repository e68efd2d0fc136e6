package lua

import (
	lua "github.com/yuin/gopher-lua"
)

// state is one gopher-lua state (a set of globals and the threads that
// share them) and what the binding keeps for it. An Interp has a main
// state, where top-level code runs, and replicas (replica.go) where
// functions run in parallel. A Lua value belongs to one state.
type state struct {
	main        *lua.LState
	predeclared *lua.LTable // the globals every file falls back to
	arrayMeta   *lua.LTable // marks a table as a JSON array

	onError *lua.LFunction         // records a traceback before the stack unwinds
	traces  map[*lua.LState]string // what onError recorded, by thread
	broken  map[*lua.LState]bool   // threads a failed PCall left unusable

	replica *replica // nil for the main state
}

// initState opens the sandbox and the API in a new gopher-lua state.
func (in *Interp) initState(st *state) {
	st.main = lua.NewState(stateOptions)
	st.traces = map[*lua.LState]string{}
	st.broken = map[*lua.LState]bool{}
	st.onError = st.main.NewFunction(func(L *lua.LState) int {
		st.traces[L] = traceback(L)
		return 1 // the error value, unchanged
	})
	st.predeclared = st.main.G.Global
	st.arrayMeta = st.main.NewTable()
	st.arrayMeta.RawSetString("__name", lua.LString("array"))
	if err := openSandbox(st.main); err != nil {
		panic(err) // the standard libraries always open
	}
	in.installAPI(st)
	st.predeclared.RawSetString("arg", in.argTable(st.main))
}

// stateOf returns the state L belongs to. Threads and coroutines share
// their state's G.
func (in *Interp) stateOf(L *lua.LState) *state {
	if L.G == in.main.G {
		return &in.state
	}
	for _, st := range *in.states.Load() {
		if st.main.G == L.G {
			return st
		}
	}
	return &in.state
}

// isArrayMeta reports whether mt is the array mark of one of the states.
func (in *Interp) isArrayMeta(mt lua.LValue) bool {
	if mt == lua.LValue(in.arrayMeta) {
		return true
	}
	if _, ok := mt.(*lua.LTable); !ok {
		return false
	}
	for _, st := range *in.states.Load() {
		if mt == lua.LValue(st.arrayMeta) {
			return true
		}
	}
	return false
}
