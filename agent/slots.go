package agent

import (
	"context"
	"sync"
)

// slots bounds the children of one agent running at once. The bound is a
// function, read whenever a slot is asked for or given back, so that
// SetSubagentLimits applies to the next child: a lowered bound lets no
// child start until enough have ended, a raised one starts waiting
// children at once. Waiting children start in the order they asked.
type slots struct {
	mu      sync.Mutex
	running int
	waiting []chan struct{} // closed when its child may start
}

// acquire waits for a slot under limit() or for ctx; a nil error means
// the caller holds a slot and must release it.
func (s *slots) acquire(ctx context.Context, limit func() int) error {
	ready := make(chan struct{})
	s.mu.Lock()
	s.waiting = append(s.waiting, ready)
	s.grant(limit())
	s.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-ready: // granted as ctx ended: hand the slot on
		s.running--
		s.grant(limit())
	default:
		for i, w := range s.waiting {
			if w == ready {
				s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
				break
			}
		}
	}
	return ctx.Err()
}

// release gives back a slot, starting as many waiting children as
// limit() now allows.
func (s *slots) release(limit func() int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.grant(limit())
}

// grant starts waiting children, first come first served, while there is
// room under limit; s.mu is held.
func (s *slots) grant(limit int) {
	for len(s.waiting) > 0 && s.running < limit {
		s.running++
		close(s.waiting[0])
		s.waiting = s.waiting[1:]
	}
}
