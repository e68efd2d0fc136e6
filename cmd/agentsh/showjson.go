package main

import (
	"bytes"
	"encoding/json"
	"strings"
)

// showJSON renders JSON for a person (the approval prompt's arguments,
// explain's): keys sorted, numbers as they were written, and nothing
// escaped that JSON does not require, so &&, > and < read as themselves.
// With an indent, one key a line, each line after the first starting
// with prefix. Text that is not one JSON value comes back as it is.
// JSON for programs (--json) keeps its own encoding.
func showJSON(raw json.RawMessage, prefix, indent string) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return string(raw)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
