package testrunner

import (
	"context"
	"fmt"
	"time"

	"github.com/agentsh/agentsh/script"
	sl "github.com/agentsh/agentsh/script/starlark"
)

// starlarkLanguage runs *_test.star files.
type starlarkLanguage struct{}

var _ language = starlarkLanguage{}

func (starlarkLanguage) interp(host *script.Host, opts Options) *sl.Interp {
	now := opts.Now
	return sl.New(host, sl.Options{
		MaxSteps: opts.MaxSteps,
		Now:      func() time.Time { return now },
		Testing:  true,
	})
}

func (l starlarkLanguage) tests(ctx context.Context, host *script.Host, opts Options, path string) ([]string, error) {
	g, err := l.interp(host, opts).ExecFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return sl.TestNames(g), nil
}

func (l starlarkLanguage) run(ctx context.Context, host *script.Host, opts Options, path, name string) error {
	in := l.interp(host, opts)
	g, err := in.ExecFile(ctx, path)
	if err != nil {
		return err
	}
	fn, ok := g[name]
	if !ok {
		return fmt.Errorf("%s: %s is no longer defined", path, name)
	}
	_, err = in.Call(ctx, fn)
	return err
}
