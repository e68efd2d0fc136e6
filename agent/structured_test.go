package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}`

func mustSchema(t *testing.T, raw string) *core.Schema {
	t.Helper()
	s, err := CompileOutputSchema(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaAccepts: a whole-JSON answer, and one fenced ```json block
// among prose, validate and decode into script shapes.
func TestSchemaAccepts(t *testing.T) {
	for name, text := range map[string]string{
		"whole":    "  {\"name\": \"Ada\", \"age\": 36}\n",
		"fenced":   "Here it is:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```\nDone.",
		"untagged": "```\n{\"name\": \"Ada\", \"age\": 36}\n```",
	} {
		t.Run(name, func(t *testing.T) {
			s := &script{steps: []func(provider.Request) provider.Response{answer(text)}}
			a := newAgent(t, s)
			r, err := a.Run(context.Background(), "who?", WithSchema(mustSchema(t, personSchema)))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"name": "Ada", "age": int64(36)}
			if r.Stop != StopFinal || !reflect.DeepEqual(r.Data, want) || r.Violations != nil {
				t.Errorf("stop %q data %#v violations %v, want final %#v", r.Stop, r.Data, r.Violations, want)
			}
		})
	}
}

// TestSchemaCorrects: an answer that violates the schema gets a user
// message naming each violation and quoting the schema; the corrected
// answer is the reply's data.
func TestSchemaCorrects(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		answer(`{"name": 7}`),
		answer(`{"name": "Ada", "age": 36}`),
	}}
	a := newAgent(t, s)
	r, err := a.Run(context.Background(), "who?", WithSchema(mustSchema(t, personSchema)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != StopFinal || r.Turns != 2 || r.Data.(map[string]any)["name"] != "Ada" {
		t.Fatalf("reply %+v, want final after 2 turns with Ada", r)
	}
	msgs := s.seen[1].Messages
	if got := roles(msgs); got != "user,assistant,user" {
		t.Fatalf("second request's roles %s, want user,assistant,user", got)
	}
	fix := msgs[2].Content
	for _, want := range []string{"/name: ", "expected string", "(the whole answer): missing properties", "age", `"required":["name","age"]`, "2 attempts left"} {
		if !strings.Contains(fix, want) {
			t.Errorf("correction lacks %q:\n%s", want, fix)
		}
	}
}

// TestSchemaGivesUp: after SchemaAttempts answers that never validate, the
// run stops with StopSchema and the last answer's violations; not JSON,
// two blocks and a wrong top-level value are violations too.
func TestSchemaGivesUp(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		answer("no JSON here"),
		answer("```json\n{}\n```\n```json\n{}\n```"),
		answer(`[1, 2]`),
	}}
	a := newAgent(t, s)
	r, err := a.Run(context.Background(), "who?", WithSchema(mustSchema(t, personSchema)), SchemaAttempts(3))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != StopSchema || r.Turns != 3 || r.Data != nil {
		t.Fatalf("stop %q turns %d data %v, want schema after 3 turns without data", r.Stop, r.Turns, r.Data)
	}
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Message, "want a JSON object, got an array") {
		t.Errorf("violations %v, want the array's", r.Violations)
	}
	if got := s.seen[1].Messages[2].Content; !strings.Contains(got, "not JSON") || !strings.Contains(got, "no ```json block") {
		t.Errorf("first correction %q, want it to say the answer is not JSON", got)
	}
	if got := s.seen[2].Messages[4].Content; !strings.Contains(got, "2 ```json blocks") || !strings.Contains(got, "1 attempt left") {
		t.Errorf("second correction %q, want it to count the blocks and the attempt left", got)
	}
	// The conversation ends with the last answer: no correction follows it.
	if got := roles(a.Messages()); got != "user,assistant,user,assistant,user,assistant" {
		t.Errorf("conversation %s", got)
	}
}

// TestSchemaWithinTurnLimit: corrections are turns; the turn limit still
// ends the run.
func TestSchemaWithinTurnLimit(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{answer("{}"), answer("{}")}}
	a := newAgent(t, s)
	r, err := a.Run(context.Background(), "who?", WithSchema(mustSchema(t, personSchema)), MaxTurns(1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != StopMaxTurns || len(r.Violations) == 0 {
		t.Errorf("stop %q violations %v, want max_turns with the violations", r.Stop, r.Violations)
	}
}

// TestSchemaDefaultAttempts: without SchemaAttempts, the default bound.
func TestSchemaDefaultAttempts(t *testing.T) {
	steps := make([]func(provider.Request) provider.Response, DefaultSchemaAttempts+1)
	for i := range steps {
		steps[i] = answer("{}")
	}
	s := &script{steps: steps}
	a := newAgent(t, s)
	r, err := a.Run(context.Background(), "who?", WithSchema(mustSchema(t, personSchema)), SchemaAttempts(0))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != StopSchema || r.Turns != DefaultSchemaAttempts {
		t.Errorf("stop %q turns %d, want schema after %d", r.Stop, r.Turns, DefaultSchemaAttempts)
	}
}

// TestSchemaHugeNumber: a number beyond float64 is a violation, not a
// silent infinity.
func TestSchemaHugeNumber(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{answer(`{"x": 1e999}`), answer(`{"x": 1.5}`)}}
	a := newAgent(t, s)
	r, err := a.Run(context.Background(), "n?", WithSchema(mustSchema(t, `{"type":"object"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != StopFinal || r.Data.(map[string]any)["x"] != 1.5 {
		t.Fatalf("reply %+v", r)
	}
	if got := s.seen[1].Messages[2].Content; !strings.Contains(got, "/x: number 1e999 is out of range") {
		t.Errorf("correction %q", got)
	}
}

// TestCompileOutputSchema: a bad schema is a clear error.
func TestCompileOutputSchema(t *testing.T) {
	for raw, want := range map[string]string{
		``:                                      "the schema is empty",
		`{"type":`:                              "the schema is not valid JSON",
		`[1]`:                                   "must be a JSON object",
		`{"type":"array"}`:                      `top-level "type" must be "object"`,
		`{"type":"object","minProperties":"x"}`: "the schema does not compile",
	} {
		_, err := CompileOutputSchema(json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CompileOutputSchema(%q): %v, want %q", raw, err, want)
		}
	}
}

func TestFencedJSON(t *testing.T) {
	got := fencedJSON("a\n```go\nx\n```\n```json\n{\"a\":1}\n```\n```JSON\n[]")
	if len(got) != 2 || string(got[0]) != `{"a":1}` || string(got[1]) != `[]` {
		t.Errorf("fencedJSON: %q", got)
	}
}

func TestJSONPointer(t *testing.T) {
	if got := jsonPointer([]string{"a/b", "c~d", "0"}); got != "/a~1b/c~0d/0" {
		t.Errorf("jsonPointer: %q", got)
	}
	_, vs := decodeData([]byte(`{"x": {"a/b": [1, 1e999]}}`))
	if len(vs) != 1 || vs[0].Pointer != "/x/a~1b/1" {
		t.Errorf("violations %v, want one at /x/a~1b/1", vs)
	}
}
