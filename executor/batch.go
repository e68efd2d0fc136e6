package executor

import (
	"context"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// BatchOption overrides the executor's defaults for one ExecuteAll.
type BatchOption func(*batch)

type batch struct {
	mode        Mode
	concurrency int
}

// InMode runs the batch in mode m.
func InMode(m Mode) BatchOption { return func(b *batch) { b.mode = m } }

// WithLimit bounds the batch's pool to n calls at a time; 0 is unlimited.
func WithLimit(n int) BatchOption { return func(b *batch) { b.concurrency = n } }

// ExecuteAll runs calls through the pipeline and returns their results in
// call order. In serial mode they run one after another. In parallel and
// mixed modes, calls that may overlap (see Mode) join a pool bounded by the
// concurrency setting; any other call is a barrier: the pool drains, the
// call runs alone, then the pool resumes. Call IDs are assigned in call
// order before anything runs, so they do not depend on scheduling. A
// cancelled ctx makes every call that has not started return canceled.
func (e *Executor) ExecuteAll(ctx context.Context, calls []core.Call, opts ...BatchOption) []*core.Result {
	b := batch{mode: e.Mode(), concurrency: e.Concurrency()}
	for _, o := range opts {
		o(&b)
	}
	cs := make([]core.Call, len(calls))
	copy(cs, calls)
	for i := range cs {
		if cs[i].ID == "" {
			cs[i].ID = e.newID()
		}
	}
	results := make([]*core.Result, len(cs))
	if b.mode == ModeSerial {
		for i := range cs {
			results[i] = e.invoke(ctx, &cs[i])
		}
		return results
	}

	var wg sync.WaitGroup
	var slots chan struct{}
	if b.concurrency > 0 {
		slots = make(chan struct{}, b.concurrency)
	}
	for i := range cs {
		// Resolve once: the call runs the tool it was scheduled for.
		t := e.reg.GetTool(cs[i].Name)
		var safe *bool
		if t != nil {
			safe = t.ConcurrencySafe
		}
		if !b.mode.pooled(safe) {
			wg.Wait() // barrier: nothing else runs alongside an unsafe call
			results[i] = e.invokeResolved(ctx, &cs[i], t)
			continue
		}
		if slots != nil {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results[i] = e.invokeResolved(ctx, &cs[i], t) // returns canceled at once
				continue
			}
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if slots != nil {
				defer func() { <-slots }()
			}
			results[i] = e.invokeResolved(ctx, &cs[i], t)
		}(i)
	}
	wg.Wait()
	return results
}
