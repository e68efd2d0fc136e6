package starlark

import (
	"fmt"
	"reflect"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// objectValue shows any script.Object: attributes read with a dot,
// operators when it is a script.Operator, ordering when it is a
// script.Comparer. A script.Callable is a callableValue.
type objectValue struct {
	obj    script.Object
	frozen bool
	// cached is the last container attribute read (call.args), kept so
	// that a hook reading it twice converts it once and sees one value.
	cachedKey string
	cached    star.Value
}

var (
	_ star.HasAttrs   = (*objectValue)(nil)
	_ star.HasBinary  = (*objectValue)(nil)
	_ star.Comparable = (*objectValue)(nil)
	_ star.Callable   = (*callableValue)(nil)
)

func newObjectValue(o script.Object) star.Value {
	if _, ok := o.(script.Callable); ok {
		return &callableValue{objectValue{obj: o}}
	}
	return &objectValue{obj: o}
}

func (o *objectValue) String() string { return o.obj.String() }
func (o *objectValue) Type() string   { return o.obj.TypeName() }

func (o *objectValue) Freeze() {
	if o.frozen {
		return
	}
	o.frozen = true
	if o.cached != nil {
		o.cached.Freeze()
	}
}

func (o *objectValue) Truth() star.Bool {
	if t, ok := o.obj.(script.Truther); ok {
		return star.Bool(t.Truth())
	}
	return true
}

// Hash is the object's own (a Hasher), else that of the rendering for
// objects compared as Go values; one with its own order (a Comparer) may
// be equal to an object that renders differently, so it is unhashable.
func (o *objectValue) Hash() (uint32, error) {
	if h, ok := o.obj.(script.Hasher); ok {
		return h.Hash(), nil
	}
	if _, ordered := o.obj.(script.Comparer); !ordered && reflect.TypeOf(o.obj).Comparable() {
		return star.String(o.obj.String()).Hash()
	}
	return 0, fmt.Errorf("unhashable type: %s", o.Type())
}

func (o *objectValue) AttrNames() []string { return o.obj.AttrNames() }

func (o *objectValue) Attr(name string) (star.Value, error) {
	if o.cached != nil && o.cachedKey == name {
		return o.cached, nil
	}
	v, err := o.attr(name)
	if err != nil || v == nil {
		return nil, err
	}
	switch v.(type) {
	case *star.List, *star.Dict:
		if !o.frozen {
			o.cachedKey, o.cached = name, v
		} else {
			v.Freeze()
		}
	}
	return v, nil
}

// attr converts the attribute name, or returns nil when there is none.
// A call's args decode straight from its JSON text.
func (o *objectValue) attr(name string) (star.Value, error) {
	if c, ok := o.obj.(*script.CallInfo); ok && name == "args" {
		return script.ArgumentsAs(c, builder{})
	}
	g, ok, err := o.obj.Attr(name)
	if err != nil || !ok {
		return nil, err
	}
	v, err := fromGo(g)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", o.Type(), name, err)
	}
	return v, nil
}

// Binary implements x op y for a script.Operator; (nil, nil) tells
// Starlark the operation is not defined.
func (o *objectValue) Binary(op syntax.Token, y star.Value, side star.Side) (star.Value, error) {
	opr, ok := o.obj.(script.Operator)
	if !ok {
		return nil, nil
	}
	other, err := (*Interp)(nil).argToGo(y, "operand")
	if err != nil {
		return nil, nil
	}
	v, ok, err := opr.Binary(op.String(), other, side == star.Right)
	if err != nil || !ok {
		return nil, err
	}
	return fromGo(v)
}

// CompareSameType orders two objects of one type by script.Comparer; other
// objects are equal only to themselves.
func (o *objectValue) CompareSameType(op syntax.Token, y star.Value, depth int) (bool, error) {
	other := hostObject(y)
	if c, ok := o.obj.(script.Comparer); ok {
		n, err := c.Compare(other)
		if err != nil {
			return false, err
		}
		return threeway(op, n), nil
	}
	same := y == star.Value(o)
	if reflect.TypeOf(o.obj).Comparable() {
		same = o.obj == other
	}
	switch op {
	case syntax.EQL:
		return same, nil
	case syntax.NEQ:
		return !same, nil
	}
	return false, fmt.Errorf("%s %s %s not supported", o.Type(), op, y.Type())
}

// hostObject is the Object of an objectValue or callableValue, else nil.
func hostObject(v star.Value) script.Object {
	switch x := v.(type) {
	case *objectValue:
		return x.obj
	case *callableValue:
		return x.obj
	}
	return nil
}

func threeway(op syntax.Token, n int) bool {
	switch op {
	case syntax.EQL:
		return n == 0
	case syntax.NEQ:
		return n != 0
	case syntax.LE:
		return n <= 0
	case syntax.LT:
		return n < 0
	case syntax.GE:
		return n >= 0
	case syntax.GT:
		return n > 0
	}
	return false
}

// callableValue is an objectValue that scripts call (next).
type callableValue struct{ objectValue }

func (c *callableValue) Name() string { return c.obj.TypeName() }

func (c *callableValue) CallInternal(t *star.Thread, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes arguments by position, got %s = ...", c.Name(), kwargs[0][0])
	}
	in, _ := t.Local(interpKey).(*Interp)
	pos := make([]any, len(args))
	for i, a := range args {
		g, err := in.argToGo(a, "args")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name(), err)
		}
		pos[i] = g
	}
	out, err := c.obj.(script.Callable).CallValue(threadContext(t), pos)
	if err != nil {
		return nil, err
	}
	return fromGo(out)
}

// opaqueValue is a host value scripts hold and pass back but cannot look
// into.
type opaqueValue struct{ v any }

func (o *opaqueValue) String() string        { return fmt.Sprintf("<%T>", o.v) }
func (o *opaqueValue) Type() string          { return "value" }
func (o *opaqueValue) Freeze()               {}
func (o *opaqueValue) Truth() star.Bool      { return true }
func (o *opaqueValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: value") }
