package starlark

import (
	"context"
	"errors"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
)

// The Go forms of the Operand and Inline kinds, which stay Starlark
// values: an assertion compares and shows its operands as Starlark does,
// and assert.fails calls its function on the caller's thread.

// operand is a Kind Operand argument: v as Starlark sees it.
type operand struct{ v star.Value }

var _ script.Value = operand{}

func (o operand) Go() (any, error) { return toGo(o.v, "") }
func (o operand) Type() string     { return o.v.Type() }
func (o operand) String() string   { return o.v.String() }
func (o operand) Truth() bool      { return bool(o.v.Truth()) }
func (o operand) Equal(other script.Value) (bool, error) {
	p, ok := other.(operand)
	if !ok {
		return false, nil
	}
	return star.Equal(o.v, p.v)
}

// inlineFunc is a Kind Inline argument: c called on the caller's thread,
// within its step budget. Its errors carry their bare message, without a
// position; the end of the budget or of the context is a *script.Fatal.
type inlineFunc struct {
	in *Interp
	t  *star.Thread
	c  star.Callable
}

var _ script.Func = inlineFunc{}

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
		if threadContext(f.t).Err() != nil || f.in != nil && f.in.opts.MaxSteps > 0 && f.t.ExecutionSteps() >= f.in.opts.MaxSteps {
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
