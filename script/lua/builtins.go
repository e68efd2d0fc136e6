package lua

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// installAPI sets the agentsh functions and modules in the shared globals.
func (in *Interp) installAPI(L *lua.LState) {
	g := in.predeclared
	fns := map[string]lua.LGFunction{
		"tool":            in.builtinTool,
		"before":          in.hookBuiltin("before", in.host.Before),
		"after":           in.hookBuiltin("after", in.host.After),
		"middleware":      in.builtinMiddleware,
		"deny":            in.builtinDeny,
		"rewrite":         in.builtinRewrite,
		"invoke_tool":     in.builtinInvokeTool,
		"invoke_all":      in.builtinInvokeAll,
		"tool_names":      in.builtinToolNames,
		"get_tool":        in.builtinGetTool,
		"unregister_tool": in.builtinUnregisterTool,
		"config":          in.builtinConfig,
		"dual":            in.builtinDual,
		"silent":          in.builtinSilent,
		"timeout":         in.builtinTimeout,
		"retry":           in.builtinRetry,
		"print":           in.builtinPrint,
		"require":         in.require,
	}
	for name, fn := range fns {
		g.RawSetString(name, L.NewFunction(fn))
	}
	argv := L.CreateTable(len(in.opts.Argv), 0)
	for _, a := range in.opts.Argv {
		argv.Append(lua.LString(a))
	}
	argv.Metatable = in.arrayMeta
	g.RawSetString("argv", argv)

	agentsh := L.NewTable()
	agentsh.RawSetString("null", in.null)
	agentsh.RawSetString("array", L.NewFunction(in.builtinArray))
	g.RawSetString("agentsh", agentsh)

	g.RawSetString("os", in.osModule(L))
	for _, m := range in.host.Modules() {
		t := in.newModuleTable(L, m)
		if m.Name == "json" {
			t.RawSetString("null", in.null) // JSON null inside tables
		}
		g.RawSetString(m.Name, t)
	}
	for _, b := range in.host.Builtins() {
		g.RawSetString(b.Name, L.NewFunction(in.hostBuiltin(b)))
	}
	if in.opts.Testing {
		in.installTesting(L)
	}
}

// hostBuiltin exposes a builtin a Go program added to the host. Arguments
// are positional; after the required ones, a last table whose keys all
// name optional parameters passes them by name, as in
// ask("hi", {max_turns = 3}). Lua functions among the arguments become
// script.Funcs. The builtin runs without the interpreter lock, since it
// may call back into scripts.
func (in *Interp) hostBuiltin(b script.Builtin) lua.LGFunction {
	params := b.Params
	required := 0
	optional := map[string]bool{}
	for _, p := range params {
		if p.Optional {
			optional[p.Name] = true
		} else {
			required++
		}
	}
	return func(L *lua.LState) int {
		n := L.GetTop()
		var named map[string]any
		if t, ok := L.Get(n).(*lua.LTable); ok && n > required && n <= len(params) && isOptions(t, optional) {
			named = map[string]any{}
			t.ForEach(func(k, v lua.LValue) {
				named[string(k.(lua.LString))] = in.builtinArg(L, b.Name, v, string(k.(lua.LString)))
			})
			n--
		}
		positional := make([]any, n)
		for i := range positional {
			name := "argument"
			if i < len(params) {
				name = params[i].Name
			}
			positional[i] = in.builtinArg(L, b.Name, L.Get(i+1), name)
		}
		args, err := b.Bind(positional, named)
		if err != nil {
			L.RaiseError("%v", err)
		}
		var out any
		in.unlocked(func() { out, err = b.Fn(L.Context(), args) })
		if err != nil {
			L.RaiseError("%v", err)
		}
		if r, ok := out.(script.Record); ok {
			out = map[string]any(r)
		}
		lv, err := in.toLua(L, out)
		if err != nil {
			L.RaiseError("%s: result: %v", b.Name, err)
		}
		L.Push(lv)
		return 1
	}
}

// isOptions reports whether every key of t names an optional parameter.
func isOptions(t *lua.LTable, optional map[string]bool) bool {
	ok, any := true, false
	t.ForEach(func(k, _ lua.LValue) {
		any = true
		if s, isString := k.(lua.LString); !isString || !optional[string(s)] {
			ok = false
		}
	})
	return ok && any
}

