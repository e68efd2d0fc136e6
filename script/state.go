package script

import (
	"fmt"
	"math"
)

// The state store: values shared by every call of one host (the session),
// safe to use from concurrent tools and hooks in any language.

// StateGet returns the value under key, or def when there is none.
func (h *Host) StateGet(key string, def any) any {
	if v, ok := h.exec.Session().Get(key); ok {
		return v
	}
	return def
}

// StateSet stores a JSON shape under key.
func (h *Host) StateSet(key string, v any) error {
	if err := CheckValue(v, fmt.Sprintf("state[%q]", key)); err != nil {
		return err
	}
	h.exec.Session().Set(key, v)
	return nil
}

// StateIncr adds n to the integer under key (missing counts as 0) and
// returns the new value, atomically.
func (h *Host) StateIncr(key string, n int64) (int64, error) {
	var err error
	v := h.exec.Session().Update(key, func(old any, ok bool) any {
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
func (h *Host) StateDelete(key string) { h.exec.Session().Delete(key) }

// StateKeys lists the keys, sorted.
func (h *Host) StateKeys() []string { return h.exec.Session().Keys() }
