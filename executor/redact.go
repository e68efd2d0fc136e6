package executor

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Redactor masks secrets in arguments and results before a custom audit
// handler records them. The zero value masks nothing; DefaultRedactor
// covers common credential names and token shapes.
type Redactor struct {
	// Keys are object keys whose values are masked wherever they appear,
	// compared case-insensitively, ignoring '-' and '_'.
	Keys []string
	// Patterns are masked inside every string value (and in String input).
	Patterns []*regexp.Regexp
	// Mask replaces what is hidden; "" means "[REDACTED]".
	Mask string
}

// DefaultRedactor masks password, secret, token, api key, authorization and
// cookie fields, bearer tokens, AWS access key IDs and sk-/ghp_ style keys.
var DefaultRedactor = Redactor{
	Keys: []string{"password", "passwd", "secret", "token", "access_token", "refresh_token",
		"api_key", "apikey", "authorization", "cookie", "private_key", "client_secret"},
	Patterns: []*regexp.Regexp{
		regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`),
		regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
		regexp.MustCompile(`\b(?:sk|ghp|gho|ghs|xox[abp])[-_][A-Za-z0-9_-]{16,}`),
	},
}

func (r Redactor) mask() string {
	if r.Mask == "" {
		return "[REDACTED]"
	}
	return r.Mask
}

// String masks the patterns in s.
func (r Redactor) String(s string) string {
	for _, p := range r.Patterns {
		s = p.ReplaceAllLiteralString(s, r.mask())
	}
	return s
}

// JSON returns raw with secret keys and patterns masked. Input that is not
// JSON is treated as a string. Object keys come out sorted.
func (r Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if !json.Valid(raw) {
		return json.RawMessage(mustJSON(r.String(string(raw))))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(mustJSON(r.String(string(raw))))
	}
	return json.RawMessage(mustJSON(r.value(v)))
}

func (r Redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		for i := range x {
			x[i] = r.value(x[i])
		}
	case map[string]any:
		for k, val := range x {
			if r.secretKey(k) {
				x[k] = r.mask()
			} else {
				x[k] = r.value(val)
			}
		}
	}
	return v
}

func (r Redactor) secretKey(k string) bool {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	k = norm(k)
	for _, s := range r.Keys {
		if norm(s) == k {
			return true
		}
	}
	return false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}
