package script

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
)

// decodeSeeds are JSON texts at the edges of what DecodeJSON accepts:
// TestDecodeAsMatchesReference checks each and FuzzDecodeAs starts from
// them.
var decodeSeeds = []string{
	`{"path":"src/main.go","limit":10}`,
	" \t\n\r{ \"a\" : [ 1 , 2 ] , \"b\" : { } }\r\n",
	``, ` `, `nul`, `tru`, `nullx`, `true false`, `[1,]`, `{"a":1,}`, `[1 2]`, `{"a" 1}`, `{1:2}`,
	`{"a":1 "b":2}`, `[`, `]`, `{`, `}`, `[}`, `{]`, `{"a"}`, `{"a":}`, `{,}`, `[,]`, `[,1]`,
	// numbers
	`0`, `-0`, `-0.0`, `0.0`, `01`, `-01`, `-`, `+1`, `1.`, `.5`, `1e`, `1e+`, `0x10`, `NaN`, `Infinity`, `-Infinity`,
	`1E2`, `1e+2`, `1e-2`, `1.5e-3`, `2.5E+10`, `1e400`, `-1e400`, `1e-400`, `4.9e-324`, `5e-325`,
	`1.7976931348623157e308`, `1.7976931348623159e308`, `123456789012345678`, `-123456789012345678`,
	`1234567890123456789`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
	`-9223372036854775809`, `99999999999999999999999999999`, `0.1`, `[1.0, 2, -3.25e1]`,
	`{"pad": 1e400}`, `[0, [1e400]]`,
	// strings
	`"plain"`, `""`, `"a\u0000b"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`,
	`"\ud83d\ud83d\ude00"`, `"\ude00\ud83d"`, `"\u00e9\u20AC"`, `"\uZZZZ"`, `"\u12"`, `"\u12"x`, `"\x"`, `"\'"`,
	`"\"\\\/\b\f\n\r\t"`, `"abc`, `"abc\`, `"abc\"`, "\"tab\there\"", "\"nl\nhere\"", "\"\x7f\"",
	"\"\xff\"", "\"a\xe2\x82\"", "\"\xe2\x82\xac\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"",
	"\"é\\n\xff\"", `"\ud83d\ude00\ud83d"`, `"\uD83D\uDE00"`, "\"\\ud83d\xff\"",
	// keys: repeated (the last wins), repeated after unquoting, out of order
	`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"\u0061":1,"a":2}`, "{\"\xff\":1,\"\xfe\":2}",
	`{"z":1,"y":2,"x":3,"y":4}`, `{"":0,"a":{"":1}}`, `{"a":[{"b":1,"b":[2]}],"a":null}`,
	// whitespace and trailing data
	`{} {}`, `1 2`, `[]]`, `{}x`, `"a""b"`, "\xef\xbb\xbf{}", "\u00a0{}", "{}\u00a0", "[1,\v2]", "\f1",
	// depth: at and beyond MaxDepth, and beyond encoding/json's 10000
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", MaxDepth+1),
}

// sameJSON reports whether two JSON shapes are equal, telling int64 from
// float64, -0 from 0, and nil from empty containers.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool, int64, string:
		return a == b
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// strictShapes is Shapes that checks the Builder contract: an object's
// keys arrive sorted and unique.
type strictShapes struct {
	Shapes
	bad *string
}

func (s strictShapes) Object(keys []string, vals []any) any {
	if !sort.StringsAreSorted(keys) || len(keys) != len(vals) {
		*s.bad = fmt.Sprintf("Object(%q, %d values): keys not sorted", keys, len(vals))
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			*s.bad = fmt.Sprintf("Object(%q): key %q twice", keys, keys[i])
		}
	}
	return s.Shapes.Object(keys, vals)
}

// checkDecode compares the scanner with the reference decoder on raw:
// the scanner accepts exactly what the reference accepts, with the same
// value, and DecodeAs fails with the reference's error, word for word.
func checkDecode(t *testing.T, raw []byte) {
	t.Helper()
	want, wantErr := decodeJSONReference(raw, "args")
	var bad string
	got, ok := scanJSON[any](raw, strictShapes{bad: &bad})
	if bad != "" {
		t.Errorf("scan %.80q: %s", raw, bad)
	}
	switch {
	case wantErr != nil && ok:
		t.Errorf("scan %.80q accepted %.80v; the reference decoder says %v", raw, got, wantErr)
	case wantErr == nil && !ok:
		t.Errorf("scan %.80q refused; the reference decoder makes %.80v", raw, want)
	case wantErr == nil && !sameJSON(got, want):
		t.Errorf("scan %.80q = %#.80v, want %#.80v", raw, got, want)
	}
	v, err := DecodeAs[any](raw, "args", Shapes{})
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Errorf("DecodeAs(%.80q) error = %v, want %v", raw, err, wantErr)
	}
	if wantErr == nil && !sameJSON(v, want) {
		t.Errorf("DecodeAs(%.80q) = %#.80v, want %#.80v", raw, v, want)
	}
}

