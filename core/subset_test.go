package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// inSubset is how many of subsetSchemas, from the first, are in the subset.
const inSubset = 11

// subsetSchemas are schemas in and out of the subset, well-formed and
// not, for the tests below.
var subsetSchemas = []string{
	`{}`,
	`{"type":"object"}`,
	`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":10},"b":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":5}},"additionalProperties":false}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4},"p":{"type":"string","pattern":"^[a-z]+$"},"e":{"type":"string","enum":["x","y","é"]}}}`,
	`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2},"n":{"type":["string","null"]},"t":true,"f":false}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"d":{"type":"integer","maximum":3}},"required":["d"]}},"additionalProperties":{"type":"boolean"}}`,
	`{"type":"object","required":["x","y"],"additionalProperties":false,"properties":{"x":{}}}`,
	`{"type":"object","title":"t","description":"d","$comment":"c","default":{},"examples":[{}],"properties":{"a":{"deprecated":true,"readOnly":false,"writeOnly":false}}}`,
	`{"type":"object","properties":{"big":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}}}`,
	`{"type":"object","required":[]}`,
	// Outside the subset, or not compiling.
	`{"type":"object","required":["a","a"]}`,
	`{"type":"object","required":"a"}`,
	`{"type":"object","properties":{"a":{"type":"nope"}}}`,
	`{"type":"object","properties":{"a":{"type":[]}}}`,
	`{"type":"object","properties":{"a":{"type":["string","string"]}}}`,
	`{"type":"object","properties":{"a":{"type":["string",1]}}}`,
	`{"type":"object","properties":{"a":{"minLength":-1}}}`,
	`{"type":"object","properties":{"a":{"minLength":1.5}}}`,
	`{"type":"object","properties":{"a":{"minLength":2.0}}}`,
	`{"type":"object","properties":{"a":{"maxItems":"3"}}}`,
	`{"type":"object","properties":{"a":{"minimum":"zero"}}}`,
	`{"type":"object","properties":{"a":{"minimum":0.5}}}`,
	`{"type":"object","properties":{"a":{"minimum":1e400}}}`,
	`{"type":"object","properties":{"a":{"maximum":92233720368547758070}}}`,
	`{"type":"object","properties":{"a":{"pattern":"("}}}`,
	`{"type":"object","properties":{"a":{"pattern":5}}}`,
	`{"type":"object","properties":{"a":{"enum":[]}}}`,
	`{"type":"object","properties":{"a":{"enum":[1,"x"]}}}`,
	`{"type":"object","properties":{"a":{"enum":"x"}}}`,
	`{"type":"object","properties":{"a":5}}`,
	`{"type":"object","properties":[]}`,
	`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`,
	`{"type":"object","additionalProperties":5}`,
	`{"type":"object","description":5}`,
	`{"type":"object","examples":"x"}`,
	`{"type":"object","properties":{"a":{"deprecated":"yes"}}}`,
	`{"type":"object","properties":{"a":{"format":"email"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"const":"x"}}}`,
	`{"type":"object","properties":{"a":{"multipleOf":2}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
	`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
	`{"type":"object","unknownKeyword":1}`,
}

func decodeSchema(t testing.TB, raw string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return m
}

// TestSubsetCompiles: every schema the subset accepts compiles with the
// library, so leaving its compilation to the first call that needs it
// never turns a registration error into a call error.
func TestSubsetCompiles(t *testing.T) {
	in := 0
	for _, raw := range subsetSchemas {
		if buildSubset(decodeSchema(t, raw)) == nil {
			continue
		}
		in++
		s := &Schema{raw: json.RawMessage(raw)}
		if err := s.compile(); err != nil {
			t.Errorf("subset accepted %s, which does not compile: %v", raw, err)
		}
	}
	if in != inSubset {
		t.Errorf("%d schemas in the subset, want the first %d", in, inSubset)
	}
	for _, raw := range subsetSchemas[inSubset:] {
		if buildSubset(decodeSchema(t, raw)) != nil {
			t.Errorf("subset accepted %s", raw)
		}
	}
}

