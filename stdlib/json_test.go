package stdlib

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestJSONEncode(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{map[string]any{"z": int64(1), "a": map[string]any{"c": []any{}, "b": nil}}, `{"a":{"b":null,"c":[]},"z":1}`},
		{"<script>&</script>", `"<script>&</script>"`},
		{[]any{true, 1.25, int64(-3), "é"}, `[true,1.25,-3,"é"]`},
		{int64(math.MaxInt64), `9223372036854775807`},
		{nil, `null`},
	} {
		got, err := JSONEncode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("JSONEncode(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	_, err := JSONEncode(map[string]any{"a": []any{math.NaN()}})
	if err == nil || err.Error() != `json.encode: ["a"][0]: NaN is not a finite number and cannot be JSON` {
		t.Errorf("JSONEncode(NaN) = %v", err)
	}
	_, err = JSONEncode(3)
	if err == nil || !strings.HasPrefix(err.Error(), "json.encode: ") {
		t.Errorf("JSONEncode(Go int) = %v", err)
	}
}

func TestJSONEncodeIndent(t *testing.T) {
	got, err := JSONEncodeIndent(map[string]any{"b": []any{int64(1)}, "a": "<&>"}, "", "  ")
	want := "{\n  \"a\": \"<&>\",\n  \"b\": [\n    1\n  ]\n}"
	if err != nil || got != want {
		t.Errorf("JSONEncodeIndent = %q, %v; want %q", got, err, want)
	}
	got, err = JSONEncodeIndent([]any{}, "# ", "\t")
	if err != nil || got != "[]" {
		t.Errorf("empty list = %q, %v", got, err)
	}
	got, _ = JSONEncodeIndent(map[string]any{"k": int64(1)}, "# ", "\t")
	if got != "{\n# \t\"k\": 1\n# }" {
		t.Errorf("prefix = %q", got)
	}
	_, err = JSONEncodeIndent(map[string]any{"f": math.Inf(1)}, "", " ")
	if err == nil || !strings.HasPrefix(err.Error(), "json.encode_indent: ") || !strings.Contains(err.Error(), `["f"]: +Inf`) {
		t.Errorf("JSONEncodeIndent(+Inf) = %v", err)
	}
}

func TestJSONDecode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`{"i": 1, "f": 1.5, "e": 2e2, "l": [1, "x", null, false]}`, map[string]any{"i": int64(1), "f": 1.5, "e": 200.0, "l": []any{int64(1), "x", nil, false}}},
		{`-42`, int64(-42)},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`3.0`, 3.0},
		{`"<&>"`, "<&>"},
		{` [ ] `, []any{}},
	} {
		got, err := JSONDecode(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("JSONDecode(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{``, `{`, `[1,]`, `{"a" 1}`, `1 2`, `undefined`} {
		_, err := JSONDecode(in)
		if err == nil || !strings.HasPrefix(err.Error(), "json.decode: invalid JSON") {
			t.Errorf("JSONDecode(%q) error = %v", in, err)
		}
	}
}

// TestJSONDecodeRejectsTrailingBrackets: `[1]]` is not JSON. JSONDecode
// accepts it (via script.DecodeJSON, which asks json.Decoder.More()).
func TestJSONDecodeRejectsTrailingBrackets(t *testing.T) {
	for _, in := range []string{`[1]]`, `{}}`, `"s"]`} {
		if v, err := JSONDecode(in); err == nil {
			t.Errorf("JSONDecode(%q) = %#v, want an error", in, v)
		}
	}
}

// TestJSONRoundTrip: encode(decode(s)) is canonical and stable.
func TestJSONRoundTrip(t *testing.T) {
	in := `{"z":[1,2.5,{"y":null,"x":"<>"}],"a":true}`
	v, err := JSONDecode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := JSONEncode(v)
	if err != nil || out != `{"a":true,"z":[1,2.5,{"x":"<>","y":null}]}` {
		t.Fatalf("round trip = %s, %v", out, err)
	}
	v2, _ := JSONDecode(out)
	if !reflect.DeepEqual(v, v2) {
		t.Error("second round trip differs")
	}
}

func TestJSONIndent(t *testing.T) {
	got, err := JSONIndent(`{"a":[1,{"b":2}]}`, "", " ")
	if err != nil || got != "{\n \"a\": [\n  1,\n  {\n   \"b\": 2\n  }\n ]\n}" {
		t.Errorf("JSONIndent = %q, %v", got, err)
	}
	// Indent keeps the input's key order (it does not re-encode).
	got, _ = JSONIndent(`{"z":1,"a":2}`, "", "")
	if got != "{\n\"z\": 1,\n\"a\": 2\n}" {
		t.Errorf("JSONIndent order = %q", got)
	}
	_, err = JSONIndent(`{"a":`, "", " ")
	if err == nil || !strings.HasPrefix(err.Error(), "json.indent: invalid JSON") {
		t.Errorf("JSONIndent(bad) = %v", err)
	}
}
