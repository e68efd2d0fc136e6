package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
)

// watchdogTimeout bounds every wait in these tests. It is never used to
// assert anything about speed: it only turns a hang (a deadlock, a lost
// wake-up) into a test failure.
const watchdogTimeout = testwait.Step

// okTool returns a tool that answers "ok".
func okTool(name string) core.Tool {
	return core.Tool{Name: name, Func: func(context.Context, json.RawMessage) (any, error) { return "ok", nil }}
}

// newExec registers tools in a fresh registry and returns an executor for it.
func newExec(t testing.TB, tools []core.Tool, opts ...executor.Option) *executor.Executor {
	t.Helper()
	reg := core.NewRegistry()
	if err := reg.RegisterTools(tools...); err != nil {
		t.Fatalf("RegisterTools: %v", err)
	}
	return executor.New(reg, opts...)
}

// recorder collects pipeline events from any goroutine.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

func (r *recorder) beforeFunc(label string) core.BeforeFunc {
	return func(context.Context, *core.Call) (json.RawMessage, error) {
		r.add(label)
		return nil, nil
	}
}

func (r *recorder) afterFunc(label string) core.AfterFunc {
	return func(context.Context, *core.Call, *core.Result) error {
		r.add(label)
		return nil
	}
}

func (r *recorder) middleware(label string, tools ...string) core.Middleware {
	return core.Middleware{Name: label, Tools: tools, Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
		r.add(label + " enter")
		res := next(ctx, call)
		r.add(label + " exit")
		return res
	}}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// asCoreError returns the *core.Error in err's chain or fails the test.
func asCoreError(t testing.TB, err error) *core.Error {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *core.Error", err, err)
	}
	return e
}

// wantKind checks that res failed with kind k, both by Kind() and errors.Is.
func wantKind(t testing.TB, res *core.Result, k core.Kind) {
	t.Helper()
	if res == nil {
		t.Fatalf("result is nil, want kind %s", k)
	}
	if got := res.Kind(); got != k {
		t.Fatalf("result kind = %q (err %v), want %q", got, res.Err, k)
	}
	if !errors.Is(res.Err, k) {
		t.Fatalf("errors.Is(%v, %s) = false", res.Err, k)
	}
	if res.OK() {
		t.Fatalf("result with kind %s reports OK", k)
	}
}

// waitFor polls cond until it holds; it fails the test (instead of hanging)
// if it never does within the watchdog timeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdogTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: gave up waiting for %s", what)
		}
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// runWithWatchdog runs fn on another goroutine and fails the test if it
// does not return within the watchdog timeout.
func runWithWatchdog(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		t.Fatalf("watchdog: %s did not finish (deadlock?)", what)
	}
}

// indexArgs is {"i": i}.
func indexArgs(i int) json.RawMessage {
	return json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`)
}

// argIndex decodes {"i": n}.
func argIndex(args json.RawMessage) int {
	var a struct {
		I int `json:"i"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		panic("bad test args " + string(args) + ": " + err.Error())
	}
	return a.I
}

// inflight tracks how many calls run at once and the most ever seen.
type inflight struct {
	mu       sync.Mutex
	cur, max int
}

func (f *inflight) enter() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur++
	if f.cur > f.max {
		f.max = f.cur
	}
	return f.cur
}

func (f *inflight) exit() {
	f.mu.Lock()
	f.cur--
	f.mu.Unlock()
}

func (f *inflight) now() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

func (f *inflight) peak() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max
}

// yieldALot gives other goroutines many chances to run, so that an
// overlap that the scheduler allows actually happens.
func yieldALot() {
	for range 200 {
		runtime.Gosched()
	}
}
