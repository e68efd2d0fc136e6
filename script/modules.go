package script

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agentsh/agentsh/stdlib"
)

// The modules scripts reach with a dot, declared once over the stdlib
// package; every language gets them from Host.Modules (and, in script
// tests, TestingModules). Their values are in modobjects.go.

// coreModules are the modules of every script on h: json, re, time, path,
// shell and state.
func (h *Host) coreModules() []Module { return append(PureModules(), h.stateModule()) }

// PureModules returns the modules that need no host, for sandboxed code:
// json, re, time, shell and path.
func PureModules() []Module {
	return []Module{jsonModule, reModule, timeModule, shellModule, pathModule}
}

// TestingModules returns the modules of script tests (agentsh test):
// assert, with the assertions on how h's policies decide a call
// (allowed, asks, denied).
func (h *Host) TestingModules() []Module {
	m := assertModule
	m.Doc = "assertions of script tests: eq, ne, true, contains, fails; allowed, asks, denied (how the policies decide a call, which does not run)"
	m.Members = append(append([]Builtin{}, m.Members...),
		h.rulingAssertion("allowed", OutcomeAllow, "the call would run (decided as decide(...) does, running nothing); returns the ruling"),
		h.rulingAssertion("asks", OutcomeAsk, "the call would ask for approval; reason = a substring of the reason; returns the ruling"),
		h.rulingAssertion("denied", OutcomeDeny, "the call would not run, by a hook's verdict; reason = a substring of the reason; "+
			"hook_error = True wants the deny of a hook that fails (raises an error, panics, runs out of time, rewrites badly) instead; returns the ruling",
			Param{Name: "hook_error", Kind: Bool, Optional: true, Default: false}))
	return []Module{m}
}

// jsonCodec is the json module over the host's strict codec.
var jsonCodec = stdlib.JSON{Marshal: EncodeJSON, Unmarshal: DecodeJSON}

var jsonModule = Module{
	Name: "json",
	Doc:  "JSON text: encode, encode_indent, decode, indent (object keys sorted)",
	Members: []Builtin{
		{Name: "encode", Doc: "x as compact JSON", Params: []Param{{Name: "x", Kind: Any}},
			Fn: func(_ context.Context, a Args) (any, error) { return jsonCodec.Encode(a["x"]) }},
		{Name: "encode_indent", Doc: "x as indented JSON",
			Params: []Param{{Name: "x", Kind: Any}, {Name: "prefix", Kind: String, Optional: true, Default: ""}, {Name: "indent", Kind: String, Optional: true, Default: "\t"}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return jsonCodec.EncodeIndent(a["x"], a["prefix"].(string), a["indent"].(string))
			}},
		{Name: "decode", Doc: "the value of JSON text x, or default when x is not JSON",
			Params: []Param{{Name: "x", Kind: String}, {Name: "default", Kind: Any, Optional: true}},
			Fn: func(_ context.Context, a Args) (any, error) {
				v, err := jsonCodec.Decode(a["x"].(string))
				if def, ok := a["default"]; err != nil && ok {
					return def, nil
				}
				return v, err
			}},
		{Name: "indent", Doc: "JSON text re-indented",
			Params: []Param{{Name: "str", Kind: String}, {Name: "prefix", Kind: String, Optional: true, Default: ""}, {Name: "indent", Kind: String, Optional: true, Default: "\t"}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return jsonCodec.Indent(a["str"].(string), a["prefix"].(string), a["indent"].(string))
			}},
	},
}

var reModule = Module{
	Name: "re",
	Doc:  "regular expressions (RE2): search, match, fullmatch, findall, sub, split, escape",
	Members: []Builtin{
		matcher("search", "the leftmost match of pattern in string, or None", stdlib.Search),
		matcher("match", "a match at the start of string, or None", stdlib.MatchStart),
		matcher("fullmatch", "a match of all of string, or None", stdlib.FullMatch),
		{Name: "findall", Doc: "every match: the text, its group, or its groups",
			Params: []Param{{Name: "pattern", Kind: String}, {Name: "string", Kind: String}},
			Fn: func(ctx context.Context, a Args) (any, error) {
				out, err := stdlib.FindAll(ctx, a["pattern"].(string), a["string"].(string))
				return out, prefixed("re.findall", err)
			}},
		{Name: "sub", Doc: "string with the first count matches (0: all) replaced by repl ($1, ${name})",
			Params: []Param{{Name: "pattern", Kind: String}, {Name: "repl", Kind: String}, {Name: "string", Kind: String}, {Name: "count", Kind: Int, Optional: true, Default: 0}},
			Fn: func(ctx context.Context, a Args) (any, error) {
				out, err := stdlib.Sub(ctx, a["pattern"].(string), a["repl"].(string), a["string"].(string), a["count"].(int))
				return out, prefixed("re.sub", err)
			}},
		{Name: "split", Doc: "string split around matches, at most maxsplit times (0: all)",
			Params: []Param{{Name: "pattern", Kind: String}, {Name: "string", Kind: String}, {Name: "maxsplit", Kind: Int, Optional: true, Default: 0}},
			Fn: func(ctx context.Context, a Args) (any, error) {
				out, err := stdlib.Split(ctx, a["pattern"].(string), a["string"].(string), a["maxsplit"].(int))
				return out, prefixed("re.split", err)
			}},
		{Name: "escape", Doc: "string with every metacharacter quoted",
			Params: []Param{{Name: "string", Kind: String}},
			Fn:     func(_ context.Context, a Args) (any, error) { return stdlib.Escape(a["string"].(string)), nil }},
	},
}

