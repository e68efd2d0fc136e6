package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// Structured answers. A Run with WithSchema wants a final answer (a
// response without tool calls) that is a JSON object valid against the
// schema. The answer's JSON is its whole text, or, when the text is not
// JSON, the one fenced code block tagged json (or untagged) in it, so a
// model that wraps its answer in ```json ... ``` or a sentence is
// understood; two such blocks are a violation, since it is not clear which
// one is meant.
//
// An answer that does not validate is answered with a user message naming
// each violation (its JSON pointer and message) and the schema, and the
// model gets another turn. After SchemaAttempts answers in all (default
// DefaultSchemaAttempts) the run stops with StopSchema; Reply.Violations
// says what was wrong with the last one. The turns spent count against the
// run's turn limit like any other.

// StopSchema is the Stop of a Run whose final answers never validated
// against its schema (WithSchema) within SchemaAttempts.
const StopSchema = "schema"

// DefaultSchemaAttempts is how many final answers a Run with a schema
// reads before it stops with StopSchema: the first and two corrections.
const DefaultSchemaAttempts = 3

// maxSchemaShown bounds the schema quoted back to the model after a
// violation; a longer one is cut and ends with "…".
const maxSchemaShown = 4096

// WithSchema asks for a final answer that is JSON valid against s; see
// checkFinal. A nil s asks for nothing.
func WithSchema(s *core.Schema) RunOption { return func(c *runConfig) { c.schema = s } }

// SchemaAttempts bounds the final answers a Run with a schema reads: n-1
// corrections after the first (n <= 0 keeps DefaultSchemaAttempts).
func SchemaAttempts(n int) RunOption {
	return func(c *runConfig) {
		if n > 0 {
			c.schemaAttempts = n
		}
	}
}

// CompileOutputSchema compiles the JSON Schema of a structured answer
// (WithSchema). The answer is a JSON object, so the schema's top-level
// "type", when it has one, must be "object". The errors say what is wrong
// with the schema itself; the caller names where it came from.
func CompileOutputSchema(raw json.RawMessage) (*core.Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New(`the schema is empty; want a JSON Schema object such as {"type": "object", "properties": {...}}`)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %v", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`the schema must be a JSON object such as {"type": "object", "properties": {...}}, got %s`, core.JSONKind(doc))
	}
	if t, ok := m["type"]; ok && t != "object" {
		b, _ := json.Marshal(t)
		return nil, fmt.Errorf(`the schema's top-level "type" must be "object" (a structured answer is a JSON object), got %s`, b)
	}
	s, err := core.CompileSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %s", strings.TrimPrefix(err.Error(), "invalid parameters schema: "))
	}
	if err := s.Compile(); err != nil {
		return nil, fmt.Errorf("the schema does not compile: %v", err)
	}
	return s, nil
}

// checkFinal checks a final answer against the run's schema. again says
// the model was told what is wrong and gets another turn. On success
// reply.Data holds the answer decoded; after the last attempt the reply
// has Stop StopSchema and the violations.
func (a *Agent) checkFinal(rc *runConfig, resp *provider.Response, reply *Reply) (again bool) {
	if rc.schema == nil {
		return false
	}
	raw, vs := answerJSON(resp.Content)
	if vs == nil {
		if !isJSONObject(raw) {
			vs = []core.Violation{{Message: "want a JSON object, got " + jsonKindOfRaw(raw)}}
		} else {
			vs = rc.schema.Validate(raw)
		}
	}
	var data any
	if len(vs) == 0 {
		data, vs = decodeData(raw)
	}
	if len(vs) == 0 {
		reply.Data = data
		reply.Violations = nil
		return false
	}
	reply.Violations = vs
	rc.schemaFailures++
	attempts := rc.schemaAttempts
	if attempts <= 0 {
		attempts = DefaultSchemaAttempts
	}
	if rc.schemaFailures >= attempts {
		reply.Stop = StopSchema
		return false
	}
	a.append(provider.Message{Role: provider.RoleUser, Content: correction(vs, rc.schema, attempts-rc.schemaFailures)})
	return true
}

