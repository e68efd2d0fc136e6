package lua

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/agentsh/agentsh/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// jsonModule: encode, encode_indent, decode, indent, null. Object keys come
// out sorted, in every language.
func (in *Interp) jsonModule(L *lua.LState) *lua.LTable {
	m := newModule(L, map[string]lua.LGFunction{
		"encode": func(L *lua.LState) int {
			s, err := stdlib.JSONEncode(in.checkGo(L, 1, "json.encode", ""))
			if err != nil {
				L.RaiseError("json.encode: %v", err)
			}
			L.Push(lua.LString(s))
			return 1
		},
		"encode_indent": func(L *lua.LState) int {
			v := in.checkGo(L, 1, "json.encode_indent", "")
			s, err := stdlib.JSONEncodeIndent(v, L.OptString(2, ""), L.OptString(3, "\t"))
			if err != nil {
				L.RaiseError("json.encode_indent: %v", err)
			}
			L.Push(lua.LString(s))
			return 1
		},
		"decode": func(L *lua.LState) int {
			v, err := stdlib.JSONDecode(L.CheckString(1))
			if err != nil {
				if L.GetTop() >= 2 {
					L.Push(L.Get(2))
					return 1
				}
				L.RaiseError("%v", err)
			}
			L.Push(in.mustLua(L, v))
			return 1
		},
		"indent": func(L *lua.LState) int {
			s, err := stdlib.JSONIndent(L.CheckString(1), L.OptString(2, ""), L.OptString(3, "\t"))
			if err != nil {
				L.RaiseError("%v", err)
			}
			L.Push(lua.LString(s))
			return 1
		},
	})
	m.RawSetString("null", in.null)
	return m
}

// reModule: search, match, fullmatch, findall, sub, split, escape (RE2),
// the same functions as Starlark's re. Positions are byte offsets from 0,
// as in Go and Starlark.
func (in *Interp) reModule(L *lua.LState) *lua.LTable {
	matchMeta := in.matchMeta(L)
	find := func(name string, f func(ctx context.Context, pattern, s string) (*stdlib.Match, error)) lua.LGFunction {
		return func(L *lua.LState) int {
			m, err := f(callContext(L), L.CheckString(1), L.CheckString(2))
			if err != nil {
				L.RaiseError("re.%s: %v", name, err)
			}
			if m == nil {
				L.Push(lua.LNil)
				return 1
			}
			L.Push(in.newObject(L, m, matchMeta))
			return 1
		}
	}
	return newModule(L, map[string]lua.LGFunction{
		"search":    find("search", stdlib.Search),
		"match":     find("match", stdlib.MatchStart),
		"fullmatch": find("fullmatch", stdlib.FullMatch),
		"findall": func(L *lua.LState) int {
			out, err := stdlib.FindAll(callContext(L), L.CheckString(1), L.CheckString(2))
			if err != nil {
				L.RaiseError("re.findall: %v", err)
			}
			L.Push(in.mustLua(L, out))
			return 1
		},
		"sub": func(L *lua.LState) int {
			out, err := stdlib.Sub(callContext(L), L.CheckString(1), L.CheckString(2), L.CheckString(3), L.OptInt(4, 0))
			if err != nil {
				L.RaiseError("re.sub: %v", err)
			}
			L.Push(lua.LString(out))
			return 1
		},
		"split": func(L *lua.LState) int {
			out, err := stdlib.Split(callContext(L), L.CheckString(1), L.CheckString(2), L.OptInt(3, 0))
			if err != nil {
				L.RaiseError("re.split: %v", err)
			}
			L.Push(in.mustLua(L, out))
			return 1
		},
		"escape": func(L *lua.LState) int {
			L.Push(lua.LString(stdlib.Escape(L.CheckString(1))))
			return 1
		},
	})
}

