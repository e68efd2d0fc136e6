package provider

import (
	"errors"
	"fmt"
)

// Kind classifies provider errors; a Kind is itself an error, so
// errors.Is(err, provider.ErrAuth) works on any *Error.
type Kind string

func (k Kind) Error() string { return string(k) }

// The kinds of provider errors.
const (
	ErrAuth            Kind = "auth"             // missing or rejected credentials (401, 403)
	ErrUnknownModel    Kind = "unknown_model"    // the model does not exist (404, model_not_found)
	ErrContextOverflow Kind = "context_overflow" // the conversation is longer than the model's context
	ErrRateLimited     Kind = "rate_limited"     // 429, after the retries
	ErrServer          Kind = "server"           // 5xx or overloaded, after the retries
	ErrBadRequest      Kind = "bad_request"      // any other 4xx
	ErrProtocol        Kind = "protocol"         // a response that cannot be understood
	ErrTimeout         Kind = "timeout"          // the server sent nothing for too long, or took too long (Limits)
	ErrTooLarge        Kind = "too_large"        // the response is larger than Limits.MaxBytes
	ErrDiverged        Kind = "diverged"         // replay: the conversation left the recording
)

// Error is a failed model request.
type Error struct {
	Kind     Kind
	Provider string // such as "openai"
	Status   int    // HTTP status, 0 when there was none
	Message  string // what the provider said, or what went wrong
	Err      error  // the underlying error, if any
	// Hint tells the user what to do next in the adapter's own terms: its
	// environment variables, the --model spec that reaches it. Empty
	// means the kind's general advice.
	Hint string
}

func (e *Error) Error() string {
	s := e.Provider + ": "
	if e.Status != 0 {
		s += fmt.Sprintf("HTTP %d: ", e.Status)
	}
	s += e.Message
	hint := e.Hint
	if hint == "" {
		hint = e.Kind.hint()
	}
	if hint != "" {
		s += " (" + hint + ")"
	}
	return s
}

// Unwrap returns the kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// hint tells the user what to do next, in words true of every adapter;
// an adapter says more in Error.Hint.
func (k Kind) hint() string {
	switch k {
	case ErrAuth:
		return "check the provider's API key"
	case ErrUnknownModel:
		return "check the model name in provider(\"PROVIDER:MODEL\")"
	case ErrContextOverflow:
		return "the conversation is too long for the model; start a new one or use a model with a larger context"
	case ErrTimeout:
		return "check that the model's server is up; a slow server may be given longer (the adapter's IdleTimeout)"
	case ErrTooLarge:
		return "no answer needs that much; check the model's server"
	}
	return ""
}

// StatusKind is the kind an HTTP error status means when the body says
// nothing more specific: 401 and 403 auth, 429 rate limited, 5xx server,
// other 4xx bad request, anything else a protocol error.
func StatusKind(status int) Kind {
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrProtocol
}

// KindOf returns the kind of a provider error, or "" for other errors.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// ErrRecording is the error of a recording a replaying provider cannot
// replay: a corrupt line, an entry without a response, a request past its
// end. A program that records (--record) can record the run again.
var ErrRecording = errors.New("recording cannot be replayed")
