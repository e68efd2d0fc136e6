package stdlib

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentsh/agentsh/script"
)

// JSONEncode encodes a JSON shape compactly with sorted object keys.
func JSONEncode(v any) (string, error) {
	b, err := script.EncodeJSON(v)
	if err != nil {
		return "", fmt.Errorf("json.encode: %w", err)
	}
	return string(b), nil
}

// JSONEncodeIndent encodes like JSONEncode, then indents (see JSONIndent).
func JSONEncodeIndent(v any, prefix, indent string) (string, error) {
	b, err := script.EncodeJSON(v)
	if err != nil {
		return "", fmt.Errorf("json.encode_indent: %w", err)
	}
	s := string(b)
	return JSONIndent(s, prefix, indent)
}

// JSONDecode decodes s into JSON shapes (integral numbers as int64).
func JSONDecode(s string) (any, error) {
	v, err := script.DecodeJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("json.decode: %v", err)
	}
	return v, nil
}

// JSONIndent re-indents the JSON text s, one element per line.
func JSONIndent(s, prefix, indent string) (string, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), prefix, indent); err != nil {
		return "", fmt.Errorf("json.indent: invalid JSON: %v", err)
	}
	return buf.String(), nil
}
