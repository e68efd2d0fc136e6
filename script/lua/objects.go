package lua

import (
	"fmt"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// Host objects are userdata whose Value is the Go object and whose
// metatable gives them fields and a tostring. Their metatables are created
// once per interpreter, in the globals every thread shares.

// nullValue is the Value of agentsh.null, JSON null inside tables.
type nullValue struct{}

func (nullValue) typeName() string { return "null" }

// callObject is what hooks and middleware receive: .id .name .args .raw.
type callObject struct {
	info *script.CallInfo
	args lua.LValue // built on first use
}

func (*callObject) typeName() string { return "call" }

// metatables are the interpreter's shared metatables.
type metatables struct {
	arrayMeta  *lua.LTable // marks a table as a JSON array
	nullMeta   *lua.LTable
	callMeta   *lua.LTable
	resultMeta *lua.LTable
	valueMeta  *lua.LTable // deny, rewrite, dual, silent, middleware
	objectMeta *lua.LTable // every script.Object
	null       *lua.LUserData
}

func (in *Interp) initMetatables(L *lua.LState) {
	in.initObjectMeta(L)
	in.arrayMeta = L.NewTable()
	in.arrayMeta.RawSetString("__name", lua.LString("array"))

	in.nullMeta = in.newMeta(L, "null", func(L *lua.LState, _ any) string { return "null" }, nil)
	in.null = L.NewUserData()
	in.null.Value = nullValue{}
	in.null.Metatable = in.nullMeta

	in.callMeta = in.newMeta(L, "call", func(L *lua.LState, v any) string {
		return v.(*callObject).info.String()
	}, func(L *lua.LState, v any, key string) lua.LValue {
		c := v.(*callObject)
		switch key {
		case "id":
			return lua.LString(c.info.ID)
		case "name":
			return lua.LString(c.info.Name)
		case "raw":
			return lua.LString(c.info.Raw)
		case "args":
			if c.args == nil {
				args, err := c.info.Arguments()
				if err != nil {
					L.RaiseError("%v", err)
				}
				c.args = in.mustLua(L, args)
			}
			return c.args
		}
		return nil
	})

	in.resultMeta = in.newMeta(L, "result", func(L *lua.LState, v any) string {
		return v.(*script.ResultInfo).String()
	}, func(L *lua.LState, v any, key string) lua.LValue {
		f, ok := v.(*script.ResultInfo).Field(key)
		if !ok {
			return nil
		}
		return in.mustLua(L, f)
	})

	in.valueMeta = in.newMeta(L, "value", func(L *lua.LState, v any) string {
		switch x := v.(type) {
		case script.Deny:
			return fmt.Sprintf("deny(%q)", x.Reason)
		case script.Rewrite:
			return "rewrite(" + script.Quote(x.Args) + ")"
		case core.DualToolOutput:
			return fmt.Sprintf("dual(%q, %q)", x.ForLLM, x.ForUser)
		case core.SilentResult:
			return fmt.Sprintf("silent(%q)", x.ForLLM)
		case core.Middleware:
			return "<middleware " + x.Name + ">"
		}
		return fmt.Sprintf("<%T>", v)
	}, nil)
}

// newMeta returns a metatable whose __tostring is str and whose __index,
// when index is set, looks fields up by name (nil from index is an error
// naming the field, so a typo does not read as nil).
func (in *Interp) newMeta(L *lua.LState, name string, str func(*lua.LState, any) string, index func(*lua.LState, any, string) lua.LValue) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString(name))
	mt.RawSetString("__metatable", lua.LString(name)) // scripts cannot change it
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(str(L, L.CheckUserData(1).Value)))
		return 1
	}))
	if index != nil {
		mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			ud := L.CheckUserData(1)
			key := L.CheckString(2)
			v := index(L, ud.Value, key)
			if v == nil {
				L.RaiseError("%s has no field %q", name, key)
			}
			L.Push(v)
			return 1
		}))
	}
	return mt
}

func (in *Interp) newObject(L *lua.LState, v any, mt *lua.LTable) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = v
	ud.Metatable = mt
	return ud
}

// nextFunction is the rest of a middleware chain: next(call [, args]).
func (in *Interp) nextFunction(L *lua.LState, n *script.Next) *lua.LFunction {
	return L.NewFunction(func(L *lua.LState) int {
		if _, ok := L.Get(1).(*lua.LUserData); !ok {
			L.ArgError(1, "next: want the call, as in next(call)")
		}
		var args map[string]any
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			g := in.checkGo(L, 2, "next", "args")
			m, ok := g.(map[string]any)
			if !ok {
				L.RaiseError("next: args must be a table of arguments, got %s", typeName(L.Get(2)))
			}
			args = m
		}
		var res *script.ResultInfo
		var err error
		in.unlocked(func() { res, err = n.Call(L.Context(), args) })
		if err != nil {
			L.RaiseError("next: %v", err)
		}
		L.Push(in.newObject(L, res, in.resultMeta))
		return 1
	})
}
