package script

import "errors"

// ErrNoModel is the error of a script's ask(prompt) when no model is set
// up to ask; errors.Is finds it through *Error.
var ErrNoModel = errors.New("no model is set up to ask")
