package main

import (
	"fmt"
	"slices"
	"time"
)

// summary is what the harness prints of a set of measurements: their
// median and their range. Medians, because a shared machine adds delays
// to some runs, never removes them; the range shows how noisy it was.
type summary struct {
	median, min, max float64
	n                int
}

// summarize returns the median, minimum and maximum of xs; the median of
// an even count is the mean of the middle two. An empty xs gives n == 0.
func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summary{median: m, min: s[0], max: s[len(s)-1], n: len(s)}
}

// ratio is a/b, or false when b is not positive (nothing to divide by).
func ratio(a, b float64) (float64, bool) {
	if b <= 0 {
		return 0, false
	}
	return a / b, true
}

// fmtDuration prints seconds in the unit that keeps three or four
// significant digits: 812.3 ms, 3.61 ms, 45.2 µs, 1.20 s.
func fmtDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", sec)
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", sec)
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.1f ms", sec*1e3)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", sec*1e3)
	default:
		return fmt.Sprintf("%.1f µs", sec*1e6)
	}
}

// fmtBytes prints a size in MiB, the unit BENCHMARKS.md's memory figures use.
func fmtBytes(b float64) string {
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}
