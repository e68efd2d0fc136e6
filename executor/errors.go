package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/core"
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
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	for _, n := range names {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d <= 2 || strings.HasPrefix(n, name) && name != "" {
			cands = append(cands, cand{n, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	switch {
	case len(cands) > 0:
		return fmt.Sprintf("%s; did you mean %q?", msg, cands[0].name)
	case len(names) <= 8:
		return fmt.Sprintf("%s; registered tools: %s", msg, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s; %d tools are registered: list them with agentsh tools, or tool_names() in a script", msg, len(names))
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
