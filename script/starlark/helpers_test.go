package starlark

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/internal/scripttest"
)

// env is one executor + host + interpreter, with print output captured.
type env struct {
	t    testing.TB
	ex   *executor.Executor
	host *script.Host
	in   *Interp
	out  *scripttest.Buffer
}

func newEnv(t testing.TB, opts Options, exOpts ...executor.Option) *env {
	t.Helper()
	ex := executor.New(nil, exOpts...)
	out := &scripttest.Buffer{}
	host := script.NewHost(ex, out)
	return &env{t: t, ex: ex, host: host, in: New(host, opts), out: out}
}

// exec runs src as test.star.
func (e *env) exec(src string) error {
	_, err := e.in.ExecSource(context.Background(), "test.star", []byte(src))
	return err
}

// run runs src and fails the test on error.
func (e *env) run(src string) {
	e.t.Helper()
	if err := e.exec(src); err != nil {
		if se, ok := err.(*script.Error); ok {
			e.t.Fatalf("script failed: %v\n%s", err, se.Detail())
		}
		e.t.Fatalf("script failed: %v", err)
	}
}

// runBounded is run with a watchdog: a hang fails the test.
func (e *env) runBounded(what, src string) {
	e.t.Helper()
	var err error
	bounded(e.t, what, func() { err = e.exec(src) })
	if err != nil {
		if se, ok := err.(*script.Error); ok {
			e.t.Fatalf("%s: script failed: %v\n%s", what, err, se.Detail())
		}
		e.t.Fatalf("%s: script failed: %v", what, err)
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

// lines returns the print() output as lines.
func (e *env) lines() []string { return e.out.Lines() }

// goTool registers a Go tool on the executor's registry.
func (e *env) goTool(name string, safe *bool, fn func(ctx context.Context, args map[string]any) (any, error)) {
	e.t.Helper()
	scripttest.GoTool(e.t, e.ex.Registry(), name, safe, fn)
}

// invoke calls a tool through the pipeline from Go.
func (e *env) invoke(name, args string) *core.Result { return scripttest.Invoke(e.ex, name, args) }

// inflight measures how many calls overlap.
type inflight struct {
	mu       sync.Mutex
	cur, max int
	total    int
}

func (f *inflight) enter() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur++
	f.total++
	if f.cur > f.max {
		f.max = f.cur
	}
}

func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur--
}

func (f *inflight) stats() (max, total int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max, f.total
}

func q(s string) string { return fmt.Sprintf("%q", s) }

// The shared helpers, under the names these tests use.
const watchdog = scripttest.Watchdog

var (
	bounded      = scripttest.Bounded
	newGate      = scripttest.NewGate
	wantLines    = scripttest.WantLines
	wantContains = scripttest.WantContains
	wantKind     = scripttest.WantKind
)
