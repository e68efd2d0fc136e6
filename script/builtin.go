package script

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/stdlib"
)

// Builtin is one name of the script API, declared once as data; every
// language gets it from here. The core names (tool, before, invoke_tool,
// ...) are declared in api.go; a Go program adds more with AddBuiltin (the
// agent adds model, ask, on, provider and mcp_server this way). Add
// builtins before creating interpreters on the host; an interpreter sees
// the builtins that exist when it is made.
//
// A binding contributes only value conversion and its calling convention:
// Starlark passes arguments by position or keyword; Lua by position, with
// the optional ones also as a trailing table of named options, as in
// ask("hi", {max_turns = 3}), or as one table when Table is set, as in
// tool{name = "greet", fn = greet}.
type Builtin struct {
	Name string
	// Doc is one line for help and completion.
	Doc string
	// Params are the parameters in order; optional parameters come last.
	Params []Param
	// Table makes Lua take the arguments as one table of named fields.
	Table bool
	// Keywords makes the builtin take any named arguments (config); Params
	// is then empty and Fn gets every keyword in Args.
	Keywords bool
	// CallsScripts marks a module member that may call script functions
	// (assert.denied runs the policies' hooks): a binding runs it without
	// holding its interpreter, as it runs the top-level builtins.
	CallsScripts bool
	// Fn runs the call. Its arguments have been checked against Params and
	// converted to the Go form of each parameter's Kind. It returns a JSON
	// shape, a host object (Object, Verdict, *ResultInfo, ...), or
	// nil. It runs without holding any interpreter, so it may call back
	// into scripts.
	Fn func(ctx context.Context, args Args) (any, error)
}

// Param is one parameter of a builtin.
type Param struct {
	Name     string
	Kind     Kind
	Optional bool
	// Default is the value Fn sees when an optional parameter is not
	// passed (or passed as None/nil); nil leaves it absent.
	Default any
}

// Kind says what a parameter accepts and the Go form Fn receives.
type Kind uint8

const (
	// Any is a JSON shape or a host object, unchanged.
	Any Kind = iota
	// String is a string.
	String
	// Int is an integer that fits in an int: int.
	Int
	// Bool is a boolean: bool.
	Bool
	// OptBool is True, False or None: *bool (nil for None).
	OptBool
	// Function is a script function: Func.
	Function
	// Tools is a tool name or glob, or a non-empty list of them: []string
	// (nil when absent).
	Tools
	// Duration is a string such as "2s", a number of seconds, or a time
	// duration value: time.Duration. NaN, infinities and out-of-range
	// values are refused with the same message in every language.
	Duration
	// CallArgs is a call's arguments: a JSON shape (the pipeline refuses
	// anything but an object) or a string of raw JSON.
	CallArgs
	// Calls is invoke_all's batch: a list of (name, args[, dedup_key])
	// sequences or {"name", "args", "dedup_key"} dicts: []CallSpec.
	Calls
	// Dict is a JSON object (dict, Lua table with string keys):
	// map[string]any.
	Dict
	// Operand is any script value as its language sees it (its truth,
	// its ==, how it prints), for the assertions of script tests: Value.
	Operand
	// Inline is a script function that the builtin calls only while it
	// runs, on the caller's thread and budget; it is not kept, so it is
	// not frozen: Func. An error that ends the script however it is
	// handled (the step budget) comes back as a *Fatal.
	Inline
)

// Value is the Go form of a Kind Operand argument.
type Value = stdlib.Value

// Fatal is an error of an Inline function that the script cannot handle,
// such as the end of its step budget: assert.fails passes it on rather
// than take it for the error it expects.
type Fatal struct{ Err error }

func (f *Fatal) Error() string { return f.Err.Error() }
func (f *Fatal) Unwrap() error { return f.Err }

// Args are a builtin call's arguments by parameter name; an optional
// parameter that was not passed is absent unless it has a Default.
type Args map[string]any

// Record is a value with named fields that scripts read as attributes
// (reply.text in Starlark, reply.text in Lua).
type Record map[string]any

// AddBuiltin adds b to the script API; a builtin of the same name is
// replaced.
func (h *Host) AddBuiltin(b Builtin) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	if h.builtins == nil {
		h.builtins = map[string]Builtin{}
	}
	h.builtins[b.Name] = b
}

