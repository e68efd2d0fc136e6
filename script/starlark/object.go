package starlark

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"unsafe"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// Modules and host objects, the same for every one: a script.Module is a
// module of builtins, a script.Object one generic value.

// newModuleValue makes m a Starlark module.
func newModuleValue(m script.Module) *starlarkstruct.Module {
	mod := &starlarkstruct.Module{Name: m.Name, Members: star.StringDict{}}
	for _, b := range m.Members {
		mod.Members[b.Name] = builtinValue(m.Name+"."+b.Name, b)
	}
	for k, v := range m.Values {
		sv, err := fromGo(v)
		if err != nil {
			panic(fmt.Sprintf("module %s: value %s: %v", m.Name, k, err))
		}
		mod.Members[k] = sv
	}
	mod.Members.Freeze()
	return mod
}

// builtinValue is b as a Starlark builtin named name: arguments by
// position or keyword, converted to the Go form of each Kind.
func builtinValue(name string, b script.Builtin) *star.Builtin {
	b.Name = name
	return star.NewBuiltin(name, func(t *star.Thread, _ *star.Builtin, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
		positional := make([]any, len(args))
		for i, v := range args {
			positional[i] = v
		}
		named := make(map[string]any, len(kwargs))
		for _, kv := range kwargs {
			named[string(kv[0].(star.String))] = kv[1]
		}
		bound, err := b.Bind(positional, named)
		if err != nil {
			return nil, err
		}
		goArgs := script.Args{}
		for _, p := range b.Params {
			v, ok := bound[p.Name]
			if ok && (v != star.None || p.Kind == script.Any || p.Kind == script.Operand) {
				g, err := argument(t, name, p, v.(star.Value))
				if err != nil {
					return nil, err
				}
				goArgs[p.Name] = g
			} else if p.Default != nil {
				goArgs[p.Name] = p.Default
			}
		}
		out, err := b.Fn(threadContext(t), goArgs)
		if err != nil {
			return nil, err
		}
		v, err := fromGo(out)
		if err != nil {
			return nil, fmt.Errorf("%s: result: %w", name, err)
		}
		return v, nil
	})
}

// argument converts v to the Go form of p's Kind.
func argument(t *star.Thread, fn string, p script.Param, v star.Value) (any, error) {
	switch p.Kind {
	case script.String:
		if s, ok := v.(star.String); ok {
			return string(s), nil
		}
		return nil, fmt.Errorf("%s: for parameter %s: got %s, want string", fn, p.Name, v.Type())
	case script.Int:
		if i, ok := v.(star.Int); ok {
			if n, ok := i.Int64(); ok && n == int64(int(n)) {
				return int(n), nil
			}
		}
		return nil, fmt.Errorf("%s: for parameter %s: got %s, want int", fn, p.Name, v.Type())
	case script.Operand:
		return operand{v}, nil
	case script.Inline:
		c, ok := v.(star.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: for parameter %s: got %s, want function", fn, p.Name, v.Type())
		}
		return inlineFunc{t: t, c: c}, nil
	}
	g, err := toGo(v, "") // paths inside the value, as in json.encode: ["a"][0]: ...
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return g, nil
}

// operand is a Kind Operand argument: v as Starlark sees it.
type operand struct{ v star.Value }

func (o operand) Go() (any, error) { return toGo(o.v, "") }
func (o operand) Type() string     { return o.v.Type() }
func (o operand) String() string   { return o.v.String() }
func (o operand) Truth() bool      { return bool(o.v.Truth()) }
func (o operand) Equal(other script.Value) (bool, error) {
	return star.Equal(o.v, other.(operand).v)
}

// inlineFunc is a Kind Inline argument: c called on the caller's thread,
// within its budget. Its errors carry their bare message, without a
// position; the end of the budget or the context is a *script.Fatal.
type inlineFunc struct {
	t *star.Thread
	c star.Callable
}

