// Package scripttest holds what the tests of the script bindings share:
// an output buffer safe for concurrent writers, a watchdog that turns a
// hang into a failure, a barrier that proves calls overlap, and
// assertions on output lines, substrings and result kinds.
package scripttest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
)

// Watchdog bounds how long a test waits for something that must not hang.
// It only turns a hang into a failure; no assertion depends on timing.
const Watchdog = 20 * time.Second

// Buffer collects script output; reads from the test goroutine are safe
// while calls write.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Reset empties the buffer.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// Bounded runs fn, failing the test (instead of hanging) if it does not
// return within the Watchdog.
func Bounded(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(Watchdog):
		t.Fatalf("%s: still running after %v (deadlock or runaway)", what, Watchdog)
	}
}

// Gate is a reusable barrier: Wait returns once n callers are waiting, or
// an error after the Watchdog, so a missing overlap fails and never hangs.
type Gate struct {
	mu      sync.Mutex
	n       int
	waiting int
	ch      chan struct{}
}

// NewGate returns a gate for n callers.
func NewGate(n int) *Gate { return &Gate{n: n, ch: make(chan struct{})} }

// Wait blocks until n callers wait, ctx ends or the Watchdog passes.
func (g *Gate) Wait(ctx context.Context) error {
	g.mu.Lock()
	ch := g.ch
	g.waiting++
	if g.waiting == g.n {
		close(g.ch)
		g.ch = make(chan struct{})
		g.waiting = 0
	}
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(Watchdog):
		return errors.New("gate: peers never arrived (calls did not overlap)")
	}
}

// WantLines compares output lines exactly.
func WantLines(t testing.TB, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output mismatch\n--- got:\n%s\n--- want:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// WantContains checks that s contains every one of subs.
func WantContains(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}

// WantKind checks a result's kind ("" for success).
func WantKind(t testing.TB, res *core.Result, kind core.Kind) {
	t.Helper()
	if res.Kind() != kind {
		t.Fatalf("kind = %q, want %q (error: %v, output %q)", res.Kind(), kind, res.Err, res.ForLLM)
	}
}