// builtinArg converts one argument of a host builtin.
func (in *Interp) builtinArg(L *lua.LState, fn string, v lua.LValue, name string) any {
	if f, ok := v.(*lua.LFunction); ok {
		return in.register(L, f, "")
	}
	g, err := in.toGo(v, name)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	return g
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

// fields reads a table of named options, refusing names not in allowed so
// that a misspelt option is an error rather than ignored.
func fields(L *lua.LState, fn string, t *lua.LTable, allowed ...string) map[string]lua.LValue {
	out := map[string]lua.LValue{}
	t.ForEach(func(k, v lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok || !contains(allowed, string(s)) {
			L.RaiseError("%s: unexpected key %s; the keys are %s", fn, keyText(k), strings.Join(allowed, ", "))
		}
		out[string(s)] = v
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (in *Interp) builtinPrint(L *lua.LState) int {
	parts := make([]string, L.GetTop())
	for i := range parts {
		parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
	}
	in.host.Print(strings.Join(parts, "\t"))
	return 0
}

// builtinTool is tool{name=..., fn=..., description=..., parameters=...,
// concurrency_safe=..., idempotent=..., replace=...}.
func (in *Interp) builtinTool(L *lua.LState) int {
	spec := L.CheckTable(1)
	f := fields(L, "tool", spec, "name", "fn", "description", "parameters", "concurrency_safe", "idempotent", "replace")
	name, ok := f["name"].(lua.LString)
	if !ok {
		L.RaiseError("tool: name must be a string, got %s", typeName(orNil(f["name"])))
	}
	fn, ok := f["fn"].(*lua.LFunction)
	if !ok {
		L.RaiseError("tool %q: fn must be a function(args), got %s", string(name), typeName(orNil(f["fn"])))
	}
	ts := script.ToolSpec{Name: string(name)}
	if d := f["description"]; d != nil {
		s, ok := d.(lua.LString)
		if !ok {
			L.RaiseError("tool %q: description must be a string, got %s", string(name), typeName(d))
		}
		ts.Description = string(s)
	}
	if p := f["parameters"]; p != nil {
		v, err := in.toGo(p, "parameters")
		if err != nil {
			L.RaiseError("tool %q: %v", string(name), err)
		}
		ts.Parameters = v
	}
	if s := f["concurrency_safe"]; s != nil {
		b, ok := s.(lua.LBool)
		if !ok {
			L.RaiseError("tool %q: concurrency_safe must be true, false or nil, got %s", string(name), typeName(s))
		}
		v := bool(b)
		ts.ConcurrencySafe = &v
	}
	ts.Idempotent = boolField(L, "tool", f, "idempotent")
	ts.Replace = boolField(L, "tool", f, "replace")
	ts.Fn = in.register(L, fn, string(name))
	if err := in.host.DefineTool(ts); err != nil {
		L.RaiseError("%v", err)
	}
	return 0
}

func orNil(v lua.LValue) lua.LValue {
	if v == nil {
		return lua.LNil
	}
	return v
}

func boolField(L *lua.LState, fn string, f map[string]lua.LValue, name string) bool {
	v := f[name]
	if v == nil {
		return false
	}
	b, ok := v.(lua.LBool)
	if !ok {
		L.RaiseError("%s: %s must be true or false, got %s", fn, name, typeName(v))
	}
	return bool(b)
}

// hookOptions reads the optional second argument of before, after and
// middleware: {tools = ..., name = ...}, a tool name, or a list of them.
func hookOptions(L *lua.LState, fn string) (tools []string, name string) {
	switch o := L.Get(2).(type) {
	case *lua.LNilType:
		return nil, ""
	case lua.LString:
		return []string{string(o)}, ""
	case *lua.LTable:
		if o.RawGetInt(1) != lua.LNil {
			o.ForEach(func(k, _ lua.LValue) {
				if _, isIndex := k.(lua.LNumber); !isIndex {
					L.RaiseError("%s: options are a list of tools or {tools = {...}, name = ...}, not both (found key %s)", fn, keyText(k))
				}
			})
			return stringList(L, fn, "tools", o), ""
		}
		f := fields(L, fn, o, "tools", "name")
		switch t := f["tools"].(type) {
		case nil:
		case lua.LString:
			tools = []string{string(t)}
		case *lua.LTable:
			tools = stringList(L, fn, "tools", t)
		default:
			L.RaiseError("%s: tools must be a tool name or a list of names and globs, got %s", fn, typeName(t))
		}
		if n := f["name"]; n != nil {
			s, ok := n.(lua.LString)
			if !ok {
				L.RaiseError("%s: name must be a string, got %s", fn, typeName(n))
			}
			name = string(s)
		}
		return tools, name
	}
	L.RaiseError("%s: options must be {tools = {...}}, got %s", fn, typeName(L.Get(2)))
	return nil, ""
}

func stringList(L *lua.LState, fn, what string, t *lua.LTable) []string {
	var out []string
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			L.RaiseError("%s: %s must be strings, got %s", fn, what, typeName(t.RawGetInt(i)))
		}
		out = append(out, string(s))
	}
	if len(out) == 0 {
		L.RaiseError("%s: %s is an empty list; omit it for a global hook", fn, what)
	}
	return out
}

// hookBuiltin returns before or after: fn registered with add.
func (in *Interp) hookBuiltin(fname string, add func(script.Func, []string) error) lua.LGFunction {
	return func(L *lua.LState) int {
		fn, ok := L.Get(1).(*lua.LFunction)
		if !ok {
			L.RaiseError("%s: want a function, got %s", fname, typeName(L.Get(1)))
		}
		tools, name := hookOptions(L, fname)
		if err := add(in.register(L, fn, name), tools); err != nil {
			L.RaiseError("%v", err)
		}
		return 0
	}
}

func (in *Interp) builtinMiddleware(L *lua.LState) int {
	tools, name := hookOptions(L, "middleware")
	switch m := L.Get(1).(type) {
	case *lua.LFunction:
		if err := in.host.Middleware(in.register(L, m, name), tools); err != nil {
			L.RaiseError("%v", err)
		}
		return 0
	case *lua.LUserData:
		if mw, ok := m.Value.(core.Middleware); ok {
			if err := in.host.UseMiddleware(mw, tools); err != nil {
				L.RaiseError("%v", err)
			}
			return 0
		}
	}
	L.RaiseError("middleware: want a function(call, next) or timeout(...)/retry(...), got %s", typeName(L.Get(1)))
	return 0
}

func (in *Interp) value(L *lua.LState, v any) int {
	L.Push(in.newObject(L, v, in.valueMeta))
	return 1
}

func (in *Interp) builtinDeny(L *lua.LState) int {
	return in.value(L, script.Deny{Reason: L.CheckString(1)})
}

func (in *Interp) builtinRewrite(L *lua.LState) int {
	v := in.checkGo(L, 1, "rewrite", "args")
	m, ok := v.(map[string]any)
	if !ok {
		L.RaiseError("rewrite: want a table of arguments, got %s", typeName(L.Get(1)))
	}
	return in.value(L, script.Rewrite{Args: m})
}

func (in *Interp) builtinDual(L *lua.LState) int {
	return in.value(L, core.DualToolOutput{ForLLM: L.CheckString(1), ForUser: L.CheckString(2)})
}

func (in *Interp) builtinSilent(L *lua.LState) int {
	return in.value(L, core.SilentResult{ForLLM: L.CheckString(1)})
}

// argsValue converts invoke_tool's args: a table (the pipeline refuses
// anything but an object), a string of raw JSON, or nil.
func (in *Interp) argsValue(L *lua.LState, v lua.LValue, path string) (any, error) {
	if s, ok := v.(lua.LString); ok {
		return string(s), nil
	}
	return in.toGo(v, path)
}

// builtinInvokeTool is invoke_tool(name [, args [, {dedup_key = ...}]]).
func (in *Interp) builtinInvokeTool(L *lua.LState) int {
	name := L.CheckString(1)
	args, err := in.argsValue(L, L.Get(2), "args")
	if err != nil {
		L.RaiseError("invoke_tool %s: %v", name, err)
	}
	var dedup string
	switch o := L.Get(3).(type) {
	case *lua.LNilType:
	case lua.LString:
		dedup = string(o)
	case *lua.LTable:
		if k, ok := fields(L, "invoke_tool", o, "dedup_key")["dedup_key"]; ok {
			s, isString := k.(lua.LString)
			if !isString {
				L.RaiseError("invoke_tool: dedup_key must be a string, got %s", typeName(k))
			}
			dedup = string(s)
		}
	default:
		L.RaiseError("invoke_tool: options must be {dedup_key = \"...\"}, got %s", typeName(o))
	}
	var res *script.ResultInfo
	in.unlocked(func() { res, err = in.host.InvokeTool(L.Context(), name, args, dedup) })
	if err != nil {
		L.RaiseError("invoke_tool %s: %v", name, err)
	}
	L.Push(in.newObject(L, res, in.resultMeta))
	return 1
}

// builtinInvokeAll is invoke_all(calls [, {mode = ..., concurrency = ...}]).
func (in *Interp) builtinInvokeAll(L *lua.LState) int {
	calls := L.CheckTable(1)
	mode, concurrency := "", -1
	if o, ok := L.Get(2).(*lua.LTable); ok {
		f := fields(L, "invoke_all", o, "mode", "concurrency")
		if m := f["mode"]; m != nil {
			s, ok := m.(lua.LString)
			if !ok {
				L.RaiseError("invoke_all: mode must be a string, got %s", typeName(m))
			}
			mode = string(s)
		}
		if c := f["concurrency"]; c != nil {
			n, ok := c.(lua.LNumber)
			if !ok || float64(n) != math.Trunc(float64(n)) || n < 0 || n > math.MaxInt32 {
				L.RaiseError("invoke_all: concurrency got %s, want 0 (the default, %d at a time) or more", lua.LVAsString(c), executor.DefaultConcurrency)
			}
			concurrency = int(n)
		}
	} else if L.Get(2) != lua.LNil {
		L.RaiseError("invoke_all: options must be {mode = ..., concurrency = ...}, got %s", typeName(L.Get(2)))
	}
	specs := make([]script.CallSpec, 0, calls.Len())
	for i := 1; i <= calls.Len(); i++ {
		specs = append(specs, in.callSpec(L, calls.RawGetInt(i), i))
	}
	var results []*script.ResultInfo
	var err error
	in.unlocked(func() { results, err = in.host.InvokeAll(L.Context(), specs, mode, concurrency) })
	if err != nil {
		L.RaiseError("invoke_all: %v", err)
	}
	out := L.CreateTable(len(results), 0)
	for _, r := range results {
		out.Append(in.newObject(L, r, in.resultMeta))
	}
	out.Metatable = in.arrayMeta
	L.Push(out)
	return 1
}

// callSpec accepts {name, args [, dedup_key]} or {name = ..., args = ...,
// dedup_key = ...}.
func (in *Interp) callSpec(L *lua.LState, v lua.LValue, i int) script.CallSpec {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("invoke_all: calls[%d]: want {name, args} or {name = ..., args = ...}, got %s", i, typeName(v))
	}
	var name, args, dedup lua.LValue
	if first := t.RawGetInt(1); first != lua.LNil {
		name, args, dedup = first, t.RawGetInt(2), t.RawGetInt(3)
	} else {
		f := fields(L, fmt.Sprintf("invoke_all: calls[%d]", i), t, "name", "args", "dedup_key")
		name, args, dedup = orNil(f["name"]), orNil(f["args"]), orNil(f["dedup_key"])
	}
	s, ok := name.(lua.LString)
	if !ok {
		L.RaiseError("invoke_all: calls[%d]: tool name must be a string, got %s", i, typeName(name))
	}
	spec := script.CallSpec{Name: string(s)}
	a, err := in.argsValue(L, args, fmt.Sprintf("calls[%d].args", i))
	if err != nil {
		L.RaiseError("invoke_all: %v", err)
	}
	spec.Args = a
	switch d := dedup.(type) {
	case *lua.LNilType:
	case lua.LString:
		spec.DedupKey = string(d)
	default:
		L.RaiseError("invoke_all: calls[%d]: dedup key must be a string, got %s", i, typeName(d))
	}
	return spec
}

func (in *Interp) builtinToolNames(L *lua.LState) int {
	L.Push(in.mustLua(L, in.host.ToolNames()))
	return 1
}

func (in *Interp) builtinGetTool(L *lua.LState) int {
	info := in.host.GetTool(L.CheckString(1))
	if info == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(in.mustLua(L, info))
	return 1
}

func (in *Interp) builtinUnregisterTool(L *lua.LState) int {
	if err := in.host.UnregisterTool(L.CheckString(1)); err != nil {
		L.RaiseError("%v", err)
	}
	return 0
}

// builtinConfig is config{name = value, ...}: every key is a host setting.
// It returns all settings.
func (in *Interp) builtinConfig(L *lua.LState) int {
	update := map[string]any{}
	switch t := L.Get(1).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		v, err := in.toGo(t, "")
		if err != nil {
			L.RaiseError("config: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			L.RaiseError("config: settings are named, as in config{mode = \"mixed\"}")
		}
		update = m
	default:
		L.RaiseError("config: settings are named, as in config{mode = \"mixed\"}, got %s", typeName(t))
	}
	cur, err := in.host.Config(update)
	if err != nil {
		L.RaiseError("config: %v", err)
	}
	L.Push(in.mustLua(L, cur))
	return 1
}

// durationArg accepts "2s"-style strings, time durations and numbers of
// seconds.
func durationArg(L *lua.LState, fn string, v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		f := float64(x) * float64(time.Second)
		if f >= math.MaxInt64 || f <= math.MinInt64 || math.IsNaN(f) {
			L.RaiseError("%s: %v seconds is out of range (at most about 292 years)", fn, x)
		}
		return time.Duration(f).String()
	case *lua.LUserData:
		if h, ok := x.Value.(hostObject); ok {
			if d, ok := h.o.(script.DurationValue); ok {
				return time.Duration(d).String()
			}
		}
	}
	L.RaiseError("%s: want a duration such as \"2s\" or a number of seconds, got %s", fn, typeName(v))
	return ""
}

