package stdlib

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// testJSON is the module over encoding/json, which sorts map keys; the
// host's strict codec is tested with the module in package script.
var testJSON = JSON{
	Marshal: func(v any) ([]byte, error) {
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil, errors.New("not finite")
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
	},
	Unmarshal: func(data []byte) (any, error) {
		if !json.Valid(data) {
			return nil, errors.New("invalid JSON")
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return numbers(v), err
	},
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}

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
		got, err := testJSON.Encode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("testJSON.Encode(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	_, err := testJSON.Encode(math.NaN())
	if err == nil || err.Error() != "json.encode: not finite" {
		t.Errorf("Encode(NaN) = %v, want the codec's error after json.encode", err)
	}
}

func TestJSONEncodeIndent(t *testing.T) {
	got, err := testJSON.EncodeIndent(map[string]any{"b": []any{int64(1)}, "a": "<&>"}, "", "  ")
	want := "{\n  \"a\": \"<&>\",\n  \"b\": [\n    1\n  ]\n}"
	if err != nil || got != want {
		t.Errorf("JSONEncodeIndent = %q, %v; want %q", got, err, want)
	}
	got, err = testJSON.EncodeIndent([]any{}, "# ", "\t")
	if err != nil || got != "[]" {
		t.Errorf("empty list = %q, %v", got, err)
	}
	got, _ = testJSON.EncodeIndent(map[string]any{"k": int64(1)}, "# ", "\t")
	if got != "{\n# \t\"k\": 1\n# }" {
		t.Errorf("prefix = %q", got)
	}
	_, err = testJSON.EncodeIndent(math.Inf(1), "", " ")
	if err == nil || err.Error() != "json.encode_indent: not finite" {
		t.Errorf("EncodeIndent(+Inf) = %v", err)
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
		got, err := testJSON.Decode(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("testJSON.Decode(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{``, `{`, `[1,]`, `{"a" 1}`, `1 2`, `undefined`} {
		_, err := testJSON.Decode(in)
		if err == nil || !strings.HasPrefix(err.Error(), "json.decode: invalid JSON") {
			t.Errorf("testJSON.Decode(%q) error = %v", in, err)
		}
	}
}

// TestJSONRoundTrip: encode(decode(s)) is canonical and stable.
func TestJSONRoundTrip(t *testing.T) {
	in := `{"z":[1,2.5,{"y":null,"x":"<>"}],"a":true}`
	v, err := testJSON.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := testJSON.Encode(v)
	if err != nil || out != `{"a":true,"z":[1,2.5,{"x":"<>","y":null}]}` {
		t.Fatalf("round trip = %s, %v", out, err)
	}
	v2, _ := testJSON.Decode(out)
	if !reflect.DeepEqual(v, v2) {
		t.Error("second round trip differs")
	}
}

func TestJSONIndent(t *testing.T) {
	got, err := testJSON.Indent(`{"a":[1,{"b":2}]}`, "", " ")
	if err != nil || got != "{\n \"a\": [\n  1,\n  {\n   \"b\": 2\n  }\n ]\n}" {
		t.Errorf("JSONIndent = %q, %v", got, err)
	}
	// Indent keeps the input's key order (it does not re-encode).
	got, _ = testJSON.Indent(`{"z":1,"a":2}`, "", "")
	if got != "{\n\"z\": 1,\n\"a\": 2\n}" {
		t.Errorf("JSONIndent order = %q", got)
	}
	_, err = testJSON.Indent(`{"a":`, "", " ")
	if err == nil || !strings.HasPrefix(err.Error(), "json.indent: invalid JSON") {
		t.Errorf("testJSON.Indent(bad) = %v", err)
	}
}
