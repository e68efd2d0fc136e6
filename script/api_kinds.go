package script

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Sharer is a Func that must be made safe to run on any goroutine before
// the host keeps it: Starlark freezes the function and the globals it
// sees. Builtin.Call shares every Func it hands to Fn, so a binding can
// convert a function it is given without knowing what it is for.
type Sharer interface {
	Func
	Share()
}

// Durationer is a host value that stands for a time duration (a time
// module's duration); the Duration kind accepts it.
type Durationer interface {
	Duration() time.Duration
}

// want describes what a parameter of kind k accepts, for messages.
func (k Kind) want() string {
	switch k {
	case String:
		return "a string"
	case Int:
		return "an integer"
	case Bool:
		return "a bool"
	case OptBool:
		return "a bool or nothing"
	case Function:
		return "a function"
	case Tools:
		return "a tool name or glob, or a non-empty list of them"
	case Duration:
		return `a duration such as "2s" or a number of seconds, from 0 to about 292 years`
	case CallArgs:
		return "a dict of arguments or a string of JSON"
	case Calls:
		return "a list of calls, each (name, args[, dedup_key]) or {name, args, dedup_key}"
	case Dict:
		return "a dict"
	case Inline:
		return "a function"
	}
	return "a value"
}

// convert checks v, a value a binding converted, against k and returns
// the Go form Fn receives. The error reads after "fn: param ".
func (k Kind) convert(v any) (any, error) {
	bad := func() error { return fmt.Errorf("got %s, want %s", describe(v), k.want()) }
	switch k {
	case Any:
		if f, ok := v.(Func); ok {
			share(f)
		}
		return v, nil
	case String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case Int:
		switch n := v.(type) {
		case int64:
			if n >= math.MinInt32 && n <= math.MaxInt32 {
				return int(n), nil
			}
			return nil, fmt.Errorf("got %d, want an integer from %d to %d", n, math.MinInt32, math.MaxInt32)
		case float64:
			return nil, fmt.Errorf("got %s, want an integer", number(n))
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case OptBool:
		if b, ok := v.(bool); ok {
			return &b, nil
		}
	case Function:
		if f, ok := v.(Func); ok {
			share(f)
			return f, nil
		}
	case Tools:
		return toolsOf(v)
	case Duration:
		if d, ok := durationOf(v); ok {
			return d, nil
		}
		switch v.(type) {
		case string, int64, float64, time.Duration, Durationer:
			return nil, fmt.Errorf("got %s, want %s", shown(v), k.want())
		}
	case CallArgs:
		return callArgsOf(v)
	case Calls:
		return callsOf(v)
	case Dict:
		switch m := v.(type) {
		case map[string]any:
			return m, nil
		case *CallInfo:
			return m.Arguments()
		}
	case Operand:
		// Only a binding can make the Value, None included.
		if x, ok := v.(Value); ok {
			return x, nil
		}
	case Inline:
		// Not shared: the builtin calls it only while it runs.
		if f, ok := v.(Func); ok {
			return f, nil
		}
	}
	return nil, bad()
}

func share(f Func) {
	if s, ok := f.(Sharer); ok {
		s.Share()
	}
}

// number renders a float for a message: 1.5, NaN, +Inf.
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// shown renders a scalar for a message: a number or a quoted string, else
// its description.
func shown(v any) string {
	switch x := v.(type) {
	case float64:
		return number(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return strconv.Quote(x)
	case time.Duration:
		return x.String()
	case Durationer:
		return x.Duration().String()
	}
	return describe(v)
}

// durationOf converts a Duration argument: a string such as "2s", a
// number of seconds, or a duration value. Negative, non-finite and
// out-of-range values are refused.
func durationOf(v any) (time.Duration, bool) {
	var d time.Duration
	switch x := v.(type) {
	case time.Duration:
		d = x
	case Durationer:
		d = x.Duration()
	case string:
		var err error
		if d, err = time.ParseDuration(x); err != nil {
			return 0, false
		}
	case int64:
		if x > math.MaxInt64/int64(time.Second) || x < 0 {
			return 0, false
		}
		d = time.Duration(x) * time.Second
	case float64:
		ns := x * float64(time.Second)
		// NaN fails every comparison, so it is caught by asking for the
		// range rather than refusing what is outside it.
		if !(ns >= 0 && ns < math.MaxInt64) {
			return 0, false
		}
		d = time.Duration(ns)
	default:
		return 0, false
	}
	return d, d >= 0
}

// asList reads a list argument. An empty Lua table arrives as an empty
// dict, which where a list is wanted can only mean an empty list.
func asList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case map[string]any:
		if len(x) == 0 {
			return []any{}, true
		}
	}
	return nil, false
}

