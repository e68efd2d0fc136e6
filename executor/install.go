package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsh/agentsh/core"
)

// Install initialises extensions in order and registers what each
// contributes (tools, before and after hooks, middleware). If an Init
// fails, the extensions initialised before it are closed in reverse order
// and nothing is registered; the same happens if their tools cannot be
// registered (a duplicate name, a bad schema).
func (e *Executor) Install(ctx context.Context, exts ...core.Extension) error {
	var done []core.Extension
	rollback := func(cause error) error {
		return errors.Join(cause, closeAll(done))
	}
	for _, x := range exts {
		if in, ok := x.(core.Initializer); ok {
			if err := in.Init(ctx); err != nil {
				return rollback(fmt.Errorf("init extension %q: %w", x.Name(), err))
			}
		}
		done = append(done, x)
	}

	var tools []core.Tool
	var before []core.BeforeHook
	var after []core.AfterHook
	var mws []core.Middleware
	for _, x := range exts {
		if p, ok := x.(core.ToolProvider); ok {
			tools = append(tools, p.Tools()...)
		}
		if p, ok := x.(core.BeforeHookProvider); ok {
			before = append(before, p.BeforeHooks()...)
		}
		if p, ok := x.(core.AfterHookProvider); ok {
			after = append(after, p.AfterHooks()...)
		}
		if p, ok := x.(core.MiddlewareProvider); ok {
			mws = append(mws, p.Middleware()...)
		}
	}
	for _, h := range before {
		if err := checkHook("before hook", h.Name, h.Func == nil, h.Tools); err != nil {
			return rollback(err)
		}
	}
	for _, h := range after {
		if err := checkHook("after hook", h.Name, h.Func == nil, h.Tools); err != nil {
			return rollback(err)
		}
	}
	for _, m := range mws {
		if err := checkHook("middleware", m.Name, m.Func == nil, m.Tools); err != nil {
			return rollback(err)
		}
	}
	if err := e.reg.RegisterTools(tools...); err != nil {
		return rollback(err)
	}
	// Validated above, so these cannot fail.
	must(e.AddBefore(before...))
	must(e.AddAfter(after...))
	must(e.Use(mws...))
	for _, x := range exts {
		e.adoptWorkDir(x)
	}
	e.mu.Lock()
	e.exts = append(e.exts, exts...)
	e.mu.Unlock()
	return nil
}

// Extensions returns the installed extensions in install order.
func (e *Executor) Extensions() []core.Extension {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]core.Extension(nil), e.exts...)
}

// Close closes the installed extensions in reverse order and forgets them.
func (e *Executor) Close() error {
	e.mu.Lock()
	exts := e.exts
	e.exts = nil
	e.mu.Unlock()
	return closeAll(exts)
}

func closeAll(exts []core.Extension) error {
	var errs []error
	for i := len(exts) - 1; i >= 0; i-- {
		if c, ok := exts[i].(core.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close extension %q: %w", exts[i].Name(), err))
			}
		}
	}
	return errors.Join(errs...)
}