func matcher(name, doc string, find func(ctx context.Context, pattern, s string) (*stdlib.Match, error)) Builtin {
	return Builtin{Name: name, Doc: doc,
		Params: []Param{{Name: "pattern", Kind: String}, {Name: "string", Kind: String}},
		Fn: func(ctx context.Context, a Args) (any, error) {
			m, err := find(ctx, a["pattern"].(string), a["string"].(string))
			if err != nil || m == nil {
				return nil, prefixed("re."+name, err)
			}
			return &matchValue{m: m}, nil
		}}
}

func prefixed(fn string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", fn, err)
}

// clockKey is the context key of the clock time.now reads.
type clockKey struct{}

// WithClock returns ctx with the clock time.now() reads in builtins
// called under it; a binding sets its interpreter's clock (Options.Now)
// this way. A nil clock is the real one.
func WithClock(ctx context.Context, clock func() time.Time) context.Context {
	if clock == nil {
		return ctx
	}
	return context.WithValue(ctx, clockKey{}, clock)
}

func clockOf(ctx context.Context) func() time.Time {
	clock, _ := ctx.Value(clockKey{}).(func() time.Time)
	return clock
}

var timeModule = Module{
	Name: "time",
	Doc:  "times and durations, as go.starlark.net's time module",
	Members: []Builtin{
		{Name: "now", Doc: "the current time (fixed in script tests)",
			Fn: func(ctx context.Context, _ Args) (any, error) { return TimeValue(stdlib.Now(clockOf(ctx))), nil }},
		{Name: "parse_time", Doc: "x read with the layout format (RFC 3339) in location (UTC)",
			Params: []Param{{Name: "x", Kind: String}, {Name: "format", Kind: String, Optional: true, Default: time.RFC3339}, {Name: "location", Kind: String, Optional: true, Default: "UTC"}},
			Fn: func(_ context.Context, a Args) (any, error) {
				t, err := stdlib.ParseTime(a["x"].(string), a["format"].(string), a["location"].(string))
				return TimeValue(t), prefixed("time.parse_time", err)
			}},
		{Name: "parse_duration", Doc: `a duration such as "1m30s"`,
			Params: []Param{{Name: "d", Kind: Any}},
			Fn: func(_ context.Context, a Args) (any, error) {
				switch d := a["d"].(type) {
				case DurationValue:
					return d, nil
				case string:
					v, err := time.ParseDuration(d)
					return DurationValue(v), prefixed("time.parse_duration", err)
				}
				return nil, fmt.Errorf("time.parse_duration: got %s, want a duration or a string such as \"1m30s\"", describe(a["d"]))
			}},
		{Name: "from_timestamp", Doc: "the time sec seconds and nsec nanoseconds after 1970-01-01 UTC",
			Params: []Param{{Name: "sec", Kind: Any}, {Name: "nsec", Kind: Any, Optional: true, Default: int64(0)}},
			Fn: func(_ context.Context, a Args) (any, error) {
				sec, err := int64Arg("time.from_timestamp", "sec", a["sec"])
				if err != nil {
					return nil, err
				}
				nsec, err := int64Arg("time.from_timestamp", "nsec", a["nsec"])
				if err != nil {
					return nil, err
				}
				return TimeValue(stdlib.FromTimestamp(sec, nsec)), nil
			}},
		{Name: "is_valid_timezone", Doc: "whether loc names a time zone",
			Params: []Param{{Name: "loc", Kind: String}},
			Fn:     func(_ context.Context, a Args) (any, error) { return stdlib.IsValidTimezone(a["loc"].(string)), nil }},
		{Name: "time", Doc: "the time of a calendar date: time(year = 2025, month = 1, day = 1, location = \"UTC\")",
			Table: true,
			Params: []Param{{Name: "year", Kind: Int, Optional: true, Default: 0}, {Name: "month", Kind: Int, Optional: true, Default: 0},
				{Name: "day", Kind: Int, Optional: true, Default: 0}, {Name: "hour", Kind: Int, Optional: true, Default: 0},
				{Name: "minute", Kind: Int, Optional: true, Default: 0}, {Name: "second", Kind: Int, Optional: true, Default: 0},
				{Name: "nanosecond", Kind: Int, Optional: true, Default: 0}, {Name: "location", Kind: String, Optional: true, Default: ""}},
			Fn: func(_ context.Context, a Args) (any, error) {
				t, err := stdlib.Date(a["year"].(int), a["month"].(int), a["day"].(int), a["hour"].(int),
					a["minute"].(int), a["second"].(int), a["nanosecond"].(int), a["location"].(string))
				return TimeValue(t), prefixed("time.time", err)
			}},
	},
	Values: map[string]any{
		"nanosecond": DurationValue(time.Nanosecond), "microsecond": DurationValue(time.Microsecond),
		"millisecond": DurationValue(time.Millisecond), "second": DurationValue(time.Second),
		"minute": DurationValue(time.Minute), "hour": DurationValue(time.Hour),
	},
}

