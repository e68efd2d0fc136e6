//go:build unix

package search

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the user and system CPU time this process, and its
// children that have ended (rg, fd), have used.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// reportCPU reports, as cpu-ns/op, the CPU time run takes per op: on a
// machine shared with other work, a steadier measure than ns/op, which
// counts time spent waiting for a CPU.
func reportCPU(b *testing.B, run func()) {
	start := cpuTime()
	run()
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
