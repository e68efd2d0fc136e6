package lua

import (
	"fmt"
	"reflect"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// Host values are userdata. Every script.Object has one metatable, which
// reads attributes with a dot (a method is a function), renders it with
// tostring, and maps the optional Comparer, Operator and Callable onto
// ==, <, <=, + - * / % and calls. Any other host value is opaque: scripts
// hold it and pass it back. The metatables are created once per
// interpreter, in the globals every thread shares.

// nullValue is the Value of agentsh.null, JSON null inside tables.
type nullValue struct{}

func (nullValue) typeName() string { return "null" }

// luaObject is the Value of an Object's userdata.
type luaObject struct {
	obj script.Object
	// cached is the last attribute read that is a table (call.args), kept
	// so that a hook reading it twice converts it once and sees one table.
	cachedKey string
	cached    lua.LValue
}

func (o *luaObject) typeName() string { return o.obj.TypeName() }

// opaqueValue is the Value of an opaque host value's userdata.
type opaqueValue struct{ v any }

func (opaqueValue) typeName() string { return "value" }

// metatables are the metatables every state of the interpreter shares.
// They are sealed (scripts can neither read nor replace them) and never
// written after New, so threads of different states read them at once.
// The array mark, which scripts can read, belongs to each state.
type metatables struct {
	nullMeta   *lua.LTable
	objectMeta *lua.LTable
	opaqueMeta *lua.LTable
	null       *lua.LUserData
}

func (in *Interp) initMetatables() {
	L := lua.NewState(lua.Options{SkipOpenLibs: true}) // only to make the values
	defer L.Close()
	in.nullMeta = sealed(L, "null")
	in.nullMeta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("null"))
		return 1
	}))
	in.null = L.NewUserData()
	in.null.Value = nullValue{}
	in.null.Metatable = in.nullMeta

	in.opaqueMeta = sealed(L, "value")
	in.opaqueMeta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("<%T>", L.CheckUserData(1).Value.(opaqueValue).v)))
		return 1
	}))

	mt := sealed(L, "object")
	in.objectMeta = mt
	set := func(name string, fn lua.LGFunction) { mt.RawSetString(name, L.NewFunction(fn)) }
	set("__tostring", func(L *lua.LState) int {
		L.Push(lua.LString(spell(objectArg(L, 1).obj)))
		return 1
	})
	set("__index", in.objectIndex)
	set("__eq", func(L *lua.LState) int {
		L.Push(lua.LBool(in.objectsEqual(L)))
		return 1
	})
	set("__lt", func(L *lua.LState) int {
		L.Push(lua.LBool(in.compare(L) < 0))
		return 1
	})
	set("__le", func(L *lua.LState) int {
		L.Push(lua.LBool(in.compare(L) <= 0))
		return 1
	})
	for name, op := range map[string]string{"__add": "+", "__sub": "-", "__mul": "*", "__div": "/", "__mod": "%"} {
		set(name, in.binary(op))
	}
	set("__call", func(L *lua.LState) int {
		o := objectArg(L, 1)
		c, ok := o.obj.(script.Callable)
		if !ok {
			L.RaiseError("attempt to call a %s value", o.obj.TypeName())
		}
		args := make([]any, 0, L.GetTop()-1)
		for i := 2; i <= L.GetTop(); i++ {
			args = append(args, in.argToGo(L, o.obj.TypeName(), L.Get(i), "args"))
		}
		var out any
		var err error
		ctx := hostContext(L)
		in.unlocked(L, func() { out, err = c.CallValue(ctx, args) })
		if err != nil {
			L.RaiseError("%v", err)
		}
		L.Push(in.mustLua(L, out))
		return 1
	})
}

// sealed returns a metatable scripts cannot read or replace.
func sealed(L *lua.LState, name string) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString(name))
	mt.RawSetString("__metatable", lua.LString(name))
	return mt
}

// objectArg returns the Object userdata at n, or raises an error.
func objectArg(L *lua.LState, n int) *luaObject {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if o, ok := ud.Value.(*luaObject); ok {
			return o
		}
	}
	L.ArgError(n, "want a host object")
	return nil
}

