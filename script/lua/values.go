package lua

import (
	"fmt"
	"math"
	"sort"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// maxExact is the largest magnitude a Lua number (a float64) holds for
// every integer up to it.
const maxExact = 1 << 53

// maxDepth bounds nesting when converting tables, so a table that contains
// itself is an error instead of a stack overflow.
const maxDepth = 500

// toGo converts a Lua value into a JSON shape or a host object. path names
// the value in errors, such as args["items"][2].
func (in *Interp) toGo(v lua.LValue, path string) (any, error) {
	return in.toGoDepth(v, path, 0)
}

func (in *Interp) toGoDepth(v lua.LValue, path string, depth int) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		return numberToGo(float64(x), path)
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		if depth >= maxDepth {
			if len(path) > 60 {
				path = path[:60] + "…"
			}
			return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("tables nest more than %d deep (does a table contain itself?)", maxDepth)}
		}
		return in.tableToGo(x, path, depth+1)
	case *lua.LUserData:
		switch u := x.Value.(type) {
		case nullValue:
			return nil, nil
		case *script.ResultInfo, script.Deny, script.Rewrite, core.DualToolOutput, core.SilentResult:
			return u, nil
		case *callObject:
			return u.info.Arguments(), nil
		}
	}
	return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("cannot convert %s to JSON", typeName(v))}
}

func numberToGo(f float64, path string) (any, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("number %v is not finite and has no JSON form", f)}
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExact {
		return int64(f), nil
	}
	return f, nil
}

// tableToGo converts an array (keys exactly 1..n, or marked by
// agentsh.array) or an object (string keys).
func (in *Interp) tableToGo(t *lua.LTable, path string, depth int) (any, error) {
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
	marked := t.Metatable == in.arrayMeta
	switch {
	case bad != nil:
		return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("table key %s is %s; JSON keys are strings (objects) or 1..n (arrays)", keyText(bad), typeName(bad))}
	case strKeys > 0 && (strKeys < n || marked):
		return nil, &script.ValueError{Path: path, Msg: "table mixes string keys with array items; use either keys 1..n (an array) or string keys (an object)"}
	case n == 0 && !marked, strKeys > 0:
		m := make(map[string]any, n)
		var err error
		t.ForEach(func(k, v lua.LValue) {
			if err != nil {
				return
			}
			key := string(k.(lua.LString))
			m[key], err = in.toGoDepth(v, fmt.Sprintf("%s[%q]", path, key), depth)
		})
		return m, err
	}
	if t.Len() != n || t.MaxN() != n {
		return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("array has holes: keys are not exactly 1..%d (use agentsh.null for a JSON null)", n)}
	}
	out := make([]any, n)
	for i := range out {
		e, err := in.toGoDepth(t.RawGetInt(i+1), fmt.Sprintf("%s[%d]", path, i+1), depth)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
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
			return "a " + n.typeName()
		}
		switch ud.Value.(type) {
		case *script.ResultInfo:
			return "a result"
		case core.Middleware:
			return "a middleware"
		case *stdlib.Match:
			return "a match"
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
// tables JSON null is agentsh.null.
func (in *Interp) toLua(L *lua.LState, v any) (lua.LValue, error) {
	if v == nil {
		return lua.LNil, nil
	}
	return in.toLuaElem(L, v, "")
}

func (in *Interp) toLuaElem(L *lua.LState, v any, path string) (lua.LValue, error) {
	switch x := v.(type) {
	case nil:
		return in.null, nil
	case bool:
		return lua.LBool(x), nil
	case int64:
		if x > maxExact || x < -maxExact {
			return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("integer %d is beyond 2^53 and has no exact Lua number", x)}
		}
		return lua.LNumber(x), nil
	case int:
		return in.toLuaElem(L, int64(x), path)
	case float64:
		return lua.LNumber(x), nil
	case string:
		return lua.LString(x), nil
	case []string:
		t := L.CreateTable(len(x), 0)
		for _, s := range x {
			t.Append(lua.LString(s))
		}
		t.Metatable = in.arrayMeta
		return t, nil
	case []any:
		t := L.CreateTable(len(x), 0)
		for i, e := range x {
			lv, err := in.toLuaElem(L, e, fmt.Sprintf("%s[%d]", path, i+1))
			if err != nil {
				return nil, err
			}
			t.Append(lv)
		}
		t.Metatable = in.arrayMeta
		return t, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t := L.CreateTable(0, len(x))
		for _, k := range keys {
			lv, err := in.toLuaElem(L, x[k], fmt.Sprintf("%s[%q]", path, k))
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	case *script.ResultInfo:
		return in.newObject(L, x, in.resultMeta), nil
	case *script.CallInfo:
		return in.newObject(L, &callObject{info: x}, in.callMeta), nil
	case *script.Next:
		return in.nextFunction(L, x), nil
	}
	return nil, &script.ValueError{Path: path, Msg: fmt.Sprintf("a Go %T has no Lua form", v)}
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
