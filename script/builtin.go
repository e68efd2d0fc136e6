package script

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Builtin is a function a Go program adds to the script API of every
// language: the agent adds model, ask, on, provider and mcp_server this
// way. Add builtins before creating interpreters on the host; an
// interpreter sees the builtins that exist when it is made.
type Builtin struct {
	Name string
	// Params names the parameters in order; a trailing "?" marks an
	// optional one (optional parameters come last). Starlark passes them
	// by position or keyword; Lua by position, and the optional ones also
	// as a trailing table of named options, as in ask("hi", {max_turns = 3}).
	Params []string
	// Fn runs the call. Its arguments are JSON shapes, host objects, or
	// Funcs for script functions. It returns a JSON shape, a Record, or a
	// host object. It runs without holding any interpreter, so it may call
	// back into scripts.
	Fn func(ctx context.Context, args Args) (any, error)
}

// Args are a builtin call's arguments by parameter name; an optional
// parameter that was not passed is absent.
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

// Param is one parameter of a builtin.
type Param struct {
	Name     string
	Optional bool
}

// Parameters parses b.Params.
func (b Builtin) Parameters() []Param {
	ps := make([]Param, len(b.Params))
	for i, p := range b.Params {
		name, opt := strings.CutSuffix(p, "?")
		ps[i] = Param{Name: name, Optional: opt}
	}
	return ps
}

// Bind matches positional and named arguments to b's parameters, with
// messages in the style of the bindings' own errors.
func (b Builtin) Bind(positional []any, named map[string]any) (Args, error) {
	ps := b.Parameters()
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
	for _, p := range b.Parameters() {
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
