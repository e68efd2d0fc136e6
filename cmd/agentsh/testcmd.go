package main

import (
	"context"
	"io"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/testrunner"
)

// test runs: agentsh test [-run REGEXP] [PATHS...]. Every test gets a
// fresh host set up as the flags say (built-in tools included unless
// --no-builtins) with the --load files run on it, in their own languages;
// the report goes to stdout and any failure exits 1.
func (a *app) test(ctx context.Context) int {
	opts := testrunner.Options{
		NewHost: func(out io.Writer) (*script.Host, func(), error) {
			h, setup, err := a.newHost(out, false)
			if err != nil {
				return nil, nil, err
			}
			testrunner.AssumeSandbox(h.Executor())
			return h, func() { _ = setup.close(); _ = h.Executor().Close() }, nil
		},
		MaxSteps: a.opts.maxSteps,
		Out:      a.io.out,
		Verbose:  a.opts.verbose,
		Load:     a.opts.loads,
		Run:      a.opts.runTests,
	}
	sum, err := testrunner.Run(ctx, opts, a.opts.positional)
	if err != nil {
		return a.fail(err)
	}
	if stop := stopCause(a.runCtx); stop != nil {
		return a.report(stop, stop)
	}
	if sum.Failed > 0 {
		return 1
	}
	return 0
}
