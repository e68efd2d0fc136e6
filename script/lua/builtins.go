package lua

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// installAPI sets the host's script API and modules in the shared
// globals, with the Lua-only print, require, argv and agentsh.
func (in *Interp) installAPI(st *state) {
	L := st.main
	g := st.predeclared
	g.RawSetString("print", L.NewFunction(in.builtinPrint))
	g.RawSetString("require", L.NewFunction(in.require))
	argv := L.CreateTable(len(in.opts.Argv), 0)
	for _, a := range in.opts.Argv {
		argv.Append(lua.LString(a))
	}
	argv.Metatable = st.arrayMeta
	g.RawSetString("argv", argv)

	agentsh := L.NewTable()
	agentsh.RawSetString("null", in.null)
	agentsh.RawSetString("array", L.NewFunction(in.builtinArray))
	g.RawSetString("agentsh", agentsh)

	for k, v := range in.opts.Globals {
		if lv, err := in.toLua(L, v); err == nil {
			g.RawSetString(k, lv)
		}
	}
	g.RawSetString("os", in.osModule(L))
	for _, b := range in.host.API() {
		g.RawSetString(b.Name, in.newFunction(L, b, nil, false))
	}
	for _, m := range in.host.Modules() {
		g.RawSetString(m.Name, in.moduleTable(L, m))
	}
	in.installBudget(L)
	if in.opts.Testing {
		in.installTesting(st)
	}
}

// newFunction shows b as a Lua function. Arguments are positional; after
// the required ones, a last table whose keys all name optional parameters
// (at or after its place) passes them by name, as in
// invoke_all(calls, {mode = "mixed"}). A builtin with Table or Keywords
// takes one table of named fields instead, as in tool{name = ...}. When
// self is set (a method), a first argument that is self is dropped, so
// m:group(1) and m.group(1) are the same call. A builtin of the API runs
// without the interpreter lock, since it may call back into scripts; a
// module member or method (held) keeps it, as script.Module allows, so
// that a loop of quick calls does not hand the interpreter to waiting
// callers at every call, and an Inline argument runs on this thread. Its
// script.Results are several results.
func (in *Interp) newFunction(L *lua.LState, b script.Builtin, self lua.LValue, held bool) *lua.LFunction {
	required := 0
	for _, p := range b.Params {
		if !p.Optional {
			required++
		}
	}
	return L.NewFunction(func(L *lua.LState) int {
		first, n := 1, L.GetTop()
		if self != nil && n >= 1 && L.Get(1) == self {
			first = 2
		}
		var named map[string]any
		if t, ok := L.Get(first).(*lua.LTable); ok && n == first && (b.Table || b.Keywords) {
			named = in.namedArgs(L, b, t)
			n--
		} else if t, ok := L.Get(n).(*lua.LTable); ok && n-first >= required && isOptions(t, b, n-first) {
			named = in.namedArgs(L, b, t)
			n--
		}
		positional := make([]any, 0, n-first+1)
		for i := first; i <= n; i++ {
			positional = append(positional, in.paramToGo(L, b, L.Get(i), i-first))
		}
		var out any
		var err error
		ctx := hostContext(L)
		if held {
			out, err = b.Call(ctx, positional, named)
		} else {
			in.unlocked(L, func() { out, err = b.Call(ctx, positional, named) })
		}
		if err != nil {
			var (
				skipped *script.Skipped
				exit    *script.Exit
			)
			if errors.As(err, &skipped) || errors.As(err, &exit) {
				in.raise(L, err) // the test runner and the CLI find it with errors.As
			}
			L.RaiseError("%v", err)
		}
		if rs, ok := out.(script.Results); ok {
			for _, r := range rs {
				L.Push(in.mustLua(L, r))
			}
			return len(rs)
		}
		lv, err := in.toLua(L, out)
		if err != nil {
			L.RaiseError("%s: result: %v", b.Name, err)
		}
		L.Push(lv)
		return 1
	})
}

// paramToGo converts the argument at position i: for an Operand or Inline
// parameter it stays a Lua value; paths inside an Any value (json.encode's)
// start at the value, not at the parameter's name.
func (in *Interp) paramToGo(L *lua.LState, b script.Builtin, v lua.LValue, i int) any {
	if i >= len(b.Params) {
		return in.argToGo(L, b.Name, v, "argument")
	}
	return in.paramValue(L, b, b.Params[i], v)
}

func (in *Interp) paramValue(L *lua.LState, b script.Builtin, p script.Param, v lua.LValue) any {
	root := p.Name
	switch p.Kind {
	case script.Any:
		root = ""
	case script.Operand:
		return in.newOperand(L, v)
	case script.Inline:
		if f, ok := v.(*lua.LFunction); ok {
			return inlineFunc{in: in, L: L, fn: f}
		}
	}
	return in.argToGo(L, b.Name, v, root)
}

func paramName(b script.Builtin, i int) string {
	if i < len(b.Params) {
		return b.Params[i].Name
	}
	return "argument"
}

