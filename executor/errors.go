package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/wording"
)

func quoteName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", name)
}

func panicError(call *core.Call, where string, v any) *core.Error {
	return &core.Error{Kind: core.KindPanic, Tool: call.Name, CallID: call.ID,
		Message: fmt.Sprintf("panic in %s (call %s): %v", where, call.ID, v),
		Stack:   string(debug.Stack())}
}

// contextError turns a done context (or a context error from the tool)
// into timeout or canceled.
func contextError(ctx context.Context, call *core.Call, cause error) *core.Error {
	err := ctx.Err()
	if err == nil {
		err = cause
	}
	if cause == nil {
		cause = err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &core.Error{Kind: core.KindTimeout, Tool: call.Name, CallID: call.ID,
			Message: fmt.Sprintf("%s timed out: %v", call.Name, cause), Err: cause}
	}
	return &core.Error{Kind: core.KindCanceled, Tool: call.Name, CallID: call.ID,
		Message: fmt.Sprintf("%s canceled: %v", call.Name, cause), Err: cause}
}

func invalidArguments(call *core.Call, vs []core.Violation) *core.Error {
	return &core.Error{Kind: core.KindInvalidArguments, Tool: call.Name, CallID: call.ID, Violations: vs,
		Message: fmt.Sprintf("invalid arguments for %s: %s", call.Name, core.ViolationsText(vs))}
}

// unknownToolMessage names the closest registered tools, so a typo is quick
// to fix.
func unknownToolMessage(name string, names []string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if len(names) == 0 {
		return msg + ": no tools are registered"
	}
	if near, ok := wording.Nearest(name, names); ok {
		return fmt.Sprintf("%s; did you mean %q?", msg, near)
	}
	if len(names) <= 8 {
		return fmt.Sprintf("%s; registered tools: %s", msg, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s; %d tools are registered: list them with agentsh tools, or tool_names() in a script", msg, len(names))
}
