package lua

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// Modules and host objects, the same for every one: a script.Module is a
// table of functions, a script.Object userdata with one metatable.

// newModuleTable makes m a Lua table.
func (in *Interp) newModuleTable(L *lua.LState, m script.Module) *lua.LTable {
	t := L.CreateTable(0, len(m.Members)+len(m.Values))
	for _, b := range m.Members {
		t.RawSetString(b.Name, L.NewFunction(in.moduleFunc(m.Name+"."+b.Name, b, false)))
	}
	names := make([]string, 0, len(m.Values))
	for k := range m.Values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.RawSetString(k, in.mustLua(L, m.Values[k]))
	}
	return t
}

// moduleFunc is b as a Lua function named name: arguments by position (or
// one table of named fields when b.Table is set), converted to the Go form
// of each Kind. A method (self) takes its object first, as in m:group(1).
func (in *Interp) moduleFunc(name string, b script.Builtin, self bool) lua.LGFunction {
	b.Name = name
	return func(L *lua.LState) int {
		first := 1
		if self {
			if _, ok := L.Get(1).(*lua.LUserData); !ok {
				L.RaiseError("bad argument #1 to %s (want the object: call it with a colon, as in x:%s(...))", name, name)
			}
			first = 2
		}
		raw := map[string]lua.LValue{}
		if b.Table {
			if t, ok := L.Get(first).(*lua.LTable); ok {
				t.ForEach(func(k, v lua.LValue) {
					if s, ok := k.(lua.LString); ok {
						raw[string(s)] = v
					}
				})
			}
		} else {
			if n := L.GetTop() - first + 1; n > len(b.Params) {
				L.RaiseError("%s: got %d arguments, want at most %d", name, n, len(b.Params))
			}
			for i, p := range b.Params {
				if first+i <= L.GetTop() {
					raw[p.Name] = L.Get(first + i)
				}
			}
		}
		named := make(map[string]any, len(raw))
		for k, v := range raw {
			named[k] = v
		}
		if _, err := b.Bind(nil, named); err != nil {
			L.RaiseError("%v", err)
		}
		args := script.Args{}
		for _, p := range b.Params {
			v, ok := raw[p.Name]
			if ok && (v != lua.LNil || p.Kind == script.Any || p.Kind == script.Operand) {
				args[p.Name] = in.argument(L, name, p, v)
			} else if p.Default != nil {
				args[p.Name] = p.Default
			}
		}
		ctx := script.WithClock(callContext(L), in.opts.Now)
		// Module functions are quick and never wait: they run holding the
		// interpreter, and an Inline argument calls back into L.
		out, err := b.Fn(ctx, args)
		if err != nil {
			in.raise(L, err)
		}
		if rs, ok := out.(script.Results); ok {
			for _, r := range rs {
				L.Push(in.mustLua(L, r))
			}
			return len(rs)
		}
		L.Push(in.mustLua(L, out))
		return 1
	}
}

// argument converts v to the Go form of p's Kind, or raises an error.
func (in *Interp) argument(L *lua.LState, fn string, p script.Param, v lua.LValue) any {
	switch p.Kind {
	case script.String:
		if s, ok := v.(lua.LString); ok {
			return string(s)
		}
		L.RaiseError("%s: for parameter %s: got %s, want string", fn, p.Name, v.Type())
	case script.Int:
		if n, ok := v.(lua.LNumber); ok && float64(n) == float64(int(n)) && int(n) == int(int32(n)) {
			return int(n)
		}
		L.RaiseError("%s: for parameter %s: got %s, want int", fn, p.Name, v.String())
	case script.Operand:
		g, err := in.toGo(v, "")
		return operand{v: v, g: g, err: err, typ: v.Type().String(), text: in.show(L, v), truth: lua.LVAsBool(v)}
	case script.Inline:
		f, ok := v.(*lua.LFunction)
		if !ok {
			L.RaiseError("%s: for parameter %s: got %s, want function", fn, p.Name, v.Type())
		}
		return inlineFunc{in: in, L: L, fn: f}
	}
	g, err := in.toGo(v, "") // paths inside the value, as in json.encode: ["a"][0]: ...
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	return g
}

// operand is a Kind Operand argument, read while the call holds L.
type operand struct {
	v     lua.LValue
	g     any
	err   error
	typ   string
	text  string
	truth bool
}

func (o operand) Go() (any, error) { return o.g, o.err }
func (o operand) Type() string     { return o.typ }
func (o operand) String() string   { return o.text }
func (o operand) Truth() bool      { return o.truth }

// Equal compares as JSON shapes when both have one (tables compare
// deeply), else by identity.
func (o operand) Equal(other script.Value) (bool, error) {
	p := other.(operand)
	if o.err == nil && p.err == nil {
		return script.ShapesEqual(o.g, p.g), nil
	}
	return o.v == p.v, nil
}

