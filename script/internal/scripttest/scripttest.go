// Package scripttest holds what the tests of the script bindings share:
// an output buffer safe for concurrent writers, a watchdog that turns a
// hang into a failure, a barrier that proves calls overlap, and
// assertions on output lines, substrings and result kinds.
package scripttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script"
)

// Watchdog bounds how long a test waits for something that must not hang.
// It only turns a hang into a failure; no assertion depends on timing.
const Watchdog = testwait.Step

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

// Lines returns what was written, as lines without the final newline.
func (b *Buffer) Lines() []string {
	s := strings.TrimSuffix(b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// GoTool registers a Go tool whose function gets the decoded arguments.
func GoTool(t testing.TB, reg *core.Registry, name string, safe *bool, fn func(ctx context.Context, args map[string]any) (any, error)) {
	t.Helper()
	err := reg.RegisterTools(core.Tool{Name: name, ConcurrencySafe: safe,
		Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			v, err := script.DecodeJSON(raw)
			if err != nil {
				return nil, err
			}
			m, _ := v.(map[string]any)
			return fn(ctx, m)
		}})
	if err != nil {
		t.Fatal(err)
	}
}

// Invoke calls a tool through ex's pipeline with raw JSON arguments.
func Invoke(ex *executor.Executor, name, args string) *core.Result {
	res, _ := ex.InvokeTool(context.Background(), name, json.RawMessage(args))
	return res
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
