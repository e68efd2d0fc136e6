package lua

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// The Go forms of the Operand and Inline kinds, which stay Lua values: an
// assertion compares and shows its operands as Lua does, and assert.fails
// calls its function on the caller's thread, which keeps the interpreter
// (module members run holding it).

// operand is a Kind Operand argument, read while the call holds L.
type operand struct {
	v     lua.LValue
	g     any
	err   error
	typ   string
	text  string
	truth bool
}

var _ script.Value = operand{}

func (in *Interp) newOperand(L *lua.LState, v lua.LValue) operand {
	g, err := in.toGo(v, "")
	return operand{v: v, g: g, err: err, typ: v.Type().String(), text: in.show(L, v), truth: lua.LVAsBool(v)}
}

func (o operand) Go() (any, error) { return o.g, o.err }
func (o operand) Type() string     { return o.typ }
func (o operand) String() string   { return o.text }
func (o operand) Truth() bool      { return o.truth }

// Equal compares as JSON shapes when both have one (tables compare
// deeply), else by identity.
func (o operand) Equal(other script.Value) (bool, error) {
	p, ok := other.(operand)
	if !ok {
		return false, nil
	}
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
// runs. Its errors carry their bare message, without a position; the end
// of the thread's step budget or context is a *script.Fatal.
type inlineFunc struct {
	in *Interp
	L  *lua.LState
	fn *lua.LFunction
}

var _ script.Func = inlineFunc{}

func (f inlineFunc) Name() string { return "function" }

func (f inlineFunc) Call(_ context.Context, args ...any) (any, error) {
	L := f.L
	lvs := make([]lua.LValue, len(args))
	for i, a := range args {
		lv, err := f.in.toLua(L, a)
		if err != nil {
			return nil, err
		}
		lvs[i] = lv
	}
	L.Push(f.fn)
	for _, lv := range lvs {
		L.Push(lv)
	}
	if err := f.in.pcall(L, len(args), 0); err != nil {
		if callContext(L).Err() != nil {
			return nil, &script.Fatal{Err: err}
		}
		return nil, bareError{msg: bareMessage(err), err: err}
	}
	return nil, nil
}

// bareError is an error's message without its position, keeping the
// error it wraps reachable.
type bareError struct {
	msg string
	err error
}

func (e bareError) Error() string { return e.msg }
func (e bareError) Unwrap() error { return e.err }
