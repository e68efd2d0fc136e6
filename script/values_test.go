package script

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func TestDecodeJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`{"a":1}`, map[string]any{"a": int64(1)}},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`-9223372036854775808`, int64(math.MinInt64)},
		{`9223372036854775808`, float64(9223372036854775808)}, // beyond int64: float
		{`-9223372036854775809`, float64(-9223372036854775809)},
		{`12345678901234567890123`, 1.2345678901234568e22},
		{`1.5`, 1.5},
		{`1.0`, 1.0}, // a float in the text stays a float
		{`1e3`, 1000.0},
		{`-0`, int64(0)},
		{`-0.0`, math.Copysign(0, -1)},
		{`0.1`, 0.1},
		{`"s\u00e9\n"`, "sé\n"},
		{`null`, nil},
		{`true`, true},
		{`[]`, []any{}},
		{`  {}  `, map[string]any{}},
		{"\n[1, [2, {\"x\": null, \"y\": [1.25]}]]\n", []any{int64(1), []any{int64(2), map[string]any{"x": nil, "y": []any{1.25}}}}},
		{`{"a":{"b":{"c":[{"d":-3}]}}}`, map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": int64(-3)}}}}}},
	} {
		got, err := DecodeJSON([]byte(tc.in))
		if err != nil {
			t.Errorf("DecodeJSON(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeJSON(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		if f, ok := tc.want.(float64); ok && math.Signbit(f) != math.Signbit(got.(float64)) {
			t.Errorf("DecodeJSON(%q): sign lost", tc.in)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{``, "invalid JSON"},
		{`   `, "invalid JSON"},
		{`{`, "invalid JSON"},
		{`{"a":}`, "invalid JSON"},
		{`[1,]`, "invalid JSON"},
		{`1 2`, "invalid JSON: invalid character '2' after top-level value"},
		{`{} {}`, "invalid JSON: invalid character '{' after top-level value"},
		{`{}x`, "invalid JSON"},
		{`NaN`, "invalid JSON"},
		{`'s'`, "invalid JSON"},
	} {
		_, err := DecodeJSON([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeJSON(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestDecodeJSONTrailingCloser: "unexpected data after the first value"
// must include a stray ']' or '}'. json.Decoder.More reports false before
// a closing bracket, so DecodeJSON accepts `{}}` and `[1]]` today.
func TestDecodeJSONTrailingCloser(t *testing.T) {
	for _, in := range []string{`{}}`, `[1]]`, `1}`, `"s"]`, `{"a":1} }`} {
		if v, err := DecodeJSON([]byte(in)); err == nil {
			t.Errorf("DecodeJSON(%q) = %#v, want an invalid JSON error", in, v)
		}
	}
}

// TestDecodeJSONResultIsJSONShape: whatever DecodeJSON returns must pass
// CheckValue, so that it can be encoded again. A number too large for a
// float64 (1e400) decodes to +Inf today, which no JSON shape may hold.
func TestDecodeJSONResultIsJSONShape(t *testing.T) {
	for _, in := range []string{`1e400`, `-1e400`, `{"a":[1e999]}`, `1e308`, `5e-324`, `1e-400`} {
		v, err := DecodeJSON([]byte(in))
		if err != nil {
			continue // refusing is fine
		}
		if err := CheckValue(v, "decoded"); err != nil {
			t.Errorf("DecodeJSON(%q) = %v, which is not a JSON shape: %v", in, v, err)
		}
		if _, err := EncodeJSON(v); err != nil {
			t.Errorf("DecodeJSON(%q) does not encode again: %v", in, err)
		}
	}
}

func TestEncodeJSON(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, `null`},
		{true, `true`},
		{int64(math.MaxInt64), `9223372036854775807`},
		{int64(math.MinInt64), `-9223372036854775808`},
		{1.5, `1.5`},
		{float64(2), `2`},
		{1e21, `1e+21`},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`}, // no HTML escaping
		{"\u2028", `"\u2028"`},
		{[]any{}, `[]`},
		{map[string]any{}, `{}`},
		{map[string]any{"b": int64(1), "a": []any{nil, "x", map[string]any{"z": 0.5, "y": false}}}, `{"a":[null,"x",{"y":false,"z":0.5}],"b":1}`},
	} {
		got, err := EncodeJSON(tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("EncodeJSON(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   any
		want string
	}{
		{math.NaN(), "NaN is not a finite number and cannot be JSON"},
		{map[string]any{"a": []any{int64(1), map[string]any{"b": math.Inf(1)}}}, `["a"][1]["b"]: +Inf is not a finite number`},
		{[]any{math.Inf(-1)}, `[0]: -Inf is not a finite number`},
		{3, "a Go int is not a JSON value"},
		{[]string{"x"}, "a Go []string is not a JSON value"},
		{map[string]string{"k": "v"}, "a Go map[string]string is not a JSON value"},
		{map[string]any{"f": func() {}}, `["f"]: a Go func() is not a JSON value`},
		{struct{}{}, "a Go struct {} is not a JSON value"},
	} {
		_, err := EncodeJSON(tc.in)
		if err == nil || err.Error() != strings.TrimSpace(err.Error()) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EncodeJSON(%#v) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestCheckValue(t *testing.T) {
	v := map[string]any{
		"ok": []any{int64(1), "s", nil, true, 2.5},
		"items": []any{int64(0), int64(1), map[string]any{
			"k\"ey": []any{math.NaN()},
		}},
	}
	err := CheckValue(v, "args")
	var ve *ValueError
	if !errors.As(err, &ve) {
		t.Fatalf("CheckValue = %#v, want *ValueError", err)
	}
	if ve.Path != `args["items"][2]["k\"ey"][0]` {
		t.Errorf("Path = %s", ve.Path)
	}
	if err.Error() != `args["items"][2]["k\"ey"][0]: NaN is not a finite number and cannot be JSON` {
		t.Errorf("Error() = %s", err)
	}

	// The first bad part in sorted key order is reported, every time.
	two := map[string]any{"b": math.NaN(), "a": math.Inf(1), "c": math.NaN()}
	for i := 0; i < 20; i++ {
		err := CheckValue(two, "x")
		if err == nil || !strings.HasPrefix(err.Error(), `x["a"]: +Inf`) {
			t.Fatalf("run %d: %v", i, err)
		}
	}

	// The value itself: the root is the path; an empty root means none.
	if err := CheckValue(1, "state[\"k\"]"); err == nil || err.Error() != `state["k"]: a Go int is not a JSON value` {
		t.Errorf("root path: %v", err)
	}
	if err := CheckValue(int32(1), ""); err == nil || err.Error() != "a Go int32 is not a JSON value" {
		t.Errorf("empty root: %v", err)
	}
	if err := CheckValue(map[string]any{"a": []any{map[string]any{}}}, ""); err != nil {
		t.Errorf("valid value: %v", err)
	}
	if (&ValueError{Msg: "m"}).Error() != "m" || (&ValueError{Path: "p", Msg: "m"}).Error() != "p: m" {
		t.Error("ValueError.Error")
	}
}

func TestQuote(t *testing.T) {
	if got := Quote(map[string]any{"b": int64(1), "a": "<>"}); got != `{"a":"<>","b":1}` {
		t.Errorf("Quote = %s", got)
	}
	if got := Quote(map[string]any{"f": math.NaN()}); !strings.HasPrefix(got, "<") || !strings.Contains(got, `["f"]`) {
		t.Errorf("Quote of a bad value = %s", got)
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{true, "a bool"}, {int64(1), "an int"}, {1.5, "a float"}, {"s", "a string"},
		{[]any{}, "a list"}, {map[string]any{}, "a dict"}, {&ResultInfo{}, "a result (use its fields, such as r.output)"},
		{&CallInfo{}, "a call"}, {core.DualToolOutput{}, "a dual(...) value"}, {struct{}{}, "a Go struct {}"},
	} {
		if got := describe(tc.v); got != tc.want {
			t.Errorf("describe(%T) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
