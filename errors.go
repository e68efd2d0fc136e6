package agentsh

import "fmt"

// OptionError is a Config value New cannot use. Option names the option
// that sets it (WithGrepBackend), so that a program reports it in its own
// terms: the agentsh command names its flag instead.
type OptionError struct {
	Option string
	Value  string // the value given, when the message needs it
	Err    error
}

func (e *OptionError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("agentsh.%s(%q): %v", e.Option, e.Value, e.Err)
	}
	return "agentsh." + e.Option + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() error { return e.Err }

func optionErrorf(option, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}