// show renders a value in an assertion message.
func (in *Interp) show(L *lua.LState, v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return in.render(L, []lua.LValue{v})
}

// inlineFunc is a Kind Inline argument, called in L while the builtin
// runs. Its errors carry their bare message, without a position.
type inlineFunc struct {
	in *Interp
	L  *lua.LState
	fn *lua.LFunction
}

func (f inlineFunc) Name() string { return "function" }
func (f inlineFunc) Call(ctx context.Context, args ...any) (any, error) {
	L := f.L
	L.Push(f.fn)
	for _, a := range args {
		L.Push(f.in.mustLua(L, a))
	}
	if err := f.in.pcall(L, len(args), 0); err != nil {
		if ctx.Err() != nil {
			return nil, &script.Fatal{Err: err}
		}
		return nil, bareError{msg: bareMessage(err), err: err}
	}
	return nil, nil
}

type bareError struct {
	msg string
	err error
}

func (e bareError) Error() string { return e.msg }
func (e bareError) Unwrap() error { return e.err }

// hostObject is the Value of a script.Object's userdata.
type hostObject struct{ o script.Object }

func (h hostObject) typeName() string { return h.o.TypeName() }

// initObjectMeta makes the one metatable of every script.Object.
func (in *Interp) initObjectMeta(L *lua.LState) {
	mt := L.NewTable()
	obj := func(L *lua.LState, n int) (script.Object, bool) {
		if ud, ok := L.Get(n).(*lua.LUserData); ok {
			if h, ok := ud.Value.(hostObject); ok {
				return h.o, true
			}
		}
		return nil, false
	}
	set := func(name string, fn lua.LGFunction) { mt.RawSetString(name, L.NewFunction(fn)) }
	mt.RawSetString("__name", lua.LString("object"))
	mt.RawSetString("__metatable", lua.LString("object"))
	set("__tostring", func(L *lua.LState) int {
		o, _ := obj(L, 1)
		L.Push(lua.LString(o.String()))
		return 1
	})
	set("__index", func(L *lua.LState) int {
		o, _ := obj(L, 1)
		key := L.CheckString(2)
		v, ok, err := o.Attr(key)
		if err != nil {
			L.RaiseError("%v", err)
		}
		if !ok {
			L.RaiseError("%s has no field %q", o.TypeName(), key)
		}
		switch x := v.(type) {
		case script.Builtin:
			L.Push(L.NewFunction(in.moduleFunc(x.Name, x, true)))
		case int64:
			// t.unix_nano: exact up to 2^53, beyond that the nearest float.
			L.Push(lua.LNumber(x))
		default:
			L.Push(in.mustLua(L, v))
		}
		return 1
	})
	for _, x := range []struct{ meta, op string }{{"__add", "+"}, {"__sub", "-"}, {"__mul", "*"}, {"__div", "/"}, {"__mod", "%"}} {
		op := x.op
		set(x.meta, func(L *lua.LState) int {
			o, ok := obj(L, 1)
			other, reversed := L.Get(2), false
			if !ok {
				o, _ = obj(L, 2)
				other, reversed = L.Get(1), true
			}
			if opr, ok := o.(script.Operator); ok {
				g, err := in.toGo(other, "")
				if err == nil {
					out, ok, err := opr.Binary(op, g, reversed)
					if err != nil {
						L.RaiseError("%v", err)
					}
					if ok {
						L.Push(in.mustLua(L, out))
						return 1
					}
				}
			}
			l, r := in.operandName(L.Get(1)), in.operandName(L.Get(2))
			L.RaiseError("unknown binary op: %s %s %s", l, op, r)
			return 0
		})
	}
	compare := func(holds func(int) bool) lua.LGFunction {
		return func(L *lua.LState) int {
			a, _ := obj(L, 1)
			b, _ := obj(L, 2)
			c, ok := a.(script.Comparer)
			if !ok {
				L.RaiseError("%s values are not ordered", a.TypeName())
			}
			n, err := c.Compare(b)
			if err != nil {
				L.RaiseError("%v", err)
			}
			L.Push(lua.LBool(holds(n)))
			return 1
		}
	}
	set("__lt", compare(func(n int) bool { return n < 0 }))
	set("__le", compare(func(n int) bool { return n <= 0 }))
	set("__eq", func(L *lua.LState) int {
		a, _ := obj(L, 1)
		b, _ := obj(L, 2)
		eq := a == b
		if c, ok := a.(script.Comparer); ok {
			n, err := c.Compare(b)
			eq = err == nil && n == 0
		}
		L.Push(lua.LBool(eq))
		return 1
	})
	in.objectMeta = mt
}

// operandName names an operand's type in an operator's error.
func (in *Interp) operandName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if h, ok := ud.Value.(hostObject); ok {
			return h.o.TypeName()
		}
	}
	return v.Type().String()
}
