package stdlib

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON is the json module over a codec of JSON shapes (nil, bool, int64,
// float64, string, []any, map[string]any). The codec is a parameter so
// that every value crossing into a script is checked by one strict
// implementation: the host's, which names the path of anything that is
// not JSON and refuses values nested too deep.
type JSON struct {
	// Marshal encodes a JSON shape compactly with sorted object keys.
	Marshal func(v any) ([]byte, error)
	// Unmarshal decodes JSON text, integral numbers as int64.
	Unmarshal func(data []byte) (any, error)
}

// Encode is json.encode: v compactly, with sorted object keys.
func (j JSON) Encode(v any) (string, error) {
	b, err := j.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("json.encode: %w", err)
	}
	return string(b), nil
}

// EncodeIndent is json.encode_indent: Encode, then indented as by Indent.
func (j JSON) EncodeIndent(v any, prefix, indent string) (string, error) {
	b, err := j.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("json.encode_indent: %w", err)
	}
	return jsonIndent("json.encode_indent", string(b), prefix, indent)
}

// Decode is json.decode: s as JSON shapes.
func (j JSON) Decode(s string) (any, error) {
	v, err := j.Unmarshal([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("json.decode: %v", err)
	}
	return v, nil
}

// Indent is json.indent: the JSON text s re-indented, one element per
// line, keys in their order. A result more than MaxGrowth bytes longer
// than s is an error: an indent repeated on every line, at every level,
// grows without bound.
func (JSON) Indent(s, prefix, indent string) (string, error) {
	return jsonIndent("json.indent", s, prefix, indent)
}

func jsonIndent(fn, s, prefix, indent string) (string, error) {
	if !json.Valid([]byte(s)) {
		var buf bytes.Buffer
		err := json.Indent(&buf, []byte(s), prefix, indent)
		return "", fmt.Errorf("%s: invalid JSON: %v", fn, err)
	}
	if n := indentedLen(s, len(prefix), len(indent), int64(len(s)+maxGrowth)); n > int64(len(s)+maxGrowth) {
		return "", fmt.Errorf("%s: the result would be more than %d bytes longer than the input (%d bytes); use a shorter prefix or indent", fn, maxGrowth, len(s))
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), prefix, indent); err != nil {
		return "", fmt.Errorf("%s: invalid JSON: %v", fn, err)
	}
	return buf.String(), nil
}

// indentedLen is about the length of json.Indent's output for the valid
// JSON text s, counted up to limit: every line json.Indent starts costs a
// newline, the prefix and an indent per level.
func indentedLen(s string, prefix, indent int, limit int64) int64 {
	var n int64
	depth := 0
	open := false // after { or [, before their first element
	inString, escaped := false, false
	newline := func(d int) { n += 1 + int64(prefix) + int64(d)*int64(indent) }
	for i := 0; i < len(s) && n <= limit; i++ {
		c := s[i]
		if inString {
			n++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline(depth)
			}
			n++
			continue
		}
		if open {
			open = false
			depth++
			newline(depth)
		}
		switch c {
		case '{', '[':
			open = true
			n++
		case ',':
			n++
			newline(depth)
		case ':':
			n += 2
		case '"':
			inString = true
			n++
		default:
			n++
		}
	}
	return n
}