// correction is the user message that tells the model why its answer was
// refused.
func correction(vs []core.Violation, s *core.Schema, left int) string {
	var b strings.Builder
	b.WriteString("Your answer does not validate against the required JSON schema:\n")
	for i, v := range vs {
		if i == core.MaxListedViolations {
			fmt.Fprintf(&b, "- (and %d more violations)\n", len(vs)-i)
			break
		}
		ptr := v.Pointer
		if ptr == "" {
			ptr = "(the whole answer)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", ptr, v.Message)
	}
	var schema bytes.Buffer
	if json.Compact(&schema, s.JSON()) != nil {
		schema.Reset()
		schema.Write(s.JSON())
	}
	shown := schema.String()
	if len(shown) > maxSchemaShown {
		shown = shown[:maxSchemaShown] + "…"
	}
	fmt.Fprintf(&b, "Answer again with only a JSON object valid against this schema, and no other text (%d attempt", left)
	if left != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " left):\n%s", shown)
	return b.String()
}

// answerJSON finds the JSON of an answer: its whole text, else its one
// fenced block tagged json or untagged. Without one it returns the
// violation that says so.
func answerJSON(text string) (json.RawMessage, []core.Violation) {
	whole := strings.TrimSpace(text)
	if json.Valid([]byte(whole)) {
		return json.RawMessage(whole), nil
	}
	blocks := fencedJSON(text)
	switch len(blocks) {
	case 0:
		if whole == "" {
			return nil, []core.Violation{{Message: "the answer is empty; want a JSON object"}}
		}
		var v any
		err := json.Unmarshal([]byte(whole), &v)
		return nil, []core.Violation{{Message: fmt.Sprintf("the answer is not JSON (%v) and holds no ```json block", err)}}
	case 1:
		if !json.Valid(blocks[0]) {
			var v any
			err := json.Unmarshal(blocks[0], &v)
			return nil, []core.Violation{{Message: fmt.Sprintf("the ```json block is not valid JSON: %v", err)}}
		}
		return blocks[0], nil
	}
	return nil, []core.Violation{{Message: fmt.Sprintf("the answer holds %d ```json blocks; want one JSON object", len(blocks))}}
}

// fencedJSON returns the contents of the fenced code blocks of text whose
// info string is json or empty. A fence is a line that starts with ```.
func fencedJSON(text string) [][]byte {
	var out [][]byte
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(open, "`")))
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) { // an unclosed fence ends the text
			if info == "json" || info == "" {
				out = append(out, []byte(strings.TrimSpace(strings.Join(lines[i+1:], "\n"))))
			}
			break
		}
		if info == "json" || info == "" {
			out = append(out, []byte(strings.TrimSpace(strings.Join(lines[i+1:end], "\n"))))
		}
		i = end
	}
	return out
}

func isJSONObject(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// decodeData decodes a validated answer into the values scripts use:
// map[string]any, []any, string, bool, nil, int64 for integers that fit
// and float64 for other numbers. A number beyond float64's range is a
// violation, for the model to correct.
func decodeData(raw json.RawMessage) (any, []core.Violation) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil { // not reached: the answer is valid JSON
		return nil, []core.Violation{{Message: "not valid JSON: " + err.Error()}}
	}
	var vs []core.Violation
	v = numbers(v, nil, &vs)
	sort.Slice(vs, func(i, j int) bool { return vs[i].Pointer < vs[j].Pointer })
	return v, vs
}

// numbers replaces json.Numbers in v; path is v's place, joined into a
// JSON pointer only for a violation.
func numbers(v any, path []string, vs *[]core.Violation) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e, append(path, k), vs)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e, append(path, strconv.Itoa(i)), vs)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			s := x.String()
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			*vs = append(*vs, core.Violation{Pointer: jsonPointer(path), Message: "number " + s + " is out of range"})
			return nil
		}
		return f
	}
	return v
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPointer joins path into a JSON pointer (RFC 6901).
func jsonPointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(p))
	}
	return b.String()
}

func jsonKindOfRaw(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid JSON"
	}
	return core.JSONKind(v)
}