// int64Arg is v as an integer; a float with an exact integral value
// counts (Lua has only numbers).
func int64Arg(fn, name string, v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("%s: %s must be an integer, got %s", fn, name, display(v))
}

// stateModule is the session store shared by every call, safe across
// goroutines and languages.
func (h *Host) stateModule() Module {
	return Module{
		Name: "state",
		Doc:  "the session store shared by every call: get, set, incr, delete, keys",
		Members: []Builtin{
			{Name: "get", Doc: "the value under key, or default",
				Params: []Param{{Name: "key", Kind: String}, {Name: "default", Kind: Any, Optional: true}},
				Fn: func(ctx context.Context, a Args) (any, error) {
					if v := h.StateGet(ctx, a["key"].(string), nil); v != nil {
						return v, nil
					}
					return a["default"], nil
				}},
			{Name: "set", Doc: "store a JSON value under key",
				Params: []Param{{Name: "key", Kind: String}, {Name: "value", Kind: Any}},
				Fn: func(ctx context.Context, a Args) (any, error) {
					return nil, prefixed("state.set", h.StateSet(ctx, a["key"].(string), a["value"]))
				}},
			{Name: "incr", Doc: "add n (1) to the integer under key and return it, atomically",
				Params: []Param{{Name: "key", Kind: String}, {Name: "n", Kind: Any, Optional: true, Default: int64(1)}},
				Fn: func(ctx context.Context, a Args) (any, error) {
					n, err := int64Arg("state.incr", "n", a["n"])
					if err != nil {
						return nil, err
					}
					return h.StateIncr(ctx, a["key"].(string), n)
				}},
			{Name: "delete", Doc: "remove key", Params: []Param{{Name: "key", Kind: String}},
				Fn: func(ctx context.Context, a Args) (any, error) { h.StateDelete(ctx, a["key"].(string)); return nil, nil }},
			{Name: "keys", Doc: "the keys, sorted",
				Fn: func(ctx context.Context, _ Args) (any, error) { return h.StateKeys(ctx), nil }},
		},
	}
}

// assertModule: the assertions of script tests. A failed assertion is an
// *AssertionError at the position of the assert call.
var assertModule = Module{
	Name: "assert",
	Doc:  "assertions of script tests: eq, ne, true, contains, fails",
	Members: []Builtin{
		{Name: "eq", Doc: "got equals want",
			Params: []Param{{Name: "got", Kind: Operand}, {Name: "want", Kind: Operand}, {Name: "msg", Kind: Operand, Optional: true}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return nil, stdlib.AssertEqual(a["got"].(Value), a["want"].(Value), message(a))
			}},
		{Name: "ne", Doc: "a does not equal b",
			Params: []Param{{Name: "a", Kind: Operand}, {Name: "b", Kind: Operand}, {Name: "msg", Kind: Operand, Optional: true}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return nil, stdlib.AssertNotEqual(a["a"].(Value), a["b"].(Value), message(a))
			}},
		assertTrue("true"),
		assertTrue("is_true"),
		{Name: "contains", Doc: "a substring, list element or dict key",
			Params: []Param{{Name: "container", Kind: Operand}, {Name: "item", Kind: Operand}, {Name: "msg", Kind: Operand, Optional: true}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return nil, stdlib.AssertContains(a["container"].(Value), a["item"].(Value), message(a))
			}},
		{Name: "fails", Doc: "fn() raises an error matching the RE2 pattern (searched); returns the message",
			Params: []Param{{Name: "fn", Kind: Inline}, {Name: "pattern", Kind: String, Optional: true, Default: ""}},
			Fn: func(ctx context.Context, a Args) (any, error) {
				_, err := a["fn"].(Func).Call(ctx)
				var fatal *Fatal
				if err != nil && (ctx.Err() != nil || errors.As(err, &fatal)) {
					// The end of the test is not the failure it expects.
					return nil, err
				}
				return stdlib.AssertFails(err, a["pattern"].(string))
			}},
	},
}

func assertTrue(name string) Builtin {
	return Builtin{Name: name, Doc: "v is true",
		Params: []Param{{Name: "v", Kind: Operand}, {Name: "msg", Kind: Operand, Optional: true}},
		Fn: func(_ context.Context, a Args) (any, error) {
			return nil, stdlib.AssertTrue("assert."+name, a["v"].(Value), message(a))
		}}
}

func message(a Args) string {
	msg, _ := a["msg"].(Value)
	return stdlib.MessageText(msg)
}
