package agent

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// waitFor polls cond, failing the test after a generous while; slots
// hand over through goroutines the test cannot join otherwise.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Step); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// fixed is a limit that does not change.
func fixed(n int) func() int { return func() int { return n } }

func (s *slots) state() (running, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, len(s.waiting)
}

// TestSlotsFirstComeFirstServed: past the limit, children wait and start
// in the order they asked, one per slot given back.
func TestSlotsFirstComeFirstServed(t *testing.T) {
	var s slots
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := s.acquire(ctx, fixed(2)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(ctx, fixed(2)); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
		waitFor(t, "the waiter queues", func() bool { _, w := s.state(); return w == i+1 })
	}
	for i := 0; i < 3; i++ {
		s.release(fixed(2))
		waitFor(t, "a waiter starts", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == i+1 })
	}
	wg.Wait()
	if order[0] != 0 || order[1] != 1 || order[2] != 2 {
		t.Errorf("waiters started in order %v, want [0 1 2]", order)
	}
	if r, w := s.state(); r != 2 || w != 0 {
		t.Errorf("running %d, waiting %d; want 2 and 0", r, w)
	}
}

// TestSlotsLimitChanges: a lowered limit starts no one until enough have
// ended; a raised one starts the waiters at once, the next to ask first,
// and a newcomer waits behind them.
func TestSlotsLimitChanges(t *testing.T) {
	var s slots
	var lim atomic.Int64
	lim.Store(3)
	limit := func() int { return int(lim.Load()) }
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.acquire(ctx, limit); err != nil {
			t.Fatal(err)
		}
	}
	lim.Store(1)
	started := make(chan struct{}, 4)
	for i := 0; i < 2; i++ {
		go func() {
			if err := s.acquire(ctx, limit); err == nil {
				started <- struct{}{}
			}
		}()
	}
	waitFor(t, "two waiters queue", func() bool { _, w := s.state(); return w == 2 })
	s.release(limit) // 2 running, limit 1: no one starts
	s.release(limit) // 1 running: still no one
	if r, w := s.state(); r != 1 || w != 2 {
		t.Fatalf("after lowering the limit to 1: running %d, waiting %d; want 1 and 2", r, w)
	}
	// Raised to 4, the next to ask starts at once, and so do both waiters.
	lim.Store(4)
	if err := s.acquire(ctx, limit); err != nil {
		t.Fatal(err)
	}
	<-started
	<-started
	if r, w := s.state(); r != 4 || w != 0 {
		t.Errorf("after raising the limit to 4: running %d, waiting %d; want 4 and 0", r, w)
	}
}

// twoWaiters holds the one slot of a limit of 1 and queues two waiters:
// the first can be cancelled; gone and next report their acquires.
func twoWaiters(t *testing.T) (s *slots, cancel func(), gone, next chan error) {
	t.Helper()
	s = &slots{}
	if err := s.acquire(context.Background(), fixed(1)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gone, next = make(chan error, 1), make(chan error, 1)
	go func() { gone <- s.acquire(ctx, fixed(1)) }()
	waitFor(t, "the first waiter queues", func() bool { _, w := s.state(); return w == 1 })
	go func() { next <- s.acquire(context.Background(), fixed(1)) }()
	waitFor(t, "the second waiter queues", func() bool { _, w := s.state(); return w == 2 })
	return s, cancel, gone, next
}

// TestSlotsCancelWhileWaiting: a waiter whose context ends leaves the
// queue without a slot, and the next waiter gets the one given back.
func TestSlotsCancelWhileWaiting(t *testing.T) {
	s, cancel, gone, next := twoWaiters(t)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returned %v, want context.Canceled", err)
	}
	if r, w := s.state(); r != 1 || w != 1 {
		t.Fatalf("after the cancel: running %d, waiting %d; want 1 and 1", r, w)
	}
	s.release(fixed(1))
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if r, w := s.state(); r != 1 || w != 0 {
		t.Errorf("running %d, waiting %d; want 1 and 0", r, w)
	}
}

// TestSlotsRace: many children acquiring, some cancelled, never hold
// more than the limit at once, and every slot is given back.
func TestSlotsRace(t *testing.T) {
	var s slots
	const limit = 3
	var now, most atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i%3 == 0 {
				go cancel()
			}
			if s.acquire(ctx, fixed(limit)) != nil {
				return
			}
			n := now.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(50 * time.Microsecond) // hold the slot a while
			now.Add(-1)
			s.release(fixed(limit))
		}()
	}
	wg.Wait()
	if m := most.Load(); m > limit || m < 2 {
		t.Errorf("%d held slots at once, want 2 or 3 (the limit)", m)
	}
	if r, w := s.state(); r != 0 || w != 0 {
		t.Errorf("at the end: running %d, waiting %d; want 0 and 0", r, w)
	}
}

// TestSlotsGrantedAsCancelled: a slot given to a waiter whose context
// ended at the same moment is handed on, not lost.
func TestSlotsGrantedAsCancelled(t *testing.T) {
	s, cancel, gone, next := twoWaiters(t)
	// The first waiter wakes for its context, then finds the slot given
	// to it by a release that took the lock first.
	s.mu.Lock()
	cancel()
	s.running--
	s.grant(1)
	s.mu.Unlock()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returned %v, want context.Canceled", err)
	}
	select {
	case err := <-next:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testwait.Step):
		t.Fatal("the second waiter never got the slot the cancelled one was given")
	}
	if r, w := s.state(); r != 1 || w != 0 {
		t.Errorf("running %d, waiting %d; want 1 (the second waiter) and 0", r, w)
	}
}
