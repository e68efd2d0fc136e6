package script

import (
	"context"
	"fmt"
)

// Exit is the error of exit(code): the run stops and the program that ran
// it ends with Code (agentsh run and -c exit with it; the REPL ends). Both
// bindings keep it reachable with errors.As through *Error. Inside a tool,
// hook or middleware it ends that call, as any error does.
type Exit struct{ Code int }

func (e *Exit) Error() string { return fmt.Sprintf("exit(%d)", e.Code) }

// apiExit is exit(code).
func apiExit(_ context.Context, a Args) (any, error) {
	code := a["code"].(int)
	if code < 0 || code > 255 {
		return nil, fmt.Errorf("exit: code got %d, want 0 to 255", code)
	}
	return nil, &Exit{Code: code}
}
