package lua

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// maxExact is the largest magnitude a Lua number (a float64) holds for
// every integer up to it.
const maxExact = 1 << 53

// toGo converts a Lua value into a JSON shape or a host object. root
// names the value in errors, such as args (then args["items"][2] names a
// part of it). A value nested deeper than script.MaxDepth, or a table that
// contains itself, is an error.
func (in *Interp) toGo(v lua.LValue, root string) (any, error) {
	if _, ok := v.(*lua.LTable); !ok {
		// No table: no walk to keep, and an error is at root.
		g, err := in.valueToGo(nil, v)
		if ve, ok := err.(*script.ValueError); ok {
			ve.Path = root
		}
		return g, err
	}
	w := script.NewWalk(root)
	defer w.Done()
	return in.valueToGo(w, v)
}

func (in *Interp) valueToGo(w *script.Walk, v lua.LValue) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		return numberToGo(w, float64(x))
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		return in.tableToGo(w, x)
	case *lua.LUserData:
		switch u := x.Value.(type) {
		case nullValue:
			return nil, nil
		case *luaObject:
			return u.obj, nil
		case opaqueValue:
			return u.v, nil
		}
	}
	return nil, errorf(w, "cannot convert %s to JSON", typeName(v))
}

// errorf is w.Errorf, or an error about the value itself without a walk.
func errorf(w *script.Walk, format string, args ...any) error {
	if w == nil {
		return &script.ValueError{Msg: fmt.Sprintf(format, args...)}
	}
	return w.Errorf(format, args...)
}

func numberToGo(w *script.Walk, f float64) (any, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errorf(w, "number %v is not finite and has no JSON form", f)
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExact {
		return int64(f), nil
	}
	return f, nil
}

// tableToGo converts an array (keys exactly 1..n, or marked by
// agentsh.array) or an object (string keys).
func (in *Interp) tableToGo(w *script.Walk, t *lua.LTable) (any, error) {
	if err := w.Enter(unsafe.Pointer(t)); err != nil {
		return nil, err
	}
	n := 0
	strKeys := 0
	var bad lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		n++
		switch key := k.(type) {
		case lua.LString:
			strKeys++
		case lua.LNumber:
			if f := float64(key); f != math.Trunc(f) || f < 1 {
				bad = k
			}
		default:
			bad = k
		}
	})
	if err := w.Count(n); err != nil {
		return nil, err
	}
	marked := in.isArrayMeta(t.Metatable)
	switch {
	case bad != nil:
		return nil, w.Errorf("table key %s is %s; JSON keys are strings (objects) or 1..n (arrays)", keyText(bad), typeName(bad))
	case strKeys > 0 && (strKeys < n || marked):
		return nil, w.Errorf("table mixes string keys with array items; use either keys 1..n (an array) or string keys (an object)")
	case n == 0 && !marked, strKeys > 0:
		m := make(map[string]any, n)
		var err error
		t.ForEach(func(k, v lua.LValue) {
			if err != nil {
				return
			}
			key := string(k.(lua.LString))
			w.Key(key)
			m[key], err = in.valueToGo(w, v)
		})
		if err != nil {
			return nil, err
		}
		w.Leave()
		return m, nil
	}
	if t.Len() != n || t.MaxN() != n {
		return nil, w.Errorf("array has holes: keys are not exactly 1..%d (use agentsh.null for a JSON null)", n)
	}
	out := make([]any, n)
	for i := range out {
		w.Index(i + 1)
		e, err := in.valueToGo(w, t.RawGetInt(i+1))
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	w.Leave()
	return out, nil
}

func keyText(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return k.String()
}

// typeName names a Lua value's type for messages: "a table", "a function".
func typeName(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if n, ok := ud.Value.(interface{ typeName() string }); ok {
			return article(n.typeName())
		}
	}
	t := v.Type().String()
	if t == "userdata" || t == "nil" {
		return t
	}
	return "a " + t
}

// toLua converts a JSON shape or host object into a new Lua value. Object
// keys are inserted in sorted order so pairs() is deterministic. Inside
// tables JSON null is agentsh.null. A value nested deeper than
// script.MaxDepth, or one that contains itself, is an error.
func (in *Interp) toLua(L *lua.LState, v any) (lua.LValue, error) {
	switch x := v.(type) {
	case nil:
		return lua.LNil, nil
	case script.RawJSON:
		return in.rawJSONToLua(L, nil, x, true)
	case *script.Shared:
		if x.V == nil {
			return lua.LNil, nil
		}
	case []any, map[string]any, script.Record, script.Tuple, script.Results, script.SharedList:
	default:
		return in.valueToLua(L, nil, v) // no container: no walk to keep
	}
	w := script.NewWalk("")
	defer w.Done()
	return in.valueToLua(L, w, v)
}

