package starlark

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/agentsh/agentsh/script"
	"go.starlark.net/lib/math"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// builtins returns the predeclared names of every script: the host's
// script API and modules, and the Starlark-only struct, math and argv.
func (in *Interp) builtins() star.StringDict {
	argv := make([]star.Value, len(in.opts.Argv))
	for i, a := range in.opts.Argv {
		argv[i] = star.String(a)
	}
	argvList := star.NewList(argv)
	argvList.Freeze()
	d := star.StringDict{
		"struct": star.NewBuiltin("struct", starlarkstruct.Make),
		"argv":   argvList,
		"math":   math.Module,
	}
	for k, v := range in.opts.Globals {
		if sv, err := fromGo(v); err == nil {
			sv.Freeze()
			d[k] = sv
		}
	}
	for _, b := range in.host.API() {
		d[b.Name] = newBuiltin(b)
	}
	for _, m := range in.host.Modules() {
		d[m.Name] = newModuleValue(m)
	}
	if in.opts.Testing {
		for k, v := range in.testingBuiltins() {
			d[k] = v
		}
	}
	d.Freeze()
	return d
}

// Names returns the predeclared names, for completion.
func (in *Interp) Names() []string { return in.predeclared.Keys() }

// interpKey is the thread local holding the Interp, which turns the
// functions a builtin is given into script.Funcs.
const interpKey = "agentsh.interp"

// newBuiltin shows b as a Starlark built-in: arguments by position or
// keyword, converted to host values; script.Builtin.Call does the rest.
func newBuiltin(b script.Builtin) *star.Builtin {
	return star.NewBuiltin(b.Name, func(t *star.Thread, _ *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		in, _ := t.Local(interpKey).(*Interp)
		positional := make([]any, len(args))
		for i, v := range args {
			g, err := in.paramToGo(t, v, paramName(b, i), paramAt(b, i))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name, err)
			}
			positional[i] = g
		}
		var named map[string]any
		if len(kwargs) > 0 {
			named = make(map[string]any, len(kwargs))
			for _, kv := range kwargs {
				k := string(kv[0].(star.String))
				g, err := in.paramToGo(t, kv[1], k, paramNamed(b, k))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", b.Name, err)
				}
				named[k] = g
			}
		}
		out, err := b.Call(threadContext(t), positional, named)
		if err != nil {
			return nil, err
		}
		v, err := fromGo(out)
		if err != nil {
			return nil, fmt.Errorf("%s: result: %w", b.Name, err)
		}
		return v, nil
	})
}

func paramName(b script.Builtin, i int) string {
	if i < len(b.Params) {
		return b.Params[i].Name
	}
	return "argument"
}

// paramAt and paramNamed find the parameter an argument is for, or nil.
func paramAt(b script.Builtin, i int) *script.Param {
	if i < len(b.Params) {
		return &b.Params[i]
	}
	return nil
}

func paramNamed(b script.Builtin, name string) *script.Param {
	for i := range b.Params {
		if b.Params[i].Name == name {
			return &b.Params[i]
		}
	}
	return nil
}

// paramToGo converts an argument for a parameter of kind k: an Operand
// or Inline argument stays a Starlark value, anything else is converted
// by argToGo. Paths inside an Any value (json.encode's) start at the
// value, not at the parameter's name.
func (in *Interp) paramToGo(t *star.Thread, v star.Value, root string, p *script.Param) (any, error) {
	if p == nil {
		return in.argToGo(v, root)
	}
	switch p.Kind {
	case script.Any:
		root = ""
	case script.Operand:
		return operand{v}, nil
	case script.Inline:
		if c, ok := v.(star.Callable); ok {
			return inlineFunc{in: in, t: t, c: c}, nil
		}
	}
	return in.argToGo(v, root)
}

// newModuleValue shows m as a Starlark module: m.encode(...), m.CONSTANT.
func newModuleValue(m script.Module) *starlarkstruct.Module {
	mv := &starlarkstruct.Module{Name: m.Name, Members: star.StringDict{}}
	for k, b := range m.Qualified() {
		mv.Members[k] = newBuiltin(b)
	}
	for k, v := range m.Values {
		sv, err := fromGo(v)
		if err != nil {
			sv = star.String(fmt.Sprintf("<%s.%s: %v>", m.Name, k, err))
		}
		mv.Members[k] = sv
	}
	mv.Members.Freeze()
	return mv
}

// argToGo converts one argument of a builtin: as toGo, and also a
// function (a script.Func, frozen only if the builtin keeps it), a float
// that is not finite (the parameter's kind judges it), and a duration of
// the time module.
func (in *Interp) argToGo(v star.Value, root string) (any, error) {
	switch x := v.(type) {
	case star.Float:
		return float64(x), nil
	case *objectValue, *callableValue, *opaqueValue:
	case star.Callable:
		if in == nil {
			return nil, fmt.Errorf("%s: functions cannot be passed here", root)
		}
		return &scriptFunc{in: in, fn: x, name: funcName(x)}, nil
	}
	return toGo(v, root)
}

// Share freezes the function and the globals it sees, so that it can run
// on any goroutine: the host is keeping it.
func (f *scriptFunc) Share() {
	f.fn.Freeze()
	if g, ok := f.fn.(*star.Function); ok {
		g.Globals().Freeze()
		f.in.froze.Store(true)
	}
}

var _ script.Sharer = (*scriptFunc)(nil)

// sharedHint explains a frozen-value error in a call that was passed
// shared values (script.Shared), which Starlark freezes: a model
// function's messages.
const sharedHint = "; the messages a model function gets are shared from turn to turn and frozen: change a copy, such as dict(message) or list(messages)"

// explainShared adds sharedHint to err when it is about a frozen value
// and the call's arguments hold shared values.
func explainShared(err error, args []any) error {
	var ee *star.EvalError
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "frozen") || strings.Contains(ee.Msg, sharedHint) || !passesShared(args) {
		return err
	}
	ee.Msg += sharedHint
	return err
}

// passesShared reports whether args hold a script.Shared, a
// script.SharedList, or a list of Shared values.
func passesShared(args []any) bool {
	for _, a := range args {
		switch x := a.(type) {
		case *script.Shared, script.SharedList:
			return true
		case []any:
			for _, e := range x {
				if _, ok := e.(*script.Shared); ok {
					return true
				}
			}
		}
	}
	return false
}

// frozenHint explains a frozen-value error after a registration froze the
// module's globals, which scripts do not expect.
const frozenHint = "; registering a function (tool, before, after, middleware, ...) froze this file's globals: keep mutable data in state (state.set, state.get) or in a local variable"

// explainFrozen adds frozenHint to err when it is about a frozen value and
// a registration has frozen globals.
func (in *Interp) explainFrozen(err error) error {
	var ee *star.EvalError
	if err == nil || !in.froze.Load() || !errors.As(err, &ee) || !strings.Contains(ee.Msg, "frozen") || strings.Contains(ee.Msg, frozenHint) {
		return err
	}
	ee.Msg += frozenHint
	return err
}

// frozenFlag records whether a registration froze globals.
type frozenFlag = atomic.Bool
