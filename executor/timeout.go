package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/core"
)

// Timeout gives the rest of the chain a deadline of d. The tool must honour
// its context; a call whose deadline passes fails with timeout. d <= 0 sets
// no deadline. Limit it to some tools with the returned value's Tools field.
func Timeout(d time.Duration) core.Middleware {
	return core.Middleware{
		Name: fmt.Sprintf("timeout(%s)", d),
		Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			if d <= 0 {
				return next(ctx, call)
			}
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, call)
		},
	}
}
