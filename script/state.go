package script

import (
	"context"
	"fmt"
	"math"

	"github.com/agentsh/agentsh/core"
)

// The state store: values shared by every call of one host (the session),
// safe to use from concurrent tools and hooks in any language. Each method
// takes the context of the running call: while executor.Decide evaluates
// a call, its hooks read and write a throwaway copy of the session (see
// executor.SessionFor), so a policy that counts calls counts nothing
// there.

// session is the session the call running under ctx uses.
func (h *Host) session(ctx context.Context) *core.Session { return h.exec.SessionFor(ctx) }

// StateGet returns the value under key, or def when there is none.
func (h *Host) StateGet(ctx context.Context, key string, def any) any {
	if v, ok := h.session(ctx).Get(key); ok {
		return v
	}
	return def
}

// StateSet stores a JSON shape under key.
func (h *Host) StateSet(ctx context.Context, key string, v any) error {
	if err := CheckValue(v, fmt.Sprintf("state[%q]", key)); err != nil {
		return err
	}
	h.session(ctx).Set(key, v)
	return nil
}

// StateIncr adds n to the integer under key (missing counts as 0) and
// returns the new value, atomically.
func (h *Host) StateIncr(ctx context.Context, key string, n int64) (int64, error) {
	var err error
	v := h.session(ctx).Update(key, func(old any, ok bool) any {
		if !ok || old == nil {
			return n
		}
		i, isInt := old.(int64)
		if !isInt {
			err = fmt.Errorf("state.incr: %q holds %s, want an int", key, describe(old))
			return old
		}
		if (n > 0 && i > math.MaxInt64-n) || (n < 0 && i < math.MinInt64-n) {
			err = fmt.Errorf("state.incr: %q would overflow: %d + %d does not fit in 64 bits", key, i, n)
			return old
		}
		return i + n
	})
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

// StateDelete removes key.
func (h *Host) StateDelete(ctx context.Context, key string) { h.session(ctx).Delete(key) }

// StateKeys lists the keys, sorted.
func (h *Host) StateKeys(ctx context.Context) []string { return h.session(ctx).Keys() }
