// Package testwait says how long a test may wait for one step — a call to
// return, a process to start or stop, an event to arrive — on the machine
// it runs on now. Its bounds turn a hang into a failure; none is a claim
// of speed, which benchmarks measure.
//
// A bound is per step, never one watchdog over a whole test, and it is
// scaled for a loaded machine: a step that takes a second on two idle
// cores takes a dozen when other work keeps both cores busy (a build, a
// shared CI runner), and ten times that again under the race detector.
//
// Everything here is safe to call from concurrent tests.
package testwait

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Step bounds one step that must not hang. It is long because it only
// turns a hang into a failure: it fails no test that makes progress,
// however busy the machine.
const Step = 2 * time.Minute

// Scale is how many times longer than on an idle machine a step may take
// now: the load per core (the larger of the 1- and 5-minute load
// averages, over the cores Go may use), at least 1. It is 1 where the
// load average cannot be read.
func Scale() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	load := 0.0
	for i := 0; i < 2 && i < len(f); i++ {
		if v, err := strconv.ParseFloat(f[i], 64); err == nil && v > load {
			load = v
		}
	}
	return max(1, load/float64(runtime.GOMAXPROCS(0)))
}

// Bound is d, how long something may take on an idle machine, scaled for
// the machine now (Scale).
func Bound(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Scale())
}

// Within runs fn on another goroutine and fails t (instead of hanging) if
// fn does not return within Step. what names the step in the failure.
func Within(t testing.TB, what string, fn func()) {
	t.Helper()
	within(t, what, Step, fn)
}

func within(t testing.TB, what string, bound time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("%s: still running after %v (a hang, or a runaway)", what, bound)
	}
}

// Until polls cond every millisecond until it holds, failing t if it does
// not within Step. what names the condition in the failure.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	until(t, what, Step, cond)
}

func until(t testing.TB, what string, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", bound, what)
			return
		}
		time.Sleep(time.Millisecond)
	}
}
