package script

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/stdlib"
)

// The values of the modules: times, durations and matches, Objects that
// every binding shows the same way.

// TimeValue is a time of the time module: t.year … t.unix_nano,
// t.format(layout), t.in_location(name); t - u is a duration, t + d a
// time; times compare.
type TimeValue time.Time

// DurationValue is a duration of the time module: d.hours … d.nanoseconds;
// it adds, subtracts, multiplies and divides; durations compare.
type DurationValue time.Duration

var (
	_ Comparer   = TimeValue{}
	_ Operator   = TimeValue{}
	_ Hasher     = TimeValue{}
	_ Comparer   = DurationValue(0)
	_ Operator   = DurationValue(0)
	_ Hasher     = DurationValue(0)
	_ Durationer = DurationValue(0)
	_ Object     = (*matchValue)(nil)
)

func (TimeValue) TypeName() string { return "time.time" }
func (t TimeValue) String() string { return time.Time(t).Format(stdlib.TimeFormat) }
func (TimeValue) AttrNames() []string {
	return append([]string{"format", "in_location"}, stdlib.TimeFields...)
}

func (t TimeValue) Attr(name string) (any, bool, error) {
	tt := time.Time(t)
	switch name {
	case "format":
		return method("format", []Param{{Name: "layout", Kind: String}}, func(a Args) (any, error) {
			return tt.Format(a["layout"].(string)), nil
		}), true, nil
	case "in_location":
		return method("in_location", []Param{{Name: "location", Kind: String}}, func(a Args) (any, error) {
			u, err := stdlib.InLocation(tt, a["location"].(string))
			return TimeValue(u), prefixed("in_location", err)
		}), true, nil
	}
	v, ok := stdlib.TimeField(tt, name)
	return v, ok, nil
}

func (t TimeValue) Compare(other any) (int, error) {
	u, ok := other.(TimeValue)
	if !ok {
		return 0, fmt.Errorf("cannot compare time.time with %s", describe(other))
	}
	return time.Time(t).Compare(time.Time(u)), nil
}

// Hash is that of the instant, so equal times in different locations
// hash alike.
func (t TimeValue) Hash() uint32 { return hash64(uint64(time.Time(t).UnixNano())) }

func (t TimeValue) Binary(op string, other any, reversed bool) (any, bool, error) {
	v, ok, err := stdlib.TimeBinary(op, time.Time(t), timeOperand(other), reversed)
	return timeResult(v), ok, err
}

func (DurationValue) TypeName() string    { return "time.duration" }
func (d DurationValue) String() string    { return time.Duration(d).String() }
func (DurationValue) AttrNames() []string { return stdlib.DurationFields }
func (d DurationValue) Attr(name string) (any, bool, error) {
	v, ok := stdlib.DurationField(time.Duration(d), name)
	return v, ok, nil
}

func (d DurationValue) Compare(other any) (int, error) {
	e, ok := other.(DurationValue)
	if !ok {
		return 0, fmt.Errorf("cannot compare time.duration with %s", describe(other))
	}
	return cmp.Compare(d, e), nil
}

func (d DurationValue) Hash() uint32 { return hash64(uint64(d)) }

// Duration makes a duration of the time module a Duration argument, as in
// timeout(2 * time.second).
func (d DurationValue) Duration() time.Duration { return time.Duration(d) }

func hash64(x uint64) uint32 { return uint32(x ^ x>>32) }

func (d DurationValue) Binary(op string, other any, reversed bool) (any, bool, error) {
	v, ok, err := stdlib.DurationBinary(op, time.Duration(d), timeOperand(other), reversed)
	return timeResult(v), ok, err
}

// timeOperand and timeResult turn the module's values into Go's and back.
func timeOperand(v any) any {
	switch x := v.(type) {
	case TimeValue:
		return time.Time(x)
	case DurationValue:
		return time.Duration(x)
	}
	return v
}

func timeResult(v any) any {
	switch x := v.(type) {
	case time.Time:
		return TimeValue(x)
	case time.Duration:
		return DurationValue(x)
	}
	return v
}

// method is a method of a module value: a Builtin whose receiver is bound.
func method(name string, params []Param, fn func(Args) (any, error)) Builtin {
	return Builtin{Name: name, Params: params, Fn: func(_ context.Context, a Args) (any, error) { return fn(a) }}
}

// matchValue is a regular expression match with Python's methods: group,
// groups, groupdict, start, end, span. Offsets are byte offsets from 0.
type matchValue struct{ m *stdlib.Match }

func (*matchValue) TypeName() string { return "match" }
func (v *matchValue) String() string { return fmt.Sprintf("<match %q>", v.m.Groups[0].Text) }
func (*matchValue) AttrNames() []string {
	return []string{"end", "group", "groupdict", "groups", "span", "start"}
}

func (v *matchValue) Attr(name string) (any, bool, error) {
	group := []Param{{Name: "group", Kind: Any, Optional: true, Default: int64(0)}}
	switch name {
	case "group":
		return method(name, group, func(a Args) (any, error) {
			g, err := v.group(name, a["group"])
			if err != nil || !g.Matched {
				return nil, err
			}
			return g.Text, nil
		}), true, nil
	case "groups":
		return method(name, []Param{{Name: "default", Kind: Any, Optional: true}}, func(a Args) (any, error) {
			out := make(Tuple, len(v.m.Groups)-1)
			for i, g := range v.m.Groups[1:] {
				out[i] = a["default"]
				if g.Matched {
					out[i] = g.Text
				}
			}
			return out, nil
		}), true, nil
	case "groupdict":
		return method(name, nil, func(Args) (any, error) {
			out := map[string]any{}
			for i, n := range v.m.Names {
				if n != "" {
					out[n] = nil
					if g := v.m.Groups[i]; g.Matched {
						out[n] = g.Text
					}
				}
			}
			return out, nil
		}), true, nil
	case "start", "end", "span":
		return method(name, group, func(a Args) (any, error) {
			g, err := v.group(name, a["group"])
			switch {
			case err != nil:
				return nil, err
			case name == "start":
				return int64(g.Start), nil
			case name == "end":
				return int64(g.End), nil
			}
			return Results{int64(g.Start), int64(g.End)}, nil
		}), true, nil
	}
	return nil, false, nil
}

// group resolves a group given by number or name.
func (v *matchValue) group(fn string, n any) (stdlib.Group, error) {
	i := -1
	switch x := n.(type) {
	case int64:
		if x >= 0 && x < int64(len(v.m.Groups)) {
			i = int(x)
		}
	case float64:
		if x == float64(int(x)) && x >= 0 && int(x) < len(v.m.Groups) {
			i = int(x)
		}
	case string:
		i = v.m.GroupIndex(x)
	}
	if i < 0 {
		return stdlib.Group{}, fmt.Errorf("%s: no such group %s (the pattern has %d)", fn, display(n), len(v.m.Groups)-1)
	}
	return v.m.Groups[i], nil
}
