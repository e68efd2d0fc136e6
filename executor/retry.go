package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentsh/agentsh/core"
)

// RetryOptions configures Retry. The zero value is 3 attempts with 100ms
// backoff doubling up to 10s.
type RetryOptions struct {
	// Attempts counts executions, the first included. 0 means 3.
	Attempts int
	// Backoff is the wait before the second attempt; it doubles after each
	// attempt, up to MaxBackoff. 0 means 100ms; negative means no wait.
	Backoff    time.Duration
	MaxBackoff time.Duration // 0 means 10s
	// Sleep waits d or until ctx is done; nil uses a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxKeys bounds how many succeeded deduplication keys are remembered
	// (oldest forgotten first). 0 means 4096.
	MaxKeys int
}

// Retry executes a call again when it fails with failed or timeout, and
// never for rejected, invalid_arguments, unknown_tool, canceled or panic.
// Only Idempotent tools, or calls that carry a DedupKey, are executed more
// than once. A DedupKey that already succeeded (for the same tool) returns
// the stored result without running again; concurrent calls with one key
// run one at a time.
func Retry(o RetryOptions) core.Middleware {
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff == 0 {
		o.Backoff = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = 4096
	}
	r := &retrier{opts: o, keys: map[string]*dedupEntry{}}
	return core.Middleware{
		Name: fmt.Sprintf("retry(attempts=%d, backoff=%s)", o.Attempts, o.Backoff),
		Func: r.run,
	}
}

type retrier struct {
	opts  RetryOptions
	mu    sync.Mutex
	keys  map[string]*dedupEntry
	order []string // keys, oldest first
}

type dedupEntry struct {
	lock   chan struct{} // held (full) while the key's call runs
	result *core.Result
}

func (r *retrier) run(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
	if call.DedupKey == "" {
		return r.attempt(ctx, call, next, call.Tool != nil && call.Tool.Idempotent)
	}
	key := call.Name + "\x00" + call.DedupKey
	e := r.entry(key)

	select {
	case e.lock <- struct{}{}:
	case <-ctx.Done(): // waiting for the same key's running call
		return &core.Result{CallID: call.ID, Tool: call.Name, Err: contextError(ctx, call, nil)}
	}
	defer func() { <-e.lock }()
	if e.result != nil {
		res := *e.result
		res.CallID = call.ID
		return &res
	}
	res := r.attempt(ctx, call, next, true)
	if res.OK() {
		stored := *res
		e.result = &stored
	}
	return res
}

// entry returns the key's entry, creating it and forgetting the oldest key
// beyond MaxKeys. A forgotten entry stays valid for calls holding it.
func (r *retrier) entry(key string) *dedupEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.keys[key]; e != nil {
		return e
	}
	e := &dedupEntry{lock: make(chan struct{}, 1)}
	r.keys[key] = e
	r.order = append(r.order, key)
	for len(r.order) > r.opts.MaxKeys {
		delete(r.keys, r.order[0])
		r.order = r.order[1:]
	}
	return e
}

func (r *retrier) attempt(ctx context.Context, call *core.Call, next core.Handler, again bool) *core.Result {
	wait := r.opts.Backoff
	for n := 1; ; n++ {
		res := next(ctx, call)
		if res.OK() || !again || n >= r.opts.Attempts || ctx.Err() != nil {
			return res
		}
		if k := res.Kind(); k != core.KindFailed && k != core.KindTimeout {
			return res
		}
		if wait > 0 {
			if r.opts.Sleep(ctx, wait) != nil {
				return res
			}
			wait = min(wait*2, r.opts.MaxBackoff)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
