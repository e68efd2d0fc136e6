package session

import (
	"errors"
	"fmt"
)

// The errors of a session that cannot be used as asked; errors.Is finds
// them. Each message says what to do in words of sessions (resume it,
// choose another name); a program adds how its users say that.
var (
	// ErrLocked: another process writes the session.
	ErrLocked = errors.New("session is open in another process")
	// ErrExists: a new session was asked for under a name that is taken.
	ErrExists = errors.New("session exists already")
	// ErrUnusable: the session's file is not a regular file.
	ErrUnusable = errors.New("session file is not a regular file")
)

// sessionError is an error with its own message that errors.Is matches
// to one of the errors above, and unwraps to the error among its
// arguments, if any.
type sessionError struct {
	msg   string
	kind  error
	cause error
}

func sessionErrorf(kind error, format string, args ...any) error {
	e := &sessionError{msg: fmt.Sprintf(format, args...), kind: kind}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.cause = err
			break
		}
	}
	return e
}

func (e *sessionError) Error() string        { return e.msg }
func (e *sessionError) Is(target error) bool { return target == e.kind }
func (e *sessionError) Unwrap() error        { return e.cause }
