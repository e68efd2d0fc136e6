package starlark

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unsafe"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// toGo converts a Starlark value into a JSON shape or a host object. root
// names the value in errors, such as args (then args["items"][2] names a
// part of it). A value nested deeper than script.MaxDepth, or one that
// contains itself, is an error.
func toGo(v star.Value, root string) (any, error) {
	switch v.(type) {
	case *star.List, star.Tuple, *star.Dict, *starlarkstruct.Struct:
	default:
		// No container: no walk to keep, and an error is at root.
		g, err := valueToGo(nil, v)
		if ve, ok := err.(*script.ValueError); ok {
			ve.Path = root
		}
		return g, err
	}
	w := script.NewWalk(root)
	defer w.Done()
	return valueToGo(w, v)
}

// errorf is w.Errorf, or an error about the value itself without a walk.
func errorf(w *script.Walk, format string, args ...any) error {
	if w == nil {
		return &script.ValueError{Msg: fmt.Sprintf(format, args...)}
	}
	return w.Errorf(format, args...)
}

func valueToGo(w *script.Walk, v star.Value) (any, error) {
	switch x := v.(type) {
	case star.NoneType:
		return nil, nil
	case star.Bool:
		return bool(x), nil
	case star.Int:
		i, ok := x.Int64()
		if !ok {
			return nil, errorf(w, "integer %s does not fit in 64 bits", shortText(x))
		}
		return i, nil
	case star.Float:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errorf(w, "float %v is not finite and has no JSON form", x)
		}
		return f, nil
	case star.String:
		return string(x), nil
	case star.Bytes:
		return string(x), nil
	case *star.List:
		return seqToGo(w, x, unsafe.Pointer(x))
	case star.Tuple:
		var id unsafe.Pointer
		if len(x) > 0 {
			id = unsafe.Pointer(&x[0])
		}
		return seqToGo(w, x, id)
	case *star.Dict:
		if err := enter(w, unsafe.Pointer(x), x.Len()); err != nil {
			return nil, err
		}
		m := make(map[string]any, x.Len())
		for _, item := range x.Items() {
			k, ok := item[0].(star.String)
			if !ok {
				return nil, w.Errorf("dict key %s is %s; JSON object keys must be strings", shortText(item[0]), article(item[0].Type()))
			}
			w.Key(string(k))
			e, err := valueToGo(w, item[1])
			if err != nil {
				return nil, err
			}
			m[string(k)] = e
		}
		w.Leave()
		return m, nil
	case *starlarkstruct.Struct:
		d := star.StringDict{}
		x.ToStringDict(d)
		if err := enter(w, unsafe.Pointer(x), len(d)); err != nil {
			return nil, err
		}
		m := make(map[string]any, len(d))
		for _, k := range d.Keys() {
			w.Field(k)
			e, err := valueToGo(w, d[k])
			if err != nil {
				return nil, err
			}
			m[k] = e
		}
		w.Leave()
		return m, nil
	case *objectValue:
		return x.obj, nil
	case *callableValue:
		return x.obj, nil
	case *opaqueValue:
		return x.v, nil
	}
	return nil, errorf(w, "cannot convert %s to JSON", article(v.Type()))
}

// enter opens a container of n elements in w.
func enter(w *script.Walk, id unsafe.Pointer, n int) error {
	if err := w.Enter(id); err != nil {
		return err
	}
	return w.Count(n)
}