// TestDecodeAsMatchesReference: the one-pass scanner behind DecodeAs and
// DecodeJSON agrees with encoding/json's reading on every seed: invalid
// UTF-8 and lone surrogates, repeated keys, depth at and beyond MaxDepth,
// numbers at and beyond a float64's range, -0, whitespace, trailing data.
func TestDecodeAsMatchesReference(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	// Long values, which cross no buffer boundary but many elements.
	long := "[" + strings.Repeat(`{"k":"`+strings.Repeat("x", 100)+`","n":-1.5e3},`, 500) + "0]"
	checkDecode(t, []byte(long))
	checkDecode(t, []byte(`"`+strings.Repeat(`\u00e9\ud83d\ude00`, 1000)+"\xff\"")) // a growing unquote buffer
}

// FuzzDecodeAs: what the scanner accepts, and the values it makes, are
// the reference decoder's on any text. The seeds run in every go test.
func FuzzDecodeAs(f *testing.F) {
	for _, s := range decodeSeeds {
		if len(s) < 4096 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkDecode(t, raw) })
}

// TestDecodeAsValues: the values DecodeAs hands a Builder, by kind.
func TestDecodeAsValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`-0`, int64(0)},
		{`-0.0`, math.Copysign(0, -1)},
		{`1e-400`, 0.0}, // beneath a float64's range: zero, as strconv rounds
		{`123456789012345678`, int64(123456789012345678)},
		{`-9223372036854775808`, int64(math.MinInt64)},
		{`9223372036854775808`, 9223372036854775808.0},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"},
		{`"\ud83d\u0041"`, "\uFFFDA"},
		{"\"a\xffb\"", "a\uFFFDb"},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"},
		{`{"b":1,"a":2,"b":3}`, map[string]any{"a": int64(2), "b": int64(3)}},
		{"{\"\xff\":1,\"\xfe\":2}", map[string]any{"\uFFFD": int64(2)}},
		{`[[], {}]`, []any{[]any{}, map[string]any{}}},
	} {
		got, err := DecodeAs[any]([]byte(tc.in), "", Shapes{})
		if err != nil || !sameJSON(got, tc.want) {
			t.Errorf("DecodeAs(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"pad": 1e400}`, `args["pad"]: number 1e400 is out of range`},
		{`[1,]`, `invalid JSON: invalid character ']' looking for beginning of value`},
		{`{} x`, `invalid JSON: invalid character 'x' after top-level value`},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), `value at args[0][0][0][0][0][0][0][0]…[0][0][0][0] is nested deeper than 1000 levels`},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), `args: value is nested deeper than 1000 levels`},
	} {
		_, err := DecodeAs[any]([]byte(tc.in), "args", Shapes{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeAs(%.40q) error = %v, want %s", tc.in, err, tc.want)
		}
	}
}

// noFloats is a Builder that cannot hold floats.
type noFloats struct{ Shapes }

func (noFloats) Float(f float64) (any, error) { return nil, errors.New("floats are not allowed here") }

// TestDecodeAsBuilderRefuses: a value the Builder refuses is an error
// with its path, the first in sorted key order.
func TestDecodeAsBuilderRefuses(t *testing.T) {
	_, err := DecodeAs[any]([]byte(`{"z": 1.5, "a": [1, {"k": 2.5}]}`), "args", noFloats{})
	if want := `args["a"][1]["k"]: floats are not allowed here`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	if v, err := DecodeAs[any]([]byte(`{"a": [1, 2]}`), "args", noFloats{}); err != nil || !sameJSON(v, map[string]any{"a": []any{int64(1), int64(2)}}) {
		t.Errorf("no floats: %v, %v", v, err)
	}
}

var benchDecodeArgs = []byte(`{"path":"src/main.go","limit":10}`)

// BenchmarkDecodeAs: a tool call's arguments into JSON shapes, by the
// scanner and by the reference (encoding/json) path.
func BenchmarkDecodeAs(b *testing.B) {
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeAs[any](benchDecodeArgs, "args", Shapes{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeAsReference[any](benchDecodeArgs, "args", Shapes{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestShared: each key keeps its own conversion, a later Store of a key
// replaces it, and concurrent Stores of many keys lose none.
func TestShared(t *testing.T) {
	type key struct{ n int }
	s := NewShared(map[string]any{"a": int64(1)})
	if _, ok := s.Load(key{0}); ok {
		t.Fatal("Load before any Store found a value")
	}
	s.Store(key{0}, "zero")
	s.Store(key{1}, "one")
	s.Store(key{0}, "zero again")
	for k, want := range map[key]string{{0}: "zero again", {1}: "one"} {
		if got, ok := s.Load(k); !ok || got != want {
			t.Errorf("Load(%v) = %v, %v; want %s", k, got, ok, want)
		}
	}
	s = NewShared(nil)
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Store(key{i}, i)
			s.Store(key{i}, i+n) // the last Store of a key wins
		}()
	}
	wg.Wait()
	for i := range n {
		if got, ok := s.Load(key{i}); !ok || got != i+n {
			t.Errorf("Load(key{%d}) = %v, %v; want %d", i, got, ok, i+n)
		}
	}
}