// Builtins returns the added builtins, sorted by name.
func (h *Host) Builtins() []Builtin {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	out := make([]Builtin, 0, len(h.builtins))
	for _, b := range h.builtins {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call runs b with arguments a binding converted: JSON shapes, host
// objects and Funcs, positional and by name. It binds them to the
// parameters, checks each against its Kind and converts it to the Kind's
// Go form, applies defaults, and runs Fn. Every language reports a bad
// argument with the same message, made here.
func (b Builtin) Call(ctx context.Context, positional []any, named map[string]any) (any, error) {
	args, err := b.Bind(positional, named)
	if err != nil {
		return nil, err
	}
	if b.Keywords {
		for k, v := range args {
			if f, ok := v.(Func); ok {
				return nil, fmt.Errorf("%s: %s got %s, want a value", b.Name, k, describe(f))
			}
		}
	}
	for _, p := range b.Params {
		v, ok := args[p.Name]
		if !ok || v == nil && p.Kind != Any && p.Kind != Operand {
			if !p.Optional {
				return nil, fmt.Errorf("%s: %s got nothing, want %s", b.Name, p.Name, p.Kind.want())
			}
			delete(args, p.Name)
			if p.Default != nil {
				args[p.Name] = p.Default
			}
			continue
		}
		g, err := p.Kind.convert(v)
		if e, ok := err.(elemError); ok {
			return nil, fmt.Errorf("%s: %w", b.Name, e.error)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %w", b.Name, p.Name, err)
		}
		args[p.Name] = g
	}
	return b.Fn(ctx, args)
}

// Bind matches positional and named arguments to b's parameters, with
// messages in the style of the bindings' own errors. It does not check
// kinds; Call does.
func (b Builtin) Bind(positional []any, named map[string]any) (Args, error) {
	if b.Keywords {
		if len(positional) > 0 {
			return nil, fmt.Errorf("%s: takes only named arguments, got %d positional", b.Name, len(positional))
		}
		args := make(Args, len(named))
		for k, v := range named {
			args[k] = v
		}
		return args, nil
	}
	ps := b.Params
	if len(positional) > len(ps) {
		return nil, fmt.Errorf("%s: got %d arguments, want at most %d", b.Name, len(positional), len(ps))
	}
	args := Args{}
	for i, v := range positional {
		args[ps[i].Name] = v
	}
	for k, v := range named {
		found := false
		for _, p := range ps {
			if p.Name == k {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: unexpected argument %q; the parameters are %s", b.Name, k, strings.Join(b.names(), ", "))
		}
		if _, dup := args[k]; dup {
			return nil, fmt.Errorf("%s: argument %q given twice", b.Name, k)
		}
		args[k] = v
	}
	for _, p := range ps {
		if _, ok := args[p.Name]; !ok && !p.Optional {
			return nil, fmt.Errorf("%s: missing argument %q", b.Name, p.Name)
		}
	}
	return args, nil
}

func (b Builtin) names() []string {
	var out []string
	for _, p := range b.Params {
		out = append(out, p.Name)
	}
	return out
}

// String returns the argument as a string, or an error naming it.
func (a Args) String(fn, name string) (string, error) {
	v, ok := a[name]
	if !ok {
		return "", nil
	}
	s, isString := v.(string)
	if !isString {
		return "", fmt.Errorf("%s: %s must be a string, got %s", fn, name, describe(v))
	}
	return s, nil
}

// Int returns the argument as an int (def when absent), or an error.
func (a Args) Int(fn, name string, def int) (int, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return def, nil
	}
	if n, isInt := v.(int); isInt {
		return n, nil // converted by the Int kind
	}
	n, isInt := v.(int64)
	if !isInt || n < -1<<31 || n > 1<<31-1 {
		return 0, fmt.Errorf("%s: %s must be an integer, got %s", fn, name, display(v))
	}
	return int(n), nil
}

// Func returns the argument as a script function, or an error.
func (a Args) Func(fn, name string) (Func, error) {
	f, ok := a[name].(Func)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be a function, got %s", fn, name, describe(a[name]))
	}
	return f, nil
}

// AddModule adds m to the modules every interpreter on the host shows; a
// module of the same name (json, re, time, state or an added one) is
// replaced.
func (h *Host) AddModule(m Module) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	if h.modules == nil {
		h.modules = map[string]Module{}
	}
	h.modules[m.Name] = m
}

// Modules returns the modules of every script on h, sorted by name: json,
// re, time and state, and the modules a Go program added.
func (h *Host) Modules() []Module {
	byName := map[string]Module{}
	for _, m := range h.coreModules() {
		byName[m.Name] = m
	}
	h.cfgMu.Lock()
	for _, m := range h.modules {
		byName[m.Name] = m
	}
	h.cfgMu.Unlock()
	out := make([]Module, 0, len(byName))
	for _, m := range byName {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Qualified returns the module's members named as scripts write them in
// messages (json.encode), keyed by the name after the dot.
func (m Module) Qualified() map[string]Builtin {
	out := make(map[string]Builtin, len(m.Members))
	for _, b := range m.Members {
		q := b
		q.Name = m.Name + "." + b.Name
		out[b.Name] = q
	}
	return out
}
