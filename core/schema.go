package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentsh/agentsh/internal/jsonschema"
)

// Schema is a compiled JSON Schema for a tool's arguments. It is safe for
// concurrent use.
type Schema struct {
	raw json.RawMessage
	// quick, when the schema is in the subset, accepts most valid
	// arguments on its own; the rest go to the library's validator.
	quick *subset

	once     sync.Once // compiles a quick schema when the library is first needed
	compiled *jsonschema.Schema
	err      error // of that compilation (never, for a schema quick accepts)
}

// defaultSchema is what a tool without Parameters accepts: any object.
var defaultSchema = json.RawMessage(`{"type":"object"}`)

// CompileSchema compiles a parameter schema (draft 2020-12 unless it names
// another with $schema). Nil or empty means {"type":"object"}. Remote $ref
// targets are never fetched. A schema whose top-level "type" is not
// "object" is refused: tool arguments are always an object.
//
// A schema that uses only common keywords with well-formed values (see
// subset) is known to compile without compiling it; the library compiles
// it when a call's arguments first need it. Any other schema is compiled
// here. Either way, a schema that does not compile is an error here.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = defaultSchema
	}
	// Numbers stay exact: the subset's bounds must be integers as written.
	// The decoder checks the syntax; json.Unmarshal words the error.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil || len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("parameters are not valid JSON: %v", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parameters must be a JSON Schema object, got %s", JSONKind(doc))
	}
	if t, ok := m["type"]; ok && t != "object" {
		return nil, fmt.Errorf(`parameters schema must have "type": "object", got %s`, compactJSON(t))
	}
	s := &Schema{raw: append(json.RawMessage(nil), raw...), quick: buildSubset(m)}
	if s.quick == nil {
		if err := s.compile(); err != nil {
			return nil, fmt.Errorf("invalid parameters schema: %v", err)
		}
	}
	return s, nil
}

// Compile compiles the schema with the full validator now, if it has not
// been. CompileSchema leaves that to the first call that needs it for a
// schema it knows compiles; Compile checks that it does (every built-in
// tool's test does).
func (s *Schema) Compile() error { return s.compile() }

// compile compiles the schema with the library, once.
func (s *Schema) compile() error {
	s.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.LoadURL = func(u string) (io.ReadCloser, error) {
			return nil, fmt.Errorf("remote schema %q not loaded: agentsh never fetches $ref targets", u)
		}
		const url = "agentsh://parameters.json"
		if err := c.AddResource(url, bytes.NewReader(s.raw)); err != nil {
			s.err = err
			return
		}
		s.compiled, s.err = c.Compile(url)
		if s.err != nil {
			s.err = errors.New(schemaErrorText(s.err))
		}
	})
	return s.err
}

// JSON returns the schema's source.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// Limits of how violations are reported. An argument with a hundred
// thousand unexpected properties, or a schema with a long enum, makes the
// validator's messages as long as the input, and an array of bad items
// makes as many messages as items: listed whole, one error message once
// reached 47 MB.
const (
	// MaxViolationBytes bounds each violation's pointer and message; a
	// longer one is cut and ends with "…".
	MaxViolationBytes = 512
	// MaxListedViolations is how many violations an error message lists,
	// the first in the stable order; it says how many more there were.
	MaxListedViolations = 20
)

// Validate checks args (a JSON object) against the schema and returns every
// violation, sorted by pointer then message, or nil. Each pointer and
// message is cut to MaxViolationBytes.
func (s *Schema) Validate(args json.RawMessage) []Violation {
	if s.quick != nil && s.quick.accepts(args) {
		return nil
	}
	return s.validateFull(args)
}

// validateFull is Validate by the library alone.
func (s *Schema) validateFull(args json.RawMessage) []Violation {
	if err := s.compile(); err != nil {
		// Not reached: a schema quick accepts compiles (TestSubsetCompiles).
		return []Violation{{Message: "the tool's parameters schema does not compile: " + err.Error()}}
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []Violation{{Message: "not valid JSON: " + err.Error()}}
	}
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Message: err.Error()}}
	}
	var out []Violation
	seen := map[Violation]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			v := Violation{Pointer: cutText(e.InstanceLocation, MaxViolationBytes), Message: cutText(sortNameList(e.Message), MaxViolationBytes)}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// ViolationsText joins violations for an error message: the first
// MaxListedViolations in order, and how many more there were.
func ViolationsText(vs []Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i == MaxListedViolations {
			fmt.Fprintf(&b, " (and %d more violations)", len(vs)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// cutText returns s, or its first n bytes (whole characters) and "…".
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// nameListMessage matches the library's messages that list property names,
// such as "additionalProperties 'b', 'a' not allowed", whose order comes
// from a Go map.
// Compiled when a call first has violations.
var nameListMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\w+ )('.*')( not allowed)$`)
})

// sortNameList sorts the quoted names of such a message, so the same input
// always gives the same text.
func sortNameList(msg string) string {
	m := nameListMessage().FindStringSubmatch(msg)
	if m == nil || !strings.Contains(m[2], "', '") {
		return msg
	}
	names := strings.Split(m[2][1:len(m[2])-1], "', '")
	sort.Strings(names)
	return m[1] + "'" + strings.Join(names, "', '") + "'" + m[3]
}

// schemaErrorText shortens the library's compilation errors to their cause.
func schemaErrorText(err error) string {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
			loc := leaf.InstanceLocation
			if loc == "" {
				loc = "(root)"
			}
			return fmt.Sprintf("%s: %s", loc, leaf.Message)
		}
		return se.Err.Error()
	}
	return strings.TrimPrefix(err.Error(), "jsonschema: ")
}

// JSONKind names the kind of a decoded JSON value for messages: null, a
// boolean, a number, a string, an array or an object.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
