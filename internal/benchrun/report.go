package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// metric is what a check compares.
type metric int

const (
	wallTime metric = iota // median wall time
	userCPU                // median user CPU time
	peakRSS                // largest peak RSS of any run
	cpuTime                // median user + system CPU time: steadier than wall on a busy machine
)

func (m metric) String() string {
	return [...]string{"wall", "user CPU", "peak RSS", "CPU"}[m]
}

// value is variant m's figure for metric k: seconds, or bytes.
func (m measured) value(k metric) (float64, bool) {
	if len(m.samples) == 0 {
		return 0, false
	}
	switch k {
	case userCPU:
		return summarize(m.times(func(s sample) time.Duration { return s.user })).median, true
	case peakRSS:
		return float64(maxOf(m.samples, func(s sample) int64 { return s.maxRSS })), true
	case cpuTime:
		return summarize(m.times(func(s sample) time.Duration { return s.user + s.sys })).median, true
	}
	return summarize(m.times(func(s sample) time.Duration { return s.wall })).median, true
}

func (m measured) times(f func(sample) time.Duration) []float64 {
	xs := make([]float64, len(m.samples))
	for i, s := range m.samples {
		xs[i] = f(s).Seconds()
	}
	return xs
}

func maxOf(ss []sample, f func(sample) int64) int64 {
	var m int64
	for _, s := range ss {
		m = max(m, f(s))
	}
	return m
}

// bound is a target: the figure at most (or at least) v.
type bound struct {
	atLeast bool
	v       float64
	unit    string // "×" for ratios; " MiB", " ms", " µs" for absolute figures
}

func (b bound) String() string {
	op := "≤"
	if b.atLeast {
		op = "≥"
	}
	return fmt.Sprintf("%s %s%s", op, trimFloat(b.v), b.unit)
}

func (b bound) met(x float64) bool {
	if b.atLeast {
		return x >= b.v
	}
	return x <= b.v
}

// fromSeconds is a time in b's unit: seconds for " s", milliseconds for
// " ms", otherwise microseconds.
func (b bound) fromSeconds(sec float64) float64 {
	switch strings.TrimSpace(b.unit) {
	case "s":
		return sec
	case "ms":
		return sec * 1e3
	}
	return sec * 1e6
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" {
		return "0"
	}
	return s
}

// check is one figure a case reports: num/den of metric (den "": num's
// figure itself, in the bound's unit), against a target or not.
type check struct {
	num, den string
	metric   metric
	target   *bound
}

// result is a check's outcome, for the summary at the end.
type result struct {
	row             int
	caseName, label string
	value           string
	target          string
	verdict         string // "met", "missed", "" (no target), or why there is no figure
}

// label names c's figure: "new/rg wall", "new peak RSS".
func (c check) label() string {
	if c.den != "" {
		return c.num + "/" + c.den + " " + c.metric.String()
	}
	return c.num + " " + c.metric.String()
}

// evaluate computes c over the variants of a case.
func (c check) evaluate(names []string, ms []measured) (label, value, verdict string) {
	find := func(n string) (measured, bool) {
		for i, name := range names {
			if name == n {
				return ms[i], true
			}
		}
		return measured{}, false
	}
	label = c.label()
	a, okA := find(c.num)
	va, hasA := a.value(c.metric)
	if !okA || !hasA {
		return label, "", "no figure (" + c.num + " did not run)"
	}
	var x float64
	if c.den == "" {
		x = va
		switch {
		case c.metric == peakRSS:
			x /= 1 << 20
			value = fmt.Sprintf("%.1f MiB", x)
		default:
			value = fmtDuration(x)
			if c.target != nil {
				x = c.target.fromSeconds(x)
			}
		}
	} else {
		b, okB := find(c.den)
		vb, hasB := b.value(c.metric)
		if !okB || !hasB {
			return label, "", "no figure (" + c.den + " did not run)"
		}
		r, ok := ratio(va, vb)
		if !ok {
			return label, "", "no figure (" + c.den + " measured 0)"
		}
		x = r
		value = fmt.Sprintf("%.2f×", r)
	}
	if c.target == nil {
		return label, value, ""
	}
	if c.target.met(x) {
		return label, value, "met"
	}
	return label, value, "missed"
}

// printCase prints a case's table: one line per variant, then its checks.
func printCase(w io.Writer, title string, vs []variant, ms []measured, runs int) {
	fmt.Fprintf(w, "  %s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "    variant\twall median\t(min–max)\tuser CPU\tsys CPU\tpeak RSS\truns\toutput\t\n")
	for i, v := range vs {
		m := ms[i]
		if len(m.samples) == 0 {
			fmt.Fprintf(tw, "    %s\t-\t\t\t\t\t0/%d\t%s\t\n", v.name, runs, failure(m))
			continue
		}
		wall := summarize(m.times(func(s sample) time.Duration { return s.wall }))
		user := summarize(m.times(func(s sample) time.Duration { return s.user }))
		sys := summarize(m.times(func(s sample) time.Duration { return s.sys }))
		note := m.note
		if m.err != nil {
			note = failure(m)
		}
		rss := "-" // not known: the system does not say, or the variant ran in this process
		if b := maxOf(m.samples, func(s sample) int64 { return s.maxRSS }); b > 0 {
			rss = fmtBytes(float64(b))
		}
		fmt.Fprintf(tw, "    %s\t%s\t(%s–%s)\t%s\t%s\t%s\t%d/%d\t%s\t\n", v.name, fmtDuration(wall.median),
			fmtDuration(wall.min), fmtDuration(wall.max), fmtDuration(user.median), fmtDuration(sys.median),
			rss, len(m.samples), runs, note)
	}
	tw.Flush()
}

func failure(m measured) string {
	if m.err == nil {
		return ""
	}
	return "FAILED: " + strings.ReplaceAll(m.err.Error(), "\n", " ")
}

// printSummary prints every check as one Markdown table, for BENCHMARKS.md.
func printSummary(w io.Writer, rs []result) {
	fmt.Fprintln(w, "| row | case | figure | measured | target | |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", r.row, mdEscape(r.caseName), mdEscape(r.label), r.value, r.target, mdEscape(r.verdict))
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