// TestCompileSchemaDefersOnlySubset: CompileSchema still refuses every
// schema that does not compile, and defers compiling only those in the
// subset.
func TestCompileSchemaDefersOnlySubset(t *testing.T) {
	for _, raw := range subsetSchemas {
		s, err := CompileSchema(json.RawMessage(raw))
		lib := &Schema{raw: json.RawMessage(raw)}
		libErr := lib.compile()
		if (err == nil) != (libErr == nil) {
			t.Errorf("CompileSchema(%s) = %v, but the library says %v", raw, err, libErr)
			continue
		}
		if err != nil {
			if want := "invalid parameters schema: " + libErr.Error(); err.Error() != want {
				t.Errorf("CompileSchema(%s) = %q, want %q", raw, err, want)
			}
			continue
		}
		if s.quick != nil && s.compiled != nil {
			t.Errorf("CompileSchema(%s) compiled a schema of the subset", raw)
		}
		if s.quick == nil && s.compiled == nil {
			t.Errorf("CompileSchema(%s) did not compile a schema outside the subset", raw)
		}
	}
}

// subsetArgs are arguments for the schemas above: valid, invalid, and
// values the subset leaves to the library.
var subsetArgs = []string{
	`{}`, ` {} `, `{"path":"a"}`, `{"path":"a","limit":3}`, `{"path":"a","limit":3.0}`, `{"path":"a","limit":1e2}`,
	`{"path":1}`, `{"limit":3}`, `{"path":"a","path":"b"}`, `{"path":"a","path":1}`, `{"pa\u0074h":"a"}`, `{"path":"a","l\u0069mit":"x"}`, `{"s":"\u0061"}`, `{"s":"\n"}`, `{"path":"a\n"}`,
	`{"a":1}`, `{"a":0}`, `{"a":10}`, `{"a":11}`, `{"a":-1}`, `{"a":"1"}`, `{"b":0}`, `{"b":0.5}`, `{"b":5}`, `{"b":4}`, `{"a":1,"c":1}`,
	`{"s":"ab"}`, `{"s":"a"}`, `{"s":"abcde"}`, `{"s":"éééé"}`, `{"s":"ééééé"}`, `{"s":"a\u0062"}`, "{\"s\":\"\xff\xfe\"}", "{\"s\":\"\xff\"}", "{\"s\":\"ab\xff\"}", "{\"\xff\":1}", "{\"p\":\"a\xffb\"}",
	`{"p":"abc"}`, `{"p":"aBc"}`, `{"p":"a\u0042c"}`, `{"e":"x"}`, `{"e":"z"}`, `{"e":"é"}`, `{"e":"\u00e9"}`, `{"e":1}`, "{\"e\":\"x\xff\"}", "{\"e\":\"\xc3\xa9\"}",
	`{"l":["a"]}`, `{"l":[]}`, `{"l":["a","b","c"]}`, `{"l":[1]}`, `{"n":null}`, `{"n":"x"}`, `{"n":1}`, `{"t":[1,{"x":null}]}`, `{"f":1}`,
	`{"o":{"d":3}}`, `{"o":{"d":4}}`, `{"o":{}}`, `{"o":{"d":3},"z":true}`, `{"o":{"d":3},"z":1}`, `{"x":1,"y":2}`, `{"x":1}`, `{"y":1,"x":{}}`,
	`{"big":9223372036854775807}`, `{"big":9223372036854775808}`, `{"big":-9223372036854775808}`, `{"big":-9223372036854775809}`,
	`{"a":-0}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":tru}`, `{"a":true}`, `{"a":nul}`, `{"a":null}`,
	`{"a":"\x01"}`, `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"unterminated}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`,
	`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":1}}`, `{"a":1} x`, `{"a":1}{}`, `[1]`, `"x"`, `1`, `null`, ``, ` `, `{`, `{"a":{`,
	"{\"a\":\t\r\n1\n}", `{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// TestSubsetNeverAcceptsWhatTheLibraryRefuses: the subset's "valid" is
// the library's, on every pair of schema and arguments above, and it does
// accept the plainly valid calls it exists for.
func TestSubsetNeverAcceptsWhatTheLibraryRefuses(t *testing.T) {
	accepted := map[string]bool{}
	for _, raw := range subsetSchemas[:inSubset] {
		s, err := CompileSchema(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range subsetArgs {
			if !s.quick.accepts([]byte(args)) {
				continue
			}
			accepted[raw+" "+args] = true
			if vs := s.validateFull(json.RawMessage(args)); vs != nil {
				t.Errorf("schema %s: subset accepts %.80s, the library says %v", raw, args, vs)
			}
		}
	}
	for _, c := range []struct{ schema, args string }{
		{subsetSchemas[0], `[1]`},
		{subsetSchemas[1], ` {} `},
		{subsetSchemas[1], `{"t":[1,{"x":null}]}`},
		{subsetSchemas[2], `{"path":"a","limit":3}`},
		{subsetSchemas[2], `{"path":"a","path":"b"}`},
		{subsetSchemas[3], `{"a":10}`},
		{subsetSchemas[3], `{"b":4}`},
		{subsetSchemas[4], `{"s":"éééé"}`},
		{subsetSchemas[4], `{"p":"abc"}`},
		{subsetSchemas[4], `{"e":"é"}`},
		{subsetSchemas[5], `{"l":["a"]}`},
		{subsetSchemas[5], `{"n":null}`},
		{subsetSchemas[6], `{"o":{"d":3},"z":true}`},
		{subsetSchemas[8], `{"a":1}`},
		{subsetSchemas[9], `{"big":-9223372036854775808}`},
	} {
		if !accepted[c.schema+" "+c.args] {
			t.Errorf("schema %s: subset does not accept %s", c.schema, c.args)
		}
	}
}

// TestValidateSubsetMessagesAreTheLibrarys: arguments the subset does not
// accept get the library's violations, whatever the subset's reason.
func TestValidateSubsetMessagesAreTheLibrarys(t *testing.T) {
	for _, raw := range subsetSchemas[:inSubset] {
		s, err := CompileSchema(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range subsetArgs {
			got, want := s.Validate(json.RawMessage(args)), s.validateFull(json.RawMessage(args))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("schema %s, args %.80s: Validate = %v, the library says %v", raw, args, got, want)
			}
		}
	}
}

// FuzzSubset: on any arguments, the subset accepts only what the library
// accepts.
func FuzzSubset(f *testing.F) {
	for _, a := range subsetArgs {
		f.Add([]byte(a))
	}
	var schemas []*Schema
	for _, raw := range subsetSchemas[:inSubset] {
		s, err := CompileSchema(json.RawMessage(raw))
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, s := range schemas {
			if s.quick.accepts(args) {
				if vs := s.validateFull(args); vs != nil {
					t.Fatalf("schema %s: subset accepts %q, the library says %v", s.raw, args, vs)
				}
				if !json.Valid(args) || bytes.TrimSpace(args)[0] != '{' && len(s.quick.props) > 0 {
					t.Fatalf("schema %s: subset accepts %q, which is not an object", s.raw, args)
				}
			}
		}
	})
}

// TestCompileSchemaTrailingText: the decoder reads one value; what
// follows it is an error, worded as json.Unmarshal words it.
func TestCompileSchemaTrailingText(t *testing.T) {
	for _, raw := range []string{`{"type":"object"} x`, `{"type":"object"}{}`, `{"type":"object"}]`, `{"type":"object"`} {
		var v any
		want := "parameters are not valid JSON: " + json.Unmarshal([]byte(raw), &v).Error()
		if _, err := CompileSchema(json.RawMessage(raw)); err == nil || err.Error() != want {
			t.Errorf("CompileSchema(%s) = %v, want %q", raw, err, want)
		}
	}
	if _, err := CompileSchema(json.RawMessage(" {\"type\":\"object\"} \n\t")); err != nil {
		t.Errorf("surrounding space: %v", err)
	}
}

// BenchmarkValidate: the arguments of executor's BenchmarkInvokeValidated,
// checked by the subset (Validate) and by the library alone.
func BenchmarkValidate(b *testing.B) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"path":"README.md","limit":10}`)
	for _, c := range []struct {
		name string
		fn   func(json.RawMessage) []Violation
	}{{"subset", s.Validate}, {"library", s.validateFull}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if vs := c.fn(args); vs != nil {
					b.Fatal(vs)
				}
			}
		})
	}
}
