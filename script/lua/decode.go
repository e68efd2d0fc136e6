package lua

import (
	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// luaBuilder makes Lua values straight from JSON text (script.DecodeAs),
// the same values toLua makes from the decoded JSON shape: objects with
// their keys inserted in sorted order, arrays with the array mark, null
// as agentsh.null (nil only at the top, which rawJSONToLua sees to), and
// an integer beyond 2^53 an error.
type luaBuilder struct {
	L         *lua.LState
	arrayMeta *lua.LTable
	null      *lua.LUserData
	inexact   bool // Int refused an integer: the slow path names it
}

var _ script.Builder[lua.LValue] = (*luaBuilder)(nil)

func (b *luaBuilder) Null() lua.LValue           { return b.null }
func (b *luaBuilder) Bool(v bool) lua.LValue     { return lua.LBool(v) }
func (b *luaBuilder) String(s string) lua.LValue { return lua.LString(s) }

func (b *luaBuilder) Int(i int64) (lua.LValue, error) {
	if i > maxExact || i < -maxExact {
		b.inexact = true
		return nil, errInexact
	}
	return lua.LNumber(i), nil
}

func (b *luaBuilder) Float(f float64) (lua.LValue, error) { return lua.LNumber(f), nil }

func (b *luaBuilder) Array(elems []lua.LValue) lua.LValue {
	t := b.L.CreateTable(len(elems), 0)
	for _, e := range elems {
		t.Append(e)
	}
	t.Metatable = b.arrayMeta
	return t
}

func (b *luaBuilder) Object(keys []string, vals []lua.LValue) lua.LValue {
	t := b.L.CreateTable(0, len(keys))
	for i, k := range keys {
		t.RawSetString(k, vals[i])
	}
	return t
}

// errInexact stops DecodeAs at an integer a Lua number cannot hold; the
// message users see comes from the slow path.
var errInexact = &script.ValueError{Msg: "integer beyond 2^53"}

// rawJSONToLua decodes a JSON argument straight into Lua values. top says
// whether the value is a whole argument, where JSON null is nil rather
// than agentsh.null.
//
// An integer beyond 2^53 is refused by toLua's rule, and its error names
// the place as toLua does (Lua counts array items from 1, JSON paths from
// 0), so the text is decoded again the slow way to say it; errors are rare
// and the fast path stays free of Lua's path rules.
func (in *Interp) rawJSONToLua(L *lua.LState, w *script.Walk, raw script.RawJSON, top bool) (lua.LValue, error) {
	st := in.stateOf(L)
	b := &luaBuilder{L: L, arrayMeta: st.arrayMeta, null: in.null}
	v, err := script.DecodeAs(raw.Text, raw.Root, b)
	if err != nil {
		if !b.inexact {
			return nil, err
		}
		g, derr := script.DecodeJSON(raw.Text)
		if derr != nil {
			return nil, derr
		}
		if w == nil {
			// As when arguments were decoded first and converted
			// after: the path starts at the value, not at Root.
			w = script.NewWalk("")
			defer w.Done()
		}
		return in.valueToLua(L, w, g)
	}
	if top && v == lua.LValue(in.null) {
		return lua.LNil, nil
	}
	return v, nil
}
