package script

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// A Builder makes one binding's own values from JSON, for DecodeAs: the
// bindings decode a call's arguments straight into script values instead
// of building JSON shapes first and converting those.
//
// Object receives an object's members with their keys sorted (the order
// in which a binding inserts them, so iteration is deterministic) and
// unique (of a repeated key the last value wins, as in DecodeJSON). Int
// receives integral numbers that fit in an int64 and Float every other
// number; a binding that cannot hold a value returns an error, which
// DecodeAs reports with the value's path.
type Builder[V any] interface {
	Null() V
	Bool(b bool) V
	Int(i int64) (V, error)
	Float(f float64) (V, error)
	String(s string) V
	Array(elems []V) V
	Object(keys []string, vals []V) V
}

// DecodeAs decodes the JSON text raw into b's values. It accepts and
// rejects exactly what DecodeJSON does, with the same errors (their paths
// start at root), and builds the value DecodeJSON's result would convert
// to.
//
// It makes the value in one pass over the text. Text it cannot decode,
// and a value b refuses, go through DecodeJSON's reference path again, so
// that each error reads as DecodeJSON words it: errors are rare, and a
// second pass for them keeps one source of their wording.
func DecodeAs[V any](raw []byte, root string, b Builder[V]) (V, error) {
	if v, ok := scanJSON(raw, b); ok {
		return v, nil
	}
	return decodeAsReference(raw, root, b)
}

// decodeAsReference is DecodeAs by way of JSON shapes: the reference
// decoder, then a walk. It runs only for text the scanner refused.
func decodeAsReference[V any](raw []byte, root string, b Builder[V]) (V, error) {
	v, err := decodeJSONReference(raw, root)
	if err != nil {
		var zero V
		return zero, err
	}
	w := NewWalk(root)
	defer w.Done()
	return build(w, v, b)
}

func build[V any](w *Walk, v any, b Builder[V]) (V, error) {
	var zero V
	switch x := v.(type) {
	case nil:
		return b.Null(), nil
	case bool:
		return b.Bool(x), nil
	case int64:
		out, err := b.Int(x)
		if err != nil {
			return zero, w.Errorf("%v", err)
		}
		return out, nil
	case float64:
		out, err := b.Float(x)
		if err != nil {
			return zero, w.Errorf("%v", err)
		}
		return out, nil
	case string:
		return b.String(x), nil
	case []any:
		if err := w.Enter(nil); err != nil {
			return zero, err
		}
		elems := make([]V, len(x))
		for i, e := range x {
			w.Index(i)
			var err error
			if elems[i], err = build(w, e, b); err != nil {
				return zero, err
			}
		}
		w.Leave()
		return b.Array(elems), nil
	case map[string]any:
		if err := w.Enter(nil); err != nil {
			return zero, err
		}
		keys := SortedKeys(x)
		vals := make([]V, len(keys))
		for i, k := range keys {
			w.Key(k)
			var err error
			if vals[i], err = build(w, x[k], b); err != nil {
				return zero, err
			}
		}
		w.Leave()
		return b.Object(keys, vals), nil
	}
	return zero, fmt.Errorf("script: DecodeAs: unexpected %T", v)
}

// Shapes is the Builder of JSON shapes (nil, bool, int64, float64,
// string, []any, map[string]any): DecodeAs with it is DecodeJSON.
type Shapes struct{}

var _ Builder[any] = Shapes{}

func (Shapes) Null() any                    { return nil }
func (Shapes) Bool(b bool) any              { return b }
func (Shapes) Int(i int64) (any, error)     { return i, nil }
func (Shapes) Float(f float64) (any, error) { return f, nil }
func (Shapes) String(s string) any          { return s }
func (Shapes) Array(elems []any) any        { return elems }

func (Shapes) Object(keys []string, vals []any) any {
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}

// RawJSON is a JSON text passed to Func.Call as the value it encodes: a
// binding decodes it with DecodeAs into its own values, with paths in
// errors starting at Root. Script tools get their arguments so.
type RawJSON struct {
	Text []byte
	Root string
}

// Shared is a JSON shape a binding converts once per interpreter and then
// reuses, so a value passed again and again costs nothing after the
// first time: the agent loop passes each message of its history as one,
// and a model function called every turn converts only the new messages.
// V must not change after NewShared. A binding keeps what it made with
// Load and Store under a key of its own (its interpreter state); Starlark
// freezes it, so a model function cannot change a message in place.
//
// A Shared is safe for concurrent use.
type Shared struct {
	V any
	// first is the first conversion stored, which a lookup finds without
	// hashing: a value is mostly used by one binding, and a model's
	// history looks up every message every turn.
	first atomic.Pointer[sharedEntry]
	more  sync.Map // the conversions of other keys
}

type sharedEntry struct{ key, converted any }

// NewShared returns v as a Shared value.
func NewShared(v any) *Shared { return &Shared{V: v} }

// Load returns what a binding stored under key.
func (s *Shared) Load(key any) (any, bool) {
	e := s.first.Load()
	switch {
	case e == nil:
		return nil, false // and more is empty: a first lookup costs no map
	case e.key == key:
		return e.converted, true
	}
	return s.more.Load(key)
}

// Store keeps a binding's conversion of V under key.
func (s *Shared) Store(key, converted any) {
	e := &sharedEntry{key, converted}
	for {
		f := s.first.Load()
		switch {
		case f == nil:
			if !s.first.CompareAndSwap(nil, e) {
				continue
			}
		case f.key == key:
			if !s.first.CompareAndSwap(f, e) {
				continue
			}
		default:
			s.more.Store(key, converted)
		}
		return
	}
}

// A SharedList is a list of Shared values passed again and again, each
// time the same or longer: the agent passes a model function the
// conversation so, with the new messages at the end. A binding keeps
// what it made of the list under its own key in Grows and, while Grows
// is the same, converts only the values appended since; so a call costs
// the same however long the list.
//
// The maker of a SharedList starts a new Grows when the list is not the
// last one extended (a value was replaced or removed). Starlark freezes
// the list: a script that changes it in place gets an error.
type SharedList struct {
	Items []*Shared
	Grows *Shared // its V is nil
}

// V is the list as JSON shapes, for bindings that convert it anew.
func (l SharedList) V() []any {
	out := make([]any, len(l.Items))
	for i, s := range l.Items {
		out[i] = s.V
	}
	return out
}
