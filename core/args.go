package core

import (
	"bytes"
	"encoding/json"
	"fmt"
)

var emptyObject = json.RawMessage(`{}`)

// NormalizeArgs checks that raw is a JSON object and returns it; empty or
// blank input means {}. Anything else is an error that says what was found.
func NormalizeArgs(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return emptyObject, nil
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		return nil, fmt.Errorf("arguments are not valid JSON: %v (got %s)", err, preview(trimmed, 60))
	}
	if trimmed[0] != '{' {
		var v any
		_ = json.Unmarshal(trimmed, &v)
		return nil, fmt.Errorf("arguments must be a JSON object, got %s: %s", JSONKind(v), preview(trimmed, 60))
	}
	return raw, nil
}

// preview quotes at most n bytes of b for an error message.
func preview(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q...", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