func (f inlineFunc) Name() string { return f.c.Name() }
func (f inlineFunc) Call(_ context.Context, args ...any) (any, error) {
	sargs := make(star.Tuple, len(args))
	for i, a := range args {
		v, err := fromGo(a)
		if err != nil {
			return nil, err
		}
		sargs[i] = v
	}
	v, err := star.Call(f.t, f.c, sargs, nil)
	if err != nil {
		if max, _ := f.t.Local(maxStepsKey).(uint64); threadContext(f.t).Err() != nil || (max > 0 && f.t.ExecutionSteps() >= max) {
			return nil, &script.Fatal{Err: err}
		}
		var ee *star.EvalError
		if errors.As(err, &ee) {
			return nil, bareError{msg: ee.Msg, err: ee.Unwrap()}
		}
		return nil, err
	}
	return toGo(v, "result")
}

// bareError is an error's message without its position, keeping the
// error it wraps reachable.
type bareError struct {
	msg string
	err error
}

func (e bareError) Error() string { return e.msg }
func (e bareError) Unwrap() error { return e.err }

// objectValue shows a script.Object: attributes with a dot, and the
// operators, comparisons and calls the Object offers.
type objectValue struct{ o script.Object }

var (
	_ star.HasAttrs   = (*objectValue)(nil)
	_ star.HasBinary  = (*objectValue)(nil)
	_ star.Comparable = (*objectValue)(nil)
)

func (v *objectValue) String() string   { return v.o.String() }
func (v *objectValue) Type() string     { return v.o.TypeName() }
func (v *objectValue) Freeze()          {}
func (v *objectValue) Truth() star.Bool { return true }
func (v *objectValue) Hash() (uint32, error) {
	return 0, fmt.Errorf("unhashable type: %s", v.o.TypeName())
}
func (v *objectValue) AttrNames() []string {
	names := append([]string(nil), v.o.AttrNames()...)
	sort.Strings(names)
	return names
}

func (v *objectValue) Attr(name string) (star.Value, error) {
	a, ok, err := v.o.Attr(name)
	if err != nil || !ok {
		return nil, err // nil, nil: no such attribute
	}
	if b, ok := a.(script.Builtin); ok {
		return builtinValue(b.Name, b), nil
	}
	return fromGo(a)
}

func (v *objectValue) Binary(op syntax.Token, y star.Value, side star.Side) (star.Value, error) {
	o, ok := v.o.(script.Operator)
	if !ok {
		return nil, nil
	}
	other, err := toGo(y, "")
	if err != nil {
		return nil, nil // no Go form: not an operand of ours
	}
	out, ok, err := o.Binary(op.String(), other, side == star.Right)
	if err != nil || !ok {
		return nil, err
	}
	return fromGo(out)
}

func (v *objectValue) CompareSameType(op syntax.Token, y star.Value, depth int) (bool, error) {
	c, ok := v.o.(script.Comparer)
	if !ok {
		switch op {
		case syntax.EQL:
			return v == y, nil
		case syntax.NEQ:
			return v != y, nil
		}
		return false, fmt.Errorf("%s values are not ordered", v.o.TypeName())
	}
	n, err := c.Compare(y.(*objectValue).o)
	if err != nil {
		if op == syntax.EQL || op == syntax.NEQ {
			return op == syntax.NEQ, nil
		}
		return false, err
	}
	return threeway(op, n), nil
}

func threeway(op syntax.Token, n int) bool {
	switch op {
	case syntax.EQL:
		return n == 0
	case syntax.NEQ:
		return n != 0
	case syntax.LT:
		return n < 0
	case syntax.LE:
		return n <= 0
	case syntax.GT:
		return n > 0
	}
	return n >= 0
}

// tupleFromGo makes a Starlark tuple of a script.Tuple or script.Results.
func tupleFromGo(w *script.Walk, xs []any) (star.Value, error) {
	if err := w.Enter(unsafe.Pointer(unsafe.SliceData(xs))); err != nil {
		return nil, err
	}
	out := make(star.Tuple, len(xs))
	for i, x := range xs {
		w.Index(i)
		v, err := valueFromGo(w, x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	w.Leave()
	return out, nil
}
