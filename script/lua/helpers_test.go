package lua

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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

	globals []*Globals // of the files run with keep
}

func newEnv(t testing.TB, opts Options, exOpts ...executor.Option) *env {
	t.Helper()
	ex := executor.New(nil, exOpts...)
	out := &scripttest.Buffer{}
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
	var le *script.Error
	if errors.As(err, &le) {
		return le.Detail()
	}
	return err.Error()
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

// invokeBounded is invoke with a watchdog.
func (e *env) invokeBounded(name, args string) *core.Result {
	e.t.Helper()
	var res *core.Result
	bounded(e.t, "invoke "+name, func() { res = e.invoke(name, args) })
	return res
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