func (in *Interp) valueToLua(L *lua.LState, w *script.Walk, v any) (lua.LValue, error) {
	switch x := v.(type) {
	case nil:
		return in.null, nil
	case bool:
		return lua.LBool(x), nil
	case int64:
		if x > maxExact || x < -maxExact {
			return nil, errorf(w, "integer %d is beyond 2^53 and has no exact Lua number", x)
		}
		return lua.LNumber(x), nil
	case int:
		return in.valueToLua(L, w, int64(x))
	case float64:
		return lua.LNumber(x), nil
	case string:
		return lua.LString(x), nil
	case []string:
		t := L.CreateTable(len(x), 0)
		for _, s := range x {
			t.Append(lua.LString(s))
		}
		t.Metatable = in.stateOf(L).arrayMeta
		return t, nil
	case []any:
		if err := w.Enter(script.SliceID(x)); err != nil {
			return nil, err
		}
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			w.Index(i + 1)
			lv, err := in.valueToLua(L, w, e)
			if err != nil {
				return nil, err
			}
			t.Append(lv)
		}
		w.Leave()
		t.Metatable = in.stateOf(L).arrayMeta
		return t, nil
	case map[string]any:
		if err := w.Enter(script.MapID(x)); err != nil {
			return nil, err
		}
		t := L.CreateTable(0, len(x))
		for _, k := range script.SortedKeys(x) {
			w.Key(k)
			lv, err := in.valueToLua(L, w, x[k])
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
		}
		w.Leave()
		return t, nil
	case script.Record:
		return in.valueToLua(L, w, map[string]any(x))
	case script.Tuple:
		return in.valueToLua(L, w, []any(x))
	case script.Results:
		return in.valueToLua(L, w, []any(x))
	case script.RawJSON:
		return in.rawJSONToLua(L, w, x, false)
	case *script.Shared:
		return in.sharedToLua(L, w, x)
	case script.SharedList:
		return in.sharedListToLua(L, w, x)
	case script.Object:
		return in.newObject(L, &luaObject{obj: x}, in.objectMeta), nil
	case script.Builtin:
		return in.newFunction(L, x, nil, false), nil
	case *luaFunc:
		if r := in.stateOf(L).replica; r != nil {
			return r.copyOf(x.fn)
		}
		return x.fn, nil
	}
	return in.newObject(L, opaqueValue{v: v}, in.opaqueMeta), nil
}

// mustLua converts v or raises its error in L.
func (in *Interp) mustLua(L *lua.LState, v any) lua.LValue {
	lv, err := in.toLua(L, v)
	if err != nil {
		L.RaiseError("%v", err)
	}
	return lv
}

// checkGo converts argument n or raises an error naming the function.
func (in *Interp) checkGo(L *lua.LState, n int, fn, path string) any {
	v, err := in.toGo(L.Get(n), path)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	return v
}

// article puts "a" or "an" before a type name.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// sharedToLua converts a Shared value once per state and then passes the
// same Lua value every time: a function must not change it in place (in
// Starlark it is frozen), or later calls in that state see the change.
func (in *Interp) sharedToLua(L *lua.LState, w *script.Walk, s *script.Shared) (lua.LValue, error) {
	st := in.stateOf(L)
	if v, ok := s.Load(st); ok {
		return v.(lua.LValue), nil
	}
	lv, err := in.valueToLua(L, w, s.V)
	if err != nil {
		return nil, err
	}
	s.Store(st, lv)
	return lv, nil
}

// sharedListToLua makes a new array of the list's items, each converted
// once per state (see sharedToLua): a call costs a reference per message,
// not a conversion. The array itself is new every call, since a Lua table
// cannot be frozen and a function may well append to the list it got.
func (in *Interp) sharedListToLua(L *lua.LState, w *script.Walk, l script.SharedList) (lua.LValue, error) {
	items := make([]any, len(l.Items))
	for i, s := range l.Items {
		items[i] = s
	}
	return in.valueToLua(L, w, items)
}
