package provider

import (
	"fmt"
	"time"
)

// Limits bound one response of a model's server, so that a server that
// never answers, stalls, trickles or streams without end cannot hold a Run
// or its memory. The zero value of each field means its default.
//
// A response that breaks a limit fails with ErrTimeout or ErrTooLarge, and
// is not retried: an attempt that already waited that long would only
// double the wait.
type Limits struct {
	// IdleTimeout is the longest the server may send nothing: while the
	// connection is made and the response headers awaited, and between any
	// two reads of the body (a stream's keep-alive comments count as
	// bytes). A non-streamed answer sends nothing until the model has
	// written all of it, so this is also the longest such an answer may
	// take. 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxDuration bounds one attempt, from sending the request to the last
	// byte of the response: it ends a server that trickles bytes just
	// often enough to pass IdleTimeout. 0 means DefaultMaxDuration.
	MaxDuration time.Duration
	// MaxBytes bounds the body of one response, a whole event stream
	// included. 0 means DefaultMaxBytes.
	MaxBytes int64
}

// The default limits. DefaultIdleTimeout matches the whole-request timeout
// of the official OpenAI and Anthropic clients, so that no answer they
// would wait for is cut short; the others are far beyond any real answer
// (the largest output budgets, 128k tokens, stream in about 20 minutes and
// well under 64 MiB of events).
const (
	DefaultIdleTimeout = 10 * time.Minute
	DefaultMaxDuration = time.Hour
	DefaultMaxBytes    = 64 << 20
)

// OrDefaults returns l with every zero field set to its default.
func (l Limits) OrDefaults() Limits {
	if l.IdleTimeout == 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxDuration == 0 {
		l.MaxDuration = DefaultMaxDuration
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Check reports a negative field.
func (l Limits) Check() error {
	switch {
	case l.IdleTimeout < 0:
		return fmt.Errorf("idle timeout got %v, want 0 (the default, %v) or more", l.IdleTimeout, DefaultIdleTimeout)
	case l.MaxDuration < 0:
		return fmt.Errorf("max duration got %v, want 0 (the default, %v) or more", l.MaxDuration, DefaultMaxDuration)
	case l.MaxBytes < 0:
		return fmt.Errorf("max bytes got %d, want 0 (the default, %d) or more", l.MaxBytes, DefaultMaxBytes)
	}
	return nil
}

// Limited is implemented by providers whose responses are bounded by
// Limits (the HTTP adapters). Code that holds only a Provider, such as one
// from provider.Open, changes the limits through it.
type Limited interface {
	Provider
	// Limits returns the limits in force, defaults filled in.
	Limits() Limits
	// WithLimits returns a copy of the provider that uses l (zero fields
	// mean the defaults); the original is unchanged. It fails on a
	// negative field.
	WithLimits(l Limits) (Provider, error)
}
