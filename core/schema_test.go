package core_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
)

func compile(t *testing.T, schema string) *core.Schema {
	t.Helper()
	s, err := core.CompileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("CompileSchema(%s): %v", schema, err)
	}
	return s
}

func pointers(vs []core.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Pointer
	}
	return out
}

func TestCompileSchemaDefaults(t *testing.T) {
	for _, raw := range []string{"", "  ", `{}`, `{"type":"object"}`} {
		s := compile(t, raw)
		if vs := s.Validate(json.RawMessage(`{"a":1}`)); vs != nil {
			t.Errorf("schema %q refused an object: %v", raw, vs)
		}
	}
	if got := string(compile(t, "").JSON()); got != `{"type":"object"}` {
		t.Errorf("default schema JSON = %s", got)
	}
	// The source is kept as given, and copied.
	src := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	s := compile(t, string(src))
	if string(s.JSON()) != string(src) {
		t.Fatalf("JSON() = %s", s.JSON())
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{bad`, "not valid JSON"},
		{`[]`, "JSON Schema object"},
		{`"object"`, "JSON Schema object"},
		{`{"type":"array"}`, `"type": "object"`},
		{`{"type":["object","null"]}`, `"type": "object"`},
		{`{"type":"object","properties":{"a":{"type":"nope"}}}`, "invalid parameters schema"},
		{`{"type":"object","properties":{"a":{"minimum":"zero"}}}`, "invalid parameters schema"},
		{`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "never fetches"},
		{`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`, "never fetches"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "invalid parameters schema"},
	} {
		_, err := core.CompileSchema(json.RawMessage(c.schema))
		if err == nil {
			t.Errorf("CompileSchema(%s) succeeded", c.schema)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("CompileSchema(%s) = %q, want it to mention %q", c.schema, err, c.want)
		}
	}
	// Local references and other drafts work.
	compile(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`)
	s := compile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`)
	if vs := s.Validate(json.RawMessage(`{"a":1}`)); len(vs) != 1 || vs[0].Pointer != "/a" {
		t.Fatalf("draft-07 schema: %v", vs)
	}
}

func TestValidateEveryViolationSorted(t *testing.T) {
	s := compile(t, `{"type":"object","properties":{
		"name":{"type":"string","minLength":2},
		"tags":{"type":"array","items":{"type":"string"}},
		"a/b":{"type":"integer"},
		"m~n":{"type":"boolean"},
		"opts":{"type":"object","properties":{"depth":{"type":"integer","maximum":3}}}},
		"required":["name","id"]}`)
	args := json.RawMessage(`{"opts":{"depth":9},"m~n":"x","a/b":"y","tags":["ok",1,"ok",2,3,4,5,6,7,8,9,10,11],"name":"x"}`)
	vs := s.Validate(args)
	want := []string{"", "/a~1b", "/m~0n", "/name", "/opts/depth",
		"/tags/1", "/tags/10", "/tags/11", "/tags/12", "/tags/3", "/tags/4", "/tags/5", "/tags/6", "/tags/7", "/tags/8", "/tags/9"}
	got := pointers(vs)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pointers\n got  %q\n want %q", got, want)
	}
	if !sort.SliceIsSorted(vs, func(i, j int) bool {
		if vs[i].Pointer != vs[j].Pointer {
			return vs[i].Pointer < vs[j].Pointer
		}
		return vs[i].Message < vs[j].Message
	}) {
		t.Fatal("violations not sorted by pointer, then message")
	}
	if !strings.Contains(vs[0].Message, "id") || strings.Contains(vs[0].Message, "name") {
		t.Fatalf("root violation %q should name the missing id only", vs[0].Message)
	}
	for _, v := range vs {
		if v.Message == "" {
			t.Fatalf("empty message at %q", v.Pointer)
		}
	}
	if s.Validate(json.RawMessage(`{"name":"ok","id":1}`)) != nil {
		t.Fatal("valid arguments refused")
	}
}

// TestValidateIsDeterministic: the same arguments give byte-identical
// violations, in the same order, every time: the same inputs give
// byte-identical output.
// Several extra properties under additionalProperties:false make the
// message list them; their order must not change between runs.
func TestValidateIsDeterministic(t *testing.T) {
	s := compile(t, `{"type":"object","properties":{"keep":{"type":"string"}},"additionalProperties":false,"required":["keep","also"]}`)
	args := json.RawMessage(`{"e1":1,"e2":2,"e3":3,"e4":4,"e5":5,"e6":6,"keep":1}`)
	first := s.Validate(args)
	if len(first) == 0 {
		t.Fatal("no violations")
	}
	for range 50 {
		again := s.Validate(args)
		if len(again) != len(first) {
			t.Fatalf("violation count changed: %v vs %v", first, again)
		}
		for i := range first {
			if first[i] != again[i] {
				t.Fatalf("violations differ between runs of the same input:\n %v\n %v", first, again)
			}
		}
	}
}

func TestValidateNumbersExactly(t *testing.T) {
	// Large integers are not rounded through float64 on the argument side.
	s := compile(t, `{"type":"object","properties":{"n":{"type":"integer"},"m":{"multipleOf":0.1}}}`)
	if vs := s.Validate(json.RawMessage(`{"n":12345678901234567890123,"m":0.3}`)); vs != nil {
		t.Fatalf("exact numbers refused: %v", vs)
	}
	if vs := s.Validate(json.RawMessage(`{"n":1.5}`)); len(vs) != 1 || vs[0].Pointer != "/n" {
		t.Fatalf("1.5 as integer: %v", vs)
	}
}

func TestValidateNotJSON(t *testing.T) {
	s := compile(t, `{"type":"object"}`)
	vs := s.Validate(json.RawMessage(`{bad`))
	if len(vs) != 1 || vs[0].Pointer != "" || !strings.Contains(vs[0].Message, "JSON") {
		t.Fatalf("Validate of invalid JSON: %v", vs)
	}
	vs = s.Validate(json.RawMessage(`[1]`))
	if len(vs) != 1 || vs[0].Pointer != "" {
		t.Fatalf("Validate of an array: %v", vs)
	}
}

func TestViolationString(t *testing.T) {
	if got := (core.Violation{Pointer: "", Message: "m"}).String(); got != "(root): m" {
		t.Fatalf("root violation: %q", got)
	}
	if got := (core.Violation{Pointer: "/a/0", Message: "bad"}).String(); got != "/a/0: bad" {
		t.Fatalf("violation: %q", got)
	}
	b, err := json.Marshal(core.Violation{Pointer: "/x", Message: "m"})
	if err != nil || string(b) != `{"pointer":"/x","message":"m"}` {
		t.Fatalf("JSON: %s %v", b, err)
	}
}
