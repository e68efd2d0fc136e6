package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsh/agentsh/provider"
)

// errorFromBody classifies a failed answer from its status and its body,
// {"type":"error","error":{"type":...,"message":...}}.
func errorFromBody(status int, body string) error {
	var b struct {
		Error *apiErrorField `json:"error"`
	}
	if json.Unmarshal([]byte(body), &b) == nil && b.Error != nil && b.Error.Type != "" {
		return apiError(status, *b.Error)
	}
	// A body that is not the API's, such as a proxy's HTML page. Statuses
	// that say enough on their own keep their kind.
	kind := provider.ErrProtocol
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		kind = provider.ErrAuth
	case status == http.StatusTooManyRequests:
		kind = provider.ErrRateLimited
	case status >= 500:
		kind = provider.ErrServer
	}
	return &provider.Error{
		Kind:     kind,
		Provider: name,
		Status:   status,
		Message:  fmt.Sprintf("unrecognised error response: %q", truncate(strings.TrimSpace(body), 200)),
		Hint:     hint(kind),
	}
}

// apiError classifies an error object, from a body or a stream's error
// event (status 0).
func apiError(status int, e apiErrorField) error {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	kind := errorKind(status, e.Type, e.Message)
	return &provider.Error{
		Kind:     kind,
		Provider: name,
		Status:   status,
		Message:  e.Type + ": " + msg,
		Hint:     hint(kind),
	}
}

// hint is what a user of this adapter can do about an error of kind k
// beyond provider's general advice.
func hint(k provider.Kind) string {
	if k == provider.ErrAuth {
		return "set ANTHROPIC_API_KEY to a key the server accepts"
	}
	return ""
}

func errorKind(status int, typ, msg string) provider.Kind {
	lower := strings.ToLower(msg)
	switch typ {
	case "authentication_error", "permission_error":
		return provider.ErrAuth
	case "not_found_error":
		if strings.Contains(lower, "model") {
			return provider.ErrUnknownModel
		}
		return provider.ErrBadRequest
	case "invalid_request_error", "request_too_large":
		if isOverflow(lower) {
			return provider.ErrContextOverflow
		}
		return provider.ErrBadRequest
	case "rate_limit_error":
		return provider.ErrRateLimited
	case "api_error", "overloaded_error", "timeout_error":
		return provider.ErrServer
	}
	if status == 0 {
		return provider.ErrServer // an unknown error event mid-stream
	}
	return provider.StatusKind(status)
}

// isOverflow reports whether an invalid_request_error's message says the
// conversation does not fit the model's context, as in "prompt is too
// long: 208310 tokens > 200000 maximum" or "input length and max_tokens
// exceed context limit".
func isOverflow(lower string) bool {
	for _, s := range []string{"prompt is too long", "context window", "context limit", "context length"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return strings.Contains(lower, "too long") && strings.Contains(lower, "token")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
