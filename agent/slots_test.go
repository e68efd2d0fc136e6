package agent

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// waitFor polls cond, failing the test after a generous while; slots
// hand over through goroutines the test cannot join otherwise.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

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
		if err := s.acquire(ctx, 2); err != nil {
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
			if err := s.acquire(ctx, 2); err != nil {
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
		s.release(2)
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
// ended; a raised one starts as many waiters as it makes room for at the
// next release.
func TestSlotsLimitChanges(t *testing.T) {
	var s slots
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.acquire(ctx, 3); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{}, 4)
	for i := 0; i < 4; i++ {
		go func() {
			if err := s.acquire(ctx, 1); err == nil {
				started <- struct{}{}
			}
		}()
	}
	waitFor(t, "four waiters queue", func() bool { _, w := s.state(); return w == 4 })
	s.release(1) // 2 running, limit 1: no one starts
	s.release(1) // 1 running: still no one
	if r, w := s.state(); r != 1 || w != 4 {
		t.Fatalf("after lowering the limit to 1: running %d, waiting %d; want 1 and 4", r, w)
	}
	s.release(4) // 0 running, limit now 4: all four start
	for i := 0; i < 4; i++ {
		<-started
	}
	if r, w := s.state(); r != 4 || w != 0 {
		t.Errorf("after raising the limit to 4: running %d, waiting %d; want 4 and 0", r, w)
	}
}

// TestSlotsCancelWhileWaiting: a waiter whose context ends leaves the
// queue without a slot, and the next waiter gets the one given back.
func TestSlotsCancelWhileWaiting(t *testing.T) {
	var s slots
	if err := s.acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error)
	go func() { gone <- s.acquire(ctx, 1) }()
	waitFor(t, "the first waiter queues", func() bool { _, w := s.state(); return w == 1 })
	next := make(chan error)
	go func() { next <- s.acquire(context.Background(), 1) }()
	waitFor(t, "the second waiter queues", func() bool { _, w := s.state(); return w == 2 })
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returned %v, want context.Canceled", err)
	}
	if r, w := s.state(); r != 1 || w != 1 {
		t.Fatalf("after the cancel: running %d, waiting %d; want 1 and 1", r, w)
	}
	s.release(1)
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if r, w := s.state(); r != 1 || w != 0 {
		t.Errorf("running %d, waiting %d; want 1 and 0", r, w)
	}
}

// TestSlotsRace: many children acquiring, some cancelled, never run more
// than the limit at once, and every slot is given back.
func TestSlotsRace(t *testing.T) {
	var s slots
	const limit = 3
	var mu sync.Mutex
	now, most := 0, 0
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
			if s.acquire(ctx, limit) != nil {
				return
			}
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			mu.Lock()
			now--
			mu.Unlock()
			s.release(limit)
		}()
	}
	wg.Wait()
	if most > limit {
		t.Errorf("%d held slots at once, want at most %d", most, limit)
	}
	if r, w := s.state(); r != 0 || w != 0 {
		t.Errorf("at the end: running %d, waiting %d; want 0 and 0", r, w)
	}
}

// TestSlotsGrantedAsCancelled: a slot given to a waiter whose context
// ended at the same moment is handed on, not lost.
func TestSlotsGrantedAsCancelled(t *testing.T) {
	var s slots
	if err := s.acquire(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error)
	go func() { gone <- s.acquire(ctx, 1) }()
	waitFor(t, "the first waiter queues", func() bool { _, w := s.state(); return w == 1 })
	next := make(chan error)
	go func() { next <- s.acquire(context.Background(), 1) }()
	waitFor(t, "the second waiter queues", func() bool { _, w := s.state(); return w == 2 })
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
	case <-time.After(10 * time.Second):
		t.Fatal("the second waiter never got the slot the cancelled one was given")
	}
	if r, w := s.state(); r != 1 || w != 0 {
		t.Errorf("running %d, waiting %d; want 1 (the second waiter) and 0", r, w)
	}
}
