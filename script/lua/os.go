package lua

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// callContext is the context of the call L runs for.
func callContext(L *lua.LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// now is the interpreter's clock.
func (in *Interp) now() time.Time {
	if in.opts.Now != nil {
		return in.opts.Now()
	}
	return time.Now()
}

// osModule is the safe part of os: time, clock and date, on the
// interpreter's clock.
func (in *Interp) osModule(L *lua.LState) *lua.LTable {
	lua.OpenOs(L)
	std := L.Get(-1).(*lua.LTable)
	L.Pop(1)
	stdTime, stdDate := std.RawGetString("time"), std.RawGetString("date")
	callStd := func(L *lua.LState, fn lua.LValue, args ...lua.LValue) int {
		top := L.GetTop()
		L.Push(fn)
		for _, a := range args {
			L.Push(a)
		}
		L.Call(len(args), lua.MultRet)
		return L.GetTop() - top
	}
	m := newModule(L, map[string]lua.LGFunction{
		"time": func(L *lua.LState) int {
			if L.GetTop() == 0 || L.Get(1) == lua.LNil {
				L.Push(lua.LNumber(in.now().Unix()))
				return 1
			}
			return callStd(L, stdTime, L.Get(1))
		},
		"date": func(L *lua.LState) int {
			format := L.OptString(1, "%c")
			t := L.Get(2)
			if t == lua.LNil {
				t = lua.LNumber(in.now().Unix())
			}
			return callStd(L, stdDate, lua.LString(format), t)
		},
	})
	m.RawSetString("clock", std.RawGetString("clock"))
	return m
}