// matchMeta gives match objects Starlark's methods: m:group(n), m:groups(),
// m:groupdict(), m:start(n), m:span(n) (two results: start and end).
func (in *Interp) matchMeta(L *lua.LState) *lua.LTable {
	index := func(L *lua.LState, m *stdlib.Match, fn string) int {
		switch v := L.Get(2).(type) {
		case *lua.LNilType:
			return 0
		case lua.LNumber:
			if i := int(v); float64(i) == float64(v) && i >= 0 && i < len(m.Groups) {
				return i
			}
		case lua.LString:
			if i := m.GroupIndex(string(v)); i >= 0 {
				return i
			}
		}
		L.RaiseError("%s: no such group %s (the pattern has %d)", fn, L.Get(2).String(), len(m.Groups)-1)
		return 0
	}
	group := func(g stdlib.Group, def lua.LValue) lua.LValue {
		if !g.Matched {
			return def
		}
		return lua.LString(g.Text)
	}
	methods := newModule(L, map[string]lua.LGFunction{
		"group": func(L *lua.LState) int {
			m := L.CheckUserData(1).Value.(*stdlib.Match)
			L.Push(group(m.Groups[index(L, m, "group")], lua.LNil))
			return 1
		},
		"groups": func(L *lua.LState) int {
			m := L.CheckUserData(1).Value.(*stdlib.Match)
			def := L.Get(2)
			if def == lua.LNil {
				def = in.null // a nil would end the array early
			}
			t := L.CreateTable(len(m.Groups)-1, 0)
			for _, g := range m.Groups[1:] {
				t.Append(group(g, def))
			}
			t.Metatable = in.arrayMeta
			L.Push(t)
			return 1
		},
		"groupdict": func(L *lua.LState) int {
			m := L.CheckUserData(1).Value.(*stdlib.Match)
			t := L.NewTable()
			for i, n := range m.Names {
				if n != "" {
					t.RawSetString(n, group(m.Groups[i], in.null))
				}
			}
			L.Push(t)
			return 1
		},
		"start": func(L *lua.LState) int {
			m := L.CheckUserData(1).Value.(*stdlib.Match)
			L.Push(lua.LNumber(m.Groups[index(L, m, "start")].Start))
			return 1
		},
		"span": func(L *lua.LState) int {
			m := L.CheckUserData(1).Value.(*stdlib.Match)
			g := m.Groups[index(L, m, "span")]
			L.Push(lua.LNumber(g.Start))
			L.Push(lua.LNumber(g.End))
			return 2
		},
	})
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString("match"))
	mt.RawSetString("__metatable", lua.LString("match"))
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		m := L.CheckUserData(1).Value.(*stdlib.Match)
		L.Push(lua.LString(fmt.Sprintf("<match %q>", m.Groups[0].Text)))
		return 1
	}))
	return mt
}

// stateModule: get, set, incr, delete, keys — the session store shared by
// every call, safe across goroutines and languages.
func (in *Interp) stateModule(L *lua.LState) *lua.LTable {
	h := in.host
	return newModule(L, map[string]lua.LGFunction{
		"get": func(L *lua.LState) int {
			v := h.StateGet(L.CheckString(1), nil)
			if v == nil {
				L.Push(L.Get(2))
				return 1
			}
			L.Push(in.mustLua(L, v))
			return 1
		},
		"set": func(L *lua.LState) int {
			key := L.CheckString(1)
			v := in.checkGo(L, 2, "state.set", fmt.Sprintf("state[%q]", key))
			if err := h.StateSet(key, v); err != nil {
				L.RaiseError("state.set: %v", err)
			}
			return 0
		},
		"incr": func(L *lua.LState) int {
			n := L.OptNumber(2, 1)
			if float64(n) != math.Trunc(float64(n)) || math.Abs(float64(n)) > maxExact {
				L.RaiseError("state.incr: n must be an integer, got %v", n)
			}
			v, err := h.StateIncr(L.CheckString(1), int64(n))
			if err != nil {
				L.RaiseError("%v", err)
			}
			L.Push(in.mustLua(L, v))
			return 1
		},
		"delete": func(L *lua.LState) int {
			h.StateDelete(L.CheckString(1))
			return 0
		},
		"keys": func(L *lua.LState) int {
			L.Push(in.mustLua(L, h.StateKeys()))
			return 1
		},
	})
}

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