func toolsOf(v any) (any, error) {
	if s, ok := v.(string); ok {
		return []string{s}, nil
	}
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("got %s, want %s", describe(v), Tools.want())
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("got an empty list; omit it for a global hook")
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("got a list holding %s, want names or globs (strings)", describe(e))
		}
		out[i] = s
	}
	return out, nil
}

func callArgsOf(v any) (any, error) {
	switch x := v.(type) {
	case *CallInfo:
		return x.Arguments()
	case Object, Func:
		return nil, fmt.Errorf("got %s, want %s", describe(v), CallArgs.want())
	}
	// A JSON shape: the pipeline refuses anything but an object.
	return v, nil
}

func callsOf(v any) (any, error) {
	list, ok := asList(v)
	if !ok {
		return nil, fmt.Errorf("got %s, want %s", describe(v), Calls.want())
	}
	specs := make([]CallSpec, len(list))
	for i, c := range list {
		spec, err := callSpecOf(c)
		if err != nil {
			return nil, elemError{fmt.Errorf("call %d of %d: %w", i+1, len(list), err)}
		}
		specs[i] = spec
	}
	return specs, nil
}

// callSpecOf reads one call of a batch: (name[, args[, dedup_key]]) or
// {"name": ..., "args": ..., "dedup_key": ...}.
func callSpecOf(v any) (CallSpec, error) {
	var name, args, dedup any
	switch x := v.(type) {
	case []any:
		if len(x) < 1 || len(x) > 3 {
			return CallSpec{}, fmt.Errorf("got a list of %d, want (name, args[, dedup_key])", len(x))
		}
		name = x[0]
		if len(x) > 1 {
			args = x[1]
		}
		if len(x) > 2 {
			dedup = x[2]
		}
	case map[string]any:
		for _, k := range SortedKeys(x) {
			switch k {
			case "name":
				name = x[k]
			case "args":
				args = x[k]
			case "dedup_key":
				dedup = x[k]
			default:
				return CallSpec{}, fmt.Errorf("unexpected key %q; the keys are name, args, dedup_key", k)
			}
		}
		if name == nil {
			return CallSpec{}, fmt.Errorf("missing \"name\"")
		}
	default:
		return CallSpec{}, fmt.Errorf("got %s, want (name, args[, dedup_key]) or {name, args, dedup_key}", describe(v))
	}
	var spec CallSpec
	var ok bool
	if spec.Name, ok = name.(string); !ok {
		return spec, fmt.Errorf("name got %s, want a string", describe(name))
	}
	a, err := callArgsOf(args)
	if err != nil {
		return spec, fmt.Errorf("args %w", err)
	}
	spec.Args = a
	if dedup != nil {
		if spec.DedupKey, ok = dedup.(string); !ok {
			return spec, fmt.Errorf("dedup_key got %s, want a string", describe(dedup))
		}
	}
	return spec, nil
}

// elemError is a conversion error about one element of an argument; it
// names the element, not the parameter.
type elemError struct{ error }

func (e elemError) Unwrap() error { return e.error }
