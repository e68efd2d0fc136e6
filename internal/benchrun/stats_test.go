package main

import (
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want summary
	}{
		{[]float64{3, 1, 2}, summary{median: 2, min: 1, max: 3, n: 3}},
		{[]float64{4, 1, 3, 2}, summary{median: 2.5, min: 1, max: 4, n: 4}},
		{[]float64{7}, summary{median: 7, min: 7, max: 7, n: 1}},
		{[]float64{5, 5, 100, 5, 5}, summary{median: 5, min: 5, max: 100, n: 5}}, // one slow run moves the range, not the median
		{nil, summary{}},
	} {
		in := slices.Clone(tc.in)
		if got := summarize(tc.in); got != tc.want {
			t.Errorf("summarize(%v) = %+v, want %+v", in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("summarize reordered its input: got %v, want %v", tc.in, in)
		}
	}
}

func TestRatio(t *testing.T) {
	if r, ok := ratio(3, 2); !ok || r != 1.5 {
		t.Errorf("ratio(3, 2) = %v, %v; want 1.5, true", r, ok)
	}
	for _, den := range []float64{0, -1} {
		if _, ok := ratio(1, den); ok {
			t.Errorf("ratio(1, %v) reported a figure; want none", den)
		}
	}
}

func TestFmtDuration(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{
		{0.8123, "812.3 ms"}, {0.00361, "3.61 ms"}, {45.2e-6, "45.2 µs"}, {1.2, "1.20 s"}, {12.34, "12.3 s"},
	} {
		if got := fmtDuration(tc.sec); got != tc.want {
			t.Errorf("fmtDuration(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

func TestBound(t *testing.T) {
	le, ge := ratioTarget(1.5), atLeastTarget(1.7)
	for _, tc := range []struct {
		b    *bound
		x    float64
		want bool
	}{{le, 1.5, true}, {le, 1.51, false}, {le, 0.2, true}, {ge, 1.7, true}, {ge, 1.69, false}, {ge, 3, true}} {
		if got := tc.b.met(tc.x); got != tc.want {
			t.Errorf("(%s).met(%v) = %v, want %v", tc.b, tc.x, got, tc.want)
		}
	}
	if got := le.String(); got != "≤ 1.5×" {
		t.Errorf("bound string %q, want %q", got, "≤ 1.5×")
	}
}

func TestCheckEvaluate(t *testing.T) {
	ms := func(walls ...float64) measured {
		var m measured
		for _, w := range walls {
			m.samples = append(m.samples, sample{wall: secs(w), user: secs(w / 2), sys: secs(w / 4), maxRSS: int64(w * (1 << 20))})
		}
		return m
	}
	names := []string{"new", "rg", "broken"}
	vals := []measured{ms(0.3, 0.2, 0.25), ms(0.1, 0.1, 0.5), {}}
	label, value, verdict := check{num: "new", den: "rg", metric: wallTime, target: ratioTarget(1.5)}.evaluate(names, vals)
	if label != "new/rg wall" || value != "2.50×" || verdict != "missed" {
		t.Errorf("wall check: got %q %q %q, want \"new/rg wall\" \"2.50×\" \"missed\"", label, value, verdict)
	}
	if label, value, _ := (check{num: "new", den: "rg", metric: cpuTime}).evaluate(names, vals); label != "new/rg CPU" || value != "2.50×" {
		t.Errorf("CPU check: got %q %q, want user+sys medians' ratio \"new/rg CPU\" \"2.50×\"", label, value)
	}
	if _, value, _ := (check{num: "new", metric: peakRSS}).evaluate(names, vals); value != "0.3 MiB" {
		t.Errorf("peak RSS check: got %q, want the largest run's, 0.3 MiB", value)
	}
	// A time target in milliseconds: the median wall, 0.25 s, is 250 ms.
	for _, tc := range []struct {
		v       float64
		unit    string
		verdict string
	}{{300, " ms", "met"}, {25, " ms", "missed"}, {300000, " µs", "met"}, {300, " µs", "missed"}} {
		c := check{num: "new", metric: wallTime, target: &bound{v: tc.v, unit: tc.unit}}
		if label, value, verdict := c.evaluate(names, vals); label != "new wall" || value != "250.0 ms" || verdict != tc.verdict {
			t.Errorf("wall 250 ms against %s: got %q %q %q, want \"new wall\" \"250.0 ms\" %q", c.target, label, value, verdict, tc.verdict)
		}
	}
	if _, value, verdict := (check{num: "new", den: "broken", metric: wallTime}).evaluate(names, vals); value != "" || verdict != "no figure (broken did not run)" {
		t.Errorf("check against a variant with no runs: got %q %q, want no figure", value, verdict)
	}
}
