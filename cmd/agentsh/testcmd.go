package main

import (
	"context"

	"github.com/agentsh/agentsh"
)

// test runs: agentsh test [-run REGEXP] [PATHS...]. Every test gets a
// fresh host set up as the flags say (built-in tools included unless
// --no-builtins) with the --load files run on it, in their own languages;
// the report goes to stdout and any failure exits 1.
func (a *app) test(ctx context.Context) int {
	failed, err := a.sh.Test(ctx, agentsh.TestOptions{Out: a.io.out, Verbose: a.opts.verbose, Run: a.opts.runTests, Scripts: a.opts.loads}, a.opts.positional...)
	if err != nil {
		return a.fail(err)
	}
	if stop := stopCause(a.runCtx); stop != nil {
		return a.report(stop, stop)
	}
	if failed > 0 {
		return 1
	}
	return 0
}