// objectIndex is __index: an attribute, converted, or an error naming a
// missing one, so that a typo does not read as nil.
func (in *Interp) objectIndex(L *lua.LState) int {
	ud := L.CheckUserData(1)
	o := objectArg(L, 1)
	key := L.CheckString(2)
	if o.cached != nil && o.cachedKey == key {
		L.Push(o.cached)
		return 1
	}
	g, ok, err := o.obj.Attr(key)
	if err != nil {
		L.RaiseError("%v", err)
	}
	if !ok {
		L.RaiseError("%s has no field %q", o.obj.TypeName(), key)
	}
	var v lua.LValue
	if b, isMethod := g.(script.Builtin); isMethod {
		v = in.newFunction(L, b, ud, true)
	} else if n, isInt := g.(int64); isInt {
		// An attribute such as t.unix_nano: exact up to 2^53, beyond that
		// the nearest number, as Lua reads any integer.
		v = lua.LNumber(n)
	} else {
		v = in.mustLua(L, g)
	}
	if _, isTable := v.(*lua.LTable); isTable {
		o.cachedKey, o.cached = key, v
	}
	L.Push(v)
	return 1
}

// objectsEqual is ==: by script.Comparer, else equal Go values (or the same
// userdata, for values Go cannot compare).
func (in *Interp) objectsEqual(L *lua.LState) bool {
	a, b := objectArg(L, 1), objectArg(L, 2)
	if _, ok := a.obj.(script.Comparer); ok {
		return in.compare(L) == 0
	}
	if reflect.TypeOf(a.obj).Comparable() {
		return a.obj == b.obj
	}
	return L.Get(1) == L.Get(2)
}

// compare orders the two operands of < or <= with script.Comparer.
func (in *Interp) compare(L *lua.LState) int {
	a, b := objectArg(L, 1), objectArg(L, 2)
	c, ok := a.obj.(script.Comparer)
	if !ok {
		L.RaiseError("%s values are not ordered", a.obj.TypeName())
	}
	n, err := c.Compare(b.obj)
	if err != nil {
		L.RaiseError("%v", err)
	}
	return n
}

// binary returns the metamethod of op with script.Operator.
func (in *Interp) binary(op string) lua.LGFunction {
	return func(L *lua.LState) int {
		y, reversed := L.Get(2), false
		opr, ok := operatorOf(L.Get(1))
		if !ok {
			opr, ok = operatorOf(y)
			y, reversed = L.Get(1), true
		}
		if !ok {
			L.RaiseError("unknown binary op: %s %s %s", operandType(L.Get(1)), op, operandType(L.Get(2)))
		}
		other := in.argToGo(L, op, y, "operand")
		v, ok, err := opr.Binary(op, other, reversed)
		if err != nil {
			L.RaiseError("%v", err)
		}
		if !ok {
			L.RaiseError("unknown binary op: %s %s %s", operandType(L.Get(1)), op, operandType(L.Get(2)))
		}
		L.Push(in.mustLua(L, v))
		return 1
	}
}

// operandType names an operand's type as Starlark's message does:
// "unknown binary op: time.time + number".
func operandType(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if n, ok := ud.Value.(interface{ typeName() string }); ok {
			return n.typeName()
		}
	}
	return v.Type().String()
}

// operatorOf returns the Operator of a userdata value.
func operatorOf(v lua.LValue) (script.Operator, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if o, ok := ud.Value.(*luaObject); ok {
			opr, ok := o.obj.(script.Operator)
			return opr, ok
		}
	}
	return nil, false
}

func (in *Interp) newObject(L *lua.LState, v any, mt *lua.LTable) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = v
	ud.Metatable = mt
	return ud
}

// spell renders obj as Lua writes it: result{ok = true, ...}.
func spell(obj script.Object) string {
	if sp, ok := obj.(script.Speller); ok {
		return sp.Spell(script.TableSpelling)
	}
	return obj.String()
}
