package lua

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
)

// watchdog bounds how long a test waits for something that must not hang.
// It only turns a hang into a failure; no assertion depends on timing.
const watchdog = 10 * time.Second

// syncBuffer collects print() output; Host.Print serializes writers, the
// mutex also makes reads from the test goroutine safe.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// env is one executor + host + interpreter, with print output captured.
type env struct {
	t    testing.TB
	ex   *executor.Executor
	host *script.Host
	in   *Interp
	out  *syncBuffer
}

func newEnv(t testing.TB, opts Options, exOpts ...executor.Option) *env {
	t.Helper()
	ex := executor.New(nil, exOpts...)
	out := &syncBuffer{}
	host := script.NewHost(ex, out)
	in := New(host, opts)
	t.Cleanup(func() {
		// Close waits for the interpreter lock; a test that failed with
		// Lua still running must not hang here.
		done := make(chan struct{})
		go func() {
			defer close(done)
			in.Close()
		}()
		select {
		case <-done:
		case <-time.After(watchdog):
			t.Errorf("Close: Lua code still running after %v", watchdog)
		}
	})
	return &env{t: t, ex: ex, host: host, in: in, out: out}
}

// exec runs src as test.lua.
func (e *env) exec(src string) error {
	_, err := e.in.ExecSource(context.Background(), "test.lua", []byte(src))
	return err
}

// run runs src and fails the test on error.
func (e *env) run(src string) {
	e.t.Helper()
	if err := e.exec(src); err != nil {
		e.t.Fatalf("script failed: %s", detail(err))
	}
}

// runBounded is run with a watchdog: a hang fails the test.
func (e *env) runBounded(what, src string) {
	e.t.Helper()
	var err error
	bounded(e.t, what, func() { err = e.exec(src) })
	if err != nil {
		e.t.Fatalf("%s: script failed: %s", what, detail(err))
	}
}

// runErr runs src and returns the error, failing if there is none.
func (e *env) runErr(src string) error {
	e.t.Helper()
	err := e.exec(src)
	if err == nil {
		e.t.Fatalf("script succeeded, want an error; output:\n%s", e.out.String())
	}
	return err
}

func detail(err error) string {
	var le *Error
	if errors.As(err, &le) {
		return le.Detail()
	}
	return err.Error()
}

// lines returns the print() output as lines.
func (e *env) lines() []string {
	s := strings.TrimSuffix(e.out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// goTool registers a Go tool on the executor's registry.
func (e *env) goTool(name string, safe *bool, fn func(ctx context.Context, args map[string]any) (any, error)) {
	e.t.Helper()
	err := e.ex.Registry().RegisterTools(core.Tool{Name: name, ConcurrencySafe: safe,
		Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			v, err := script.DecodeJSON(raw)
			if err != nil {
				return nil, err
			}
			m, _ := v.(map[string]any)
			return fn(ctx, m)
		}})
	if err != nil {
		e.t.Fatal(err)
	}
}

// invoke calls a tool through the pipeline from Go.
func (e *env) invoke(name, args string) *core.Result {
	res, _ := e.ex.InvokeTool(context.Background(), name, json.RawMessage(args))
	return res
}

// invokeBounded is invoke with a watchdog.
func (e *env) invokeBounded(name, args string) *core.Result {
	e.t.Helper()
	var res *core.Result
	bounded(e.t, "invoke "+name, func() { res = e.invoke(name, args) })
	return res
}

// wantLines compares output lines exactly.
func wantLines(t testing.TB, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output mismatch\n--- got:\n%s\n--- want:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func wantContains(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}

func wantKind(t testing.TB, res *core.Result, kind core.Kind) {
	t.Helper()
	if res.Kind() != kind {
		t.Fatalf("kind = %q, want %q (error: %v, output %q)", res.Kind(), kind, res.Err, res.ForLLM)
	}
}

// bounded runs fn, failing the test (instead of hanging) if it does not
// return within the watchdog.
func bounded(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatalf("%s: still running after %v (deadlock or runaway)", what, watchdog)
	}
}

// gate is a reusable barrier: wait returns once n callers are waiting, or
// an error after the watchdog (so a missing overlap fails, never hangs).
type gate struct {
	mu      sync.Mutex
	n       int
	waiting int
	ch      chan struct{}
}

func newGate(n int) *gate { return &gate{n: n, ch: make(chan struct{})} }

func (g *gate) wait(ctx context.Context) error {
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
	case <-time.After(watchdog):
		return errors.New("gate: peers never arrived (calls did not overlap)")
	}
}

func q(s string) string { return fmt.Sprintf("%q", s) }