func (in *Interp) builtinTimeout(L *lua.LState) int {
	mw, err := script.Timeout(durationArg(L, "timeout", L.Get(1)))
	if err != nil {
		L.RaiseError("%v", err)
	}
	return in.value(L, mw)
}

// builtinRetry is retry{attempts = 3, backoff = "50ms"} or retry(3, "50ms").
func (in *Interp) builtinRetry(L *lua.LState) int {
	attempts, backoff := lua.LValue(lua.LNumber(3)), lua.LValue(lua.LNil)
	switch o := L.Get(1).(type) {
	case *lua.LTable:
		f := fields(L, "retry", o, "attempts", "backoff")
		if a := f["attempts"]; a != nil {
			attempts = a
		}
		backoff = orNil(f["backoff"])
	case *lua.LNilType:
	default:
		attempts, backoff = o, L.Get(2)
	}
	n, ok := attempts.(lua.LNumber)
	if !ok || float64(n) != math.Trunc(float64(n)) || math.Abs(float64(n)) > math.MaxInt32 {
		L.RaiseError("retry: attempts must be an integer, got %s", lua.LVAsString(attempts))
	}
	var b string
	if backoff != lua.LNil {
		b = durationArg(L, "retry", backoff)
	}
	mw, err := script.Retry(int(n), b)
	if err != nil {
		L.RaiseError("%v", err)
	}
	return in.value(L, mw)
}

// builtinArray is agentsh.array(t): marks t as a JSON array, so that an
// empty t encodes as [] rather than {}.
func (in *Interp) builtinArray(L *lua.LState) int {
	t := L.OptTable(1, nil)
	if t == nil {
		t = L.NewTable()
	}
	if t.Metatable != lua.LNil && t.Metatable != in.arrayMeta {
		L.RaiseError("agentsh.array: the table already has a metatable")
	}
	t.Metatable = in.arrayMeta
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