// isOptions reports whether t holds named options of b for a table at
// index pos: its keys are all strings, and one names an optional
// parameter at pos or after, or the parameter at pos never takes a table
// (Call refuses the names that are not parameters, as it does in every
// language).
func isOptions(t *lua.LTable, b script.Builtin, pos int) bool {
	if pos >= len(b.Params) {
		return false
	}
	strs, named, some := true, false, false
	t.ForEach(func(k, _ lua.LValue) {
		some = true
		s, isString := k.(lua.LString)
		if !isString {
			strs = false
			return
		}
		for i, p := range b.Params {
			if p.Name == string(s) && p.Optional && i >= pos {
				named = true
			}
		}
	})
	return some && strs && (named || !takesTable(b.Params[pos].Kind))
}

// takesTable reports whether a parameter of kind k can be a table.
func takesTable(k script.Kind) bool {
	switch k {
	case script.Any, script.Dict, script.CallArgs, script.Calls, script.Tools:
		return true
	}
	return false
}

// namedArgs converts a table of named arguments.
func (in *Interp) namedArgs(L *lua.LState, b script.Builtin, t *lua.LTable) map[string]any {
	named := map[string]any{}
	t.ForEach(func(k, v lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("%s: argument names are strings, got key %s", b.Name, keyText(k))
		}
		named[string(s)] = in.namedValue(L, b, string(s), v)
	})
	return named
}

// namedValue converts the argument named name.
func (in *Interp) namedValue(L *lua.LState, b script.Builtin, name string, v lua.LValue) any {
	for _, p := range b.Params {
		if p.Name == name {
			return in.paramValue(L, b, p, v)
		}
	}
	return in.argToGo(L, b.Name, v, name)
}

// argToGo converts one argument of a builtin: as toGo, and also a
// function (a script.Func), a number that is not finite (the parameter's
// kind judges it), and a duration of the time module.
func (in *Interp) argToGo(L *lua.LState, fn string, v lua.LValue, root string) any {
	switch x := v.(type) {
	case lua.LNumber:
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return f
		}
	case *lua.LFunction:
		if r := in.stateOf(L).replica; r != nil {
			f := in.register(L, x, "") // named after the copy the caller holds
			if orig, ok := r.original(x); ok {
				f.fn = orig
			} else {
				f.stranded = true
			}
			return f
		}
		return in.register(L, x, "")
	case *lua.LUserData:
		switch u := x.Value.(type) {
		case *luaObject:
			return u.obj
		case opaqueValue:
			return u.v
		}
	}
	g, err := in.toGo(v, root)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	return g
}

// moduleTable shows m as a table of functions and values.
func (in *Interp) moduleTable(L *lua.LState, m script.Module) *lua.LTable {
	t := L.CreateTable(0, len(m.Members)+len(m.Values))
	for k, b := range m.Qualified() {
		t.RawSetString(k, in.newFunction(L, b, nil, !b.CallsScripts))
	}
	for k, v := range m.Values {
		t.RawSetString(k, in.mustLua(L, v))
	}
	if m.Name == "json" {
		t.RawSetString("null", in.null) // JSON null inside tables
	}
	return t
}

// hostContext is the context host calls run under: the call's, without
// the step budget, which counts this thread's instructions only.
func hostContext(L *lua.LState) context.Context {
	ctx := callContext(L)
	if b, ok := ctx.(*budget); ok {
		return b.Context
	}
	return ctx
}

// stdlibModules are the names require() answers from the predeclared
// modules.
var stdlibModules = map[string]bool{"json": true, "re": true, "time": true, "state": true, "string": true, "table": true, "math": true, "os": true, "coroutine": true}

func newModule(L *lua.LState, fns map[string]lua.LGFunction) *lua.LTable {
	t := L.CreateTable(0, len(fns))
	names := make([]string, 0, len(fns))
	for n := range fns {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.RawSetString(n, L.NewFunction(fns[n]))
	}
	return t
}

func (in *Interp) builtinPrint(L *lua.LState) int {
	parts := make([]string, L.GetTop())
	for i := range parts {
		parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
	}
	in.host.Print(strings.Join(parts, "\t"))
	return 0
}

// builtinArray is agentsh.array(t): marks t as a JSON array, so that an
// empty t encodes as [] rather than {}.
func (in *Interp) builtinArray(L *lua.LState) int {
	t := L.OptTable(1, nil)
	if t == nil {
		t = L.NewTable()
	}
	mark := in.stateOf(L).arrayMeta
	if t.Metatable != lua.LNil && t.Metatable != mark {
		L.RaiseError("agentsh.array: the table already has a metatable")
	}
	t.Metatable = mark
	L.Push(t)
	return 1
}

// tableKeys lists a table's string keys, sorted.
func tableKeys(t *lua.LTable) []string {
	var names []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			names = append(names, string(s))
		}
	})
	sort.Strings(names)
	return names
}

// Rename names the function after what it was registered as: a tool's
// function is known by the tool's name in messages.
func (f *luaFunc) Rename(name string) script.Func {
	return &luaFunc{in: f.in, fn: f.fn, name: name, stranded: f.stranded}
}

var _ script.Renamer = (*luaFunc)(nil)
