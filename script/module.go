package script

import "context"

// Module is a namespace of builtins and values that scripts reach with a
// dot: json.encode, re.search, state.get. Modules are declared once, in
// modules.go, over the stdlib package; every language gets them from the
// host (Host.Modules). Module members, like the methods of Objects, must
// return promptly and call into scripts only through Inline arguments,
// unless they are marked CallsScripts: a binding may run them holding its
// interpreter (Lua does, so that a script's loop of state.get calls keeps
// it).
type Module struct {
	Name    string
	Doc     string
	Members []Builtin
	// Values are the module's constants (time.second, ...): JSON shapes or
	// host objects.
	Values map[string]any
}

// Object is a host value with named attributes that scripts read with a
// dot (call.args, result.ok, match.group). A binding shows it as one
// generic value of its language, so a new object type needs no binding
// code. An attribute is a JSON shape, another host value, or a Builtin
// (a method).
type Object interface {
	// TypeName names the value's type in messages: "call", "result".
	TypeName() string
	// AttrNames lists the attributes, sorted.
	AttrNames() []string
	// Attr returns one attribute; ok is false when there is none.
	Attr(name string) (v any, ok bool, err error)
	// String is the value's deterministic rendering for transcripts.
	String() string
}

// Tuple is a fixed sequence a builtin returns (match.groups()): a tuple
// in Starlark, an array in Lua.
type Tuple []any

// Results are the several results of one call (match.span()): a tuple in
// Starlark, multiple results in Lua, as in local s, e = m:span().
type Results []any

// Optional capabilities of an Object, found by interface assertion; a
// binding maps each onto its language's operators.

// Comparer orders an Object against another value of its kind (<, ==).
type Comparer interface {
	Object
	// Compare returns -1, 0 or +1, or an error when other is not comparable.
	Compare(other any) (int, error)
}

// Operator implements arithmetic on an Object (time - time, time + duration).
type Operator interface {
	Object
	// Binary applies op ("+", "-", "*", "/", "//", "%") with other on the
	// right, or on the left when reversed; ok is false when op or other's
	// type does not apply.
	Binary(op string, other any, reversed bool) (v any, ok bool, err error)
}

// Hasher is an Object that can be a dict key (Starlark): objects that
// compare equal hash alike.
type Hasher interface {
	Object
	Hash() uint32
}

// Callable is an Object that scripts call (next(call) in middleware).
type Callable interface {
	Object
	CallValue(ctx context.Context, args []any) (any, error)
}

// Truther is an Object with a truth value other than true (a result is
// true when the call succeeded); languages that test any value's truth
// use it.
type Truther interface {
	Object
	Truth() bool
}
