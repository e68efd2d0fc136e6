package starlark

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/agentsh/agentsh/core"
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
	case *resultValue:
		return x.info, nil
	case denyValue:
		return script.Deny{Reason: x.reason}, nil
	case *rewriteValue:
		return script.Rewrite{Args: x.args}, nil
	case dualValue:
		return core.DualToolOutput{ForLLM: x.forLLM, ForUser: x.forUser}, nil
	case silentValue:
		return core.SilentResult{ForLLM: x.forLLM}, nil
	case *callValue:
		return x.info.Arguments()
	case *objectValue:
		return x.o, nil
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
	case *script.ResultInfo:
		return &resultValue{info: x}, nil
	case *script.CallInfo:
		return &callValue{info: x}, nil
	case script.Tuple:
		return tupleFromGo(w, x)
	case script.Results:
		return tupleFromGo(w, x)
	case script.Object:
		return &objectValue{o: x}, nil
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
	return star.String(fmt.Sprintf("<%T>", v)), nil
}

// callValue is what hooks and middleware receive: .id .name .args .raw.
type callValue struct {
	info *script.CallInfo
	args star.Value // built on first use
}

var _ star.HasAttrs = (*callValue)(nil)

func (c *callValue) String() string        { return c.info.String() }
func (c *callValue) Type() string          { return "call" }
func (c *callValue) Freeze()               {}
func (c *callValue) Truth() star.Bool      { return true }
func (c *callValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: call") }
func (c *callValue) AttrNames() []string   { return []string{"args", "id", "name", "raw"} }
func (c *callValue) Attr(name string) (star.Value, error) {
	switch name {
	case "id":
		return star.String(c.info.ID), nil
	case "name":
		return star.String(c.info.Name), nil
	case "raw":
		return star.String(c.info.Raw), nil
	case "args":
		if c.args == nil {
			args, err := c.info.Arguments()
			if err != nil {
				return nil, err
			}
			if c.args, err = fromGo(args); err != nil {
				return nil, err
			}
		}
		return c.args, nil
	}
	return nil, nil
}

// resultValue is a call's result: ok, output, for_user, silent, error,
// error_kind, blocks, artifact, call_id, tool.
type resultValue struct {
	info *script.ResultInfo
}

var _ star.HasAttrs = (*resultValue)(nil)

func (r *resultValue) String() string        { return r.info.String() }
func (r *resultValue) Type() string          { return "result" }
func (r *resultValue) Freeze()               {}
func (r *resultValue) Truth() star.Bool      { return star.Bool(r.info.R.OK()) }
func (r *resultValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: result") }
func (r *resultValue) AttrNames() []string   { return script.FieldNames }
func (r *resultValue) Attr(name string) (star.Value, error) {
	v, ok := r.info.Field(name)
	if !ok {
		return nil, nil
	}
	return fromGo(v)
}

// denyValue, rewriteValue, dualValue and silentValue are the values of
// deny(), rewrite(), dual() and silent().
type denyValue struct{ reason string }

func (d denyValue) String() string        { return fmt.Sprintf("deny(%q)", d.reason) }
func (d denyValue) Type() string          { return "deny" }
func (d denyValue) Freeze()               {}
func (d denyValue) Truth() star.Bool      { return true }
func (d denyValue) Hash() (uint32, error) { return star.String(d.reason).Hash() }

type rewriteValue struct{ args map[string]any }

func (r *rewriteValue) String() string        { return "rewrite(" + script.Quote(r.args) + ")" }
func (r *rewriteValue) Type() string          { return "rewrite" }
func (r *rewriteValue) Freeze()               {}
func (r *rewriteValue) Truth() star.Bool      { return true }
func (r *rewriteValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: rewrite") }

type dualValue struct{ forLLM, forUser string }

func (d dualValue) String() string        { return fmt.Sprintf("dual(%q, %q)", d.forLLM, d.forUser) }
func (d dualValue) Type() string          { return "dual" }
func (d dualValue) Freeze()               {}
func (d dualValue) Truth() star.Bool      { return true }
func (d dualValue) Hash() (uint32, error) { return star.String(d.forLLM + "\x00" + d.forUser).Hash() }

type silentValue struct{ forLLM string }

func (s silentValue) String() string        { return fmt.Sprintf("silent(%q)", s.forLLM) }
func (s silentValue) Type() string          { return "silent" }
func (s silentValue) Freeze()               {}
func (s silentValue) Truth() star.Bool      { return true }
func (s silentValue) Hash() (uint32, error) { return star.String(s.forLLM).Hash() }

// middlewareValue is a built-in middleware from timeout() or retry().
type middlewareValue struct{ mw core.Middleware }

func (m *middlewareValue) String() string        { return "<middleware " + m.mw.Name + ">" }
func (m *middlewareValue) Type() string          { return "middleware" }
func (m *middlewareValue) Freeze()               {}
func (m *middlewareValue) Truth() star.Bool      { return true }
func (m *middlewareValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: middleware") }

// nextValue is the rest of the middleware chain: next(call, args=None).
type nextValue struct {
	next *script.Next
}

var _ star.Callable = (*nextValue)(nil)

func (n *nextValue) String() string        { return "<next>" }
func (n *nextValue) Type() string          { return "next" }
func (n *nextValue) Freeze()               {}
func (n *nextValue) Truth() star.Bool      { return true }
func (n *nextValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: next") }
func (n *nextValue) Name() string          { return "next" }
func (n *nextValue) CallInternal(thread *star.Thread, args star.Tuple, kwargs []star.Tuple) (star.Value, error) {
	var call star.Value
	var newArgs star.Value = star.None
	if err := star.UnpackArgs("next", args, kwargs, "call", &call, "args?", &newArgs); err != nil {
		return nil, err
	}
	var m map[string]any
	if newArgs != star.None {
		g, err := toGo(newArgs, "args")
		if err != nil {
			return nil, fmt.Errorf("next: %w", err)
		}
		var ok bool
		if m, ok = g.(map[string]any); !ok {
			return nil, fmt.Errorf("next: args must be a dict, got %s", newArgs.Type())
		}
	}
	res, err := n.next.Call(threadContext(thread), m)
	if err != nil {
		return nil, fmt.Errorf("next: %w", err)
	}
	return &resultValue{info: res}, nil
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

// intArg accepts an int for options that take counts.
func intArg(fn string, v star.Value, name string) (int, error) {
	i, ok := v.(star.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s must be an int, got %s", fn, name, v.Type())
	}
	n, ok := i.Int64()
	if !ok || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, fmt.Errorf("%s: %s %s is out of range", fn, name, i)
	}
	return int(n), nil
}
