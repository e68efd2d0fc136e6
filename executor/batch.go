package executor

import (
	"context"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// DefaultConcurrency bounds the pool of a parallel or mixed batch when no
// bound is set (a concurrency of 0). Every pooled call holds a goroutine
// and whatever its tool builds, so a batch of 30,000 calls must not start
// them all at once; 64 keeps I/O-bound tools (web, shell, MCP) busy and
// costs little over a CPU-bound tool's GOMAXPROCS. There is no unbounded
// pool: a bound at least as large as the batch lets all of it run at once.
const DefaultConcurrency = 64

// BatchOption overrides the executor's defaults for one ExecuteAll.
type BatchOption func(*batch)

type batch struct {
	mode        Mode
	concurrency int
}

// InMode runs the batch in mode m.
func InMode(m Mode) BatchOption { return func(b *batch) { b.mode = m } }

// WithLimit bounds the batch's pool to n calls at a time; 0 means
// DefaultConcurrency.
func WithLimit(n int) BatchOption { return func(b *batch) { b.concurrency = n } }

// ExecuteAll runs calls through the pipeline and returns their results in
// call order. In serial mode they run one after another. In parallel and
// mixed modes, calls that may overlap (see Mode) join a pool bounded by the
// concurrency setting (DefaultConcurrency when it is 0): the pool is that
// many workers at most, so a batch never holds more goroutines than the
// bound, however many calls it has. Any other call is a barrier: the pool
// drains, the call runs alone, then the pool resumes. Call IDs are assigned in call
// order before anything runs, so they do not depend on scheduling. A
// cancelled ctx makes every call that has not started return canceled.
func (e *Executor) ExecuteAll(ctx context.Context, calls []core.Call, opts ...BatchOption) []*core.Result {
	ctx, _ = core.TakeOutputStream(ctx) // a stream is for one call, never a batch
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
	// A journal records calls in the order they run, which must be the
	// same on every execution of a run: with one, a batch runs serially.
	if b.mode == ModeSerial || e.journal != nil {
		for i := range cs {
			results[i] = e.invoke(ctx, &cs[i])
		}
		return results
	}

	bound := b.concurrency
	if bound <= 0 {
		bound = DefaultConcurrency
	}
	// The pool is up to bound workers, started when a call finds none
	// idle: the batch never holds more goroutines than that, however long.
	type job struct {
		i int
		t *core.Tool
	}
	var wg sync.WaitGroup
	work := make(chan job)
	defer close(work)
	workers := 0
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
		wg.Add(1)
		select {
		case work <- job{i, t}: // an idle worker took it
			continue
		default:
		}
		if workers < bound {
			workers++
			go func() {
				for j := range work {
					results[j.i] = e.invokeResolved(ctx, &cs[j.i], j.t)
					wg.Done()
				}
			}()
		}
		select {
		case work <- job{i, t}:
		case <-ctx.Done():
			wg.Done()
			results[i] = e.invokeResolved(ctx, &cs[i], t) // returns canceled at once
		}
	}
	wg.Wait()
	return results
}
