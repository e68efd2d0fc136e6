package agentsh

import (
	"context"
	"io"
	"regexp"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/testrunner"
)

// TestOptions are how Test runs script tests.
type TestOptions struct {
	// Out receives the report.
	Out io.Writer
	// Verbose shows the output of passing tests too.
	Verbose bool
	// Run selects the tests whose names match; nil runs them all.
	Run *regexp.Regexp
	// Scripts are loaded on every test's host first, in their own
	// languages.
	Scripts []string
}

// Test runs the *_test.star and *_test.lua files under paths (default:
// "." recursively, without testdata). Every test gets a fresh host
// composed from the shell's Config, without its model, record, sessions,
// MCP servers and call observers (Config.ExecutorOptions), with Scripts
// loaded on it. It returns how many tests failed.
func (s *Shell) Test(ctx context.Context, o TestOptions, paths ...string) (failed int, err error) {
	opts := testrunner.Options{
		NewHost: func(out io.Writer) (*script.Host, func(), error) {
			cfg := s.cfg
			// The test's own output; no observers of the shell's calls.
			cfg.Output, cfg.Scripts, cfg.ExecutorOptions = out, nil, nil
			cfg.Prices = s.prices // read once, not per test
			sh, err := newShell(cfg, s)
			if err != nil {
				return nil, nil, err
			}
			testrunner.AssumeSandbox(sh.exec)
			return sh.host, func() { _ = sh.Close() }, nil
		},
		MaxSteps: s.cfg.MaxSteps,
		Out:      o.Out,
		Verbose:  o.Verbose,
		Load:     o.Scripts,
		Run:      o.Run,
	}
	sum, err := testrunner.Run(ctx, opts, paths)
	if err != nil {
		return 0, err
	}
	return sum.Failed, nil
}