func seqToGo(w *script.Walk, seq star.Indexable, id unsafe.Pointer) ([]any, error) {
	n := seq.Len()
	if err := enter(w, id, n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		w.Index(i)
		e, err := valueToGo(w, seq.Index(i))
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	w.Leave()
	return out, nil
}

// shortText is v's text for a message, cut to a readable length.
func shortText(v star.Value) string {
	s := v.String()
	if len(s) > 64 {
		s = s[:60] + "…"
	}
	return s
}

func article(t string) string {
	if strings.ContainsAny(t[:1], "aeiou") {
		return "an " + t
	}
	return "a " + t
}

// fromGo converts a JSON shape or host object into a new Starlark value.
// Map keys are inserted in sorted order, so iteration is deterministic. A
// value nested deeper than script.MaxDepth, or one that contains itself,
// is an error.
func fromGo(v any) (star.Value, error) {
	switch v.(type) {
	case []any, map[string]any, script.Record, script.Tuple, script.Results:
	default:
		return valueFromGo(nil, v) // no container: no walk to keep
	}
	w := script.NewWalk("")
	defer w.Done()
	return valueFromGo(w, v)
}

func valueFromGo(w *script.Walk, v any) (star.Value, error) {
	switch x := v.(type) {
	case nil:
		return star.None, nil
	case bool:
		return star.Bool(x), nil
	case int64:
		return star.MakeInt64(x), nil
	case int:
		return star.MakeInt(x), nil
	case float64:
		return star.Float(x), nil
	case string:
		return star.String(x), nil
	case []string:
		l := make([]star.Value, len(x))
		for i, s := range x {
			l[i] = star.String(s)
		}
		return star.NewList(l), nil
	case []any:
		if err := w.Enter(script.SliceID(x)); err != nil {
			return nil, err
		}
		l := make([]star.Value, len(x))
		for i, e := range x {
			w.Index(i)
			sv, err := valueFromGo(w, e)
			if err != nil {
				return nil, err
			}
			l[i] = sv
		}
		w.Leave()
		return star.NewList(l), nil
	case map[string]any:
		if err := w.Enter(script.MapID(x)); err != nil {
			return nil, err
		}
		d := star.NewDict(len(x))
		for _, k := range script.SortedKeys(x) {
			w.Key(k)
			sv, err := valueFromGo(w, x[k])
			if err != nil {
				return nil, err
			}
			_ = d.SetKey(star.String(k), sv)
		}
		w.Leave()
		return d, nil
	case script.RawJSON:
		return script.DecodeAs(x.Text, x.Root, builder{})
	case *script.Shared:
		return sharedFromGo(x)
	case script.SharedList:
		return sharedListFromGo(x)
	case script.Tuple:
		return tupleFromGo(w, x)
	case script.Results:
		return tupleFromGo(w, x)
	case script.Object:
		return newObjectValue(x), nil
	case script.Builtin:
		return newBuiltin(x), nil
	case *scriptFunc:
		return x.fn, nil
	case script.Record:
		if err := w.Enter(script.MapID(map[string]any(x))); err != nil {
			return nil, err
		}
		d := star.StringDict{}
		for k, e := range x {
			w.Field(k)
			sv, err := valueFromGo(w, e)
			if err != nil {
				return nil, err
			}
			d[k] = sv
		}
		w.Leave()
		return starlarkstruct.FromStringDict(starlarkstruct.Default, d), nil
	}
	return &opaqueValue{v: v}, nil
}

// funcName names a script function for hook names: its name, or
// lambda@file:line:col.
func funcName(fn star.Callable) string {
	if f, ok := fn.(*star.Function); ok {
		if f.Name() == "lambda" {
			return "lambda@" + f.Position().String()
		}
	}
	return fn.Name()
}

// tupleFromGo makes a Starlark tuple of a script.Tuple or script.Results.
func tupleFromGo(w *script.Walk, xs []any) (star.Value, error) {
	if err := w.Enter(script.SliceID(xs)); err != nil {
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

// sharedKey is where a script.Shared keeps its Starlark value. Frozen
// Starlark values may be read from any goroutine, so every interpreter
// can use the one conversion.
type sharedKey struct{}

// sharedFromGo is a script.Shared's value, converted on first use and
// frozen: a script that tries to change it gets Starlark's error about a
// frozen value, as for any value it did not make itself.
func sharedFromGo(s *script.Shared) (star.Value, error) {
	if v, ok := s.Load(sharedKey{}); ok {
		return v.(star.Value), nil
	}
	// A fresh walk: the value is converted on its own, whatever path and
	// depth it first appears at, so that every use sees the same value.
	v, err := fromGo(s.V)
	if err != nil {
		return nil, err
	}
	v.Freeze()
	s.Store(sharedKey{}, v)
	return v, nil
}

// sharedList is what Starlark made of a script.SharedList so far: the
// values of its items, which each later, longer list extends.
type sharedList struct {
	mu    sync.Mutex
	items []*script.Shared
	vals  []star.Value
}

// sharedListFromGo is a frozen list of l's values, converting only the
// items appended since the last list of the same Grows. The lists share
// one array of values, which only grows: each is frozen, and an append
// past its end does not show in it.
func sharedListFromGo(l script.SharedList) (star.Value, error) {
	c, _ := l.Grows.Load(sharedKey{})
	sl, ok := c.(*sharedList)
	if !ok {
		sl = &sharedList{}
		l.Grows.Store(sharedKey{}, sl)
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if k := len(sl.items); k > len(l.Items) || k > 0 && sl.items[k-1] != l.Items[k-1] {
		// Not the last list extended, whatever its maker said: start over
		// in a new array, as the lists made already keep theirs.
		sl.items, sl.vals = nil, nil
	}
	for _, s := range l.Items[len(sl.items):] {
		v, err := sharedFromGo(s)
		if err != nil {
			return nil, err
		}
		sl.items = append(sl.items, s)
		sl.vals = append(sl.vals, v)
	}
	n := len(sl.vals)
	list := star.NewList(sl.vals[:n:n])
	list.Freeze()
	return list, nil
}
