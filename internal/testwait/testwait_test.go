package testwait

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestScaleFollowsTheLoad(t *testing.T) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		if got := Scale(); got != 1 {
			t.Fatalf("Scale() = %v without /proc/loadavg, want 1", got)
		}
		t.Skip("no /proc/loadavg here")
	}
	f := strings.Fields(string(b))
	l1, _ := strconv.ParseFloat(f[0], 64)
	got := Scale()
	if got < 1 {
		t.Errorf("Scale() = %v, want at least 1", got)
	}
	// The load may change between the two reads; it cannot go below
	// what the 1-minute average says by much within a test.
	if want := l1 / float64(runtime.GOMAXPROCS(0)); got < want*0.5 {
		t.Errorf("Scale() = %v with a 1-minute load of %v on %d cores, want about %v or more", got, l1, runtime.GOMAXPROCS(0), want)
	}
	if d := Bound(time.Second); d < time.Second {
		t.Errorf("Bound(1s) = %v, want at least 1s", d)
	}
}

func TestWithinAndUntilReturn(t *testing.T) {
	ran := false
	Within(t, "a quick step", func() { ran = true })
	if !ran {
		t.Fatal("Within returned before fn ran")
	}
	n := 0
	Until(t, "three polls", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("Until polled %d times, want 3", n)
	}
}

// recorder is a testing.TB that keeps its first fatal message.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	if r.fatal == "" {
		r.fatal = fmt.Sprintf(format, args...)
	}
}

func TestWithinAndUntilFailAHang(t *testing.T) {
	r := &recorder{TB: t}
	release := make(chan struct{})
	defer close(release)
	within(r, "a stuck step", 10*time.Millisecond, func() { <-release })
	if want := "a stuck step: still running after 10ms"; !strings.HasPrefix(r.fatal, want) {
		t.Errorf("within: %q, want it to start %q", r.fatal, want)
	}
	r = &recorder{TB: t}
	until(r, "a condition that never holds", 10*time.Millisecond, func() bool { return false })
	if want := "gave up after 10ms waiting for a condition that never holds"; r.fatal != want {
		t.Errorf("until: %q, want %q", r.fatal, want)
	}
}
