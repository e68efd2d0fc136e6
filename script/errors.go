package script

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// ErrNoModel is the error of a script's ask(prompt) when no model is set
// up to ask; errors.Is finds it through *Error.
var ErrNoModel = errors.New("no model is set up to ask")

// StepBudgetError is the error of a run or call that used up its step
// budget (Options.MaxSteps); errors.As finds it through *Error. Err is the
// interpreter's own error, if any.
type StepBudgetError struct {
	Max uint64
	Err error
}

func (e *StepBudgetError) Error() string { return fmt.Sprintf("step budget of %d exceeded", e.Max) }

// Unwrap returns Err.
func (e *StepBudgetError) Unwrap() error { return e.Err }

// stepBudgetText finds a StepBudgetError's text at the end of a message.
var stepBudgetText = regexp.MustCompile(`step budget of (\d+) exceeded$`)

// StepBudgetIn returns the StepBudgetError that msg, an interpreter's
// message, ends with, wrapping cause; nil if it reports none. Interpreters
// report a cancelled run as text; a binding gives it its type back.
func StepBudgetIn(msg string, cause error) error {
	m := stepBudgetText.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	max, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return nil
	}
	return &StepBudgetError{Max: max, Err: cause}
}
