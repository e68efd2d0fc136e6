package main

import (
	"strings"
	"testing"
)

const benchOutput = `goos: linux
goarch: amd64
pkg: github.com/agentsh/agentsh/script/lua
cpu: Intel(R) Xeon(R) CPU
BenchmarkExecuteAllLua64/work/parallel-2         	      94	  12200000 ns/op	  123456 B/op	    1234 allocs/op
BenchmarkExecuteAllLua64/work/serial-2           	     100	  11200000 ns/op	  123000 B/op	    1200 allocs/op
BenchmarkScriptModelTurns/turns=200-2            	      10	 530000000 ns/op	   2650000 ns/turn
BenchmarkShards/n-8-2                            	    1000	      1500 ns/op
BenchmarkLuaTool
    bench_test.go:12: a log line
BenchmarkLuaTool-2                               	  200000	      5300 ns/op
BenchmarkOdd-2   12   notanumber ns/op
PASS
ok  	github.com/agentsh/agentsh/script/lua	12.3s
`

func TestParseBench(t *testing.T) {
	got, err := parseBench(strings.NewReader(benchOutput), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name    string
		iters   int64
		metrics map[string]float64
	}{
		{"BenchmarkExecuteAllLua64/work/parallel", 94, map[string]float64{"ns/op": 12200000, "B/op": 123456, "allocs/op": 1234}},
		{"BenchmarkExecuteAllLua64/work/serial", 100, map[string]float64{"ns/op": 11200000, "B/op": 123000, "allocs/op": 1200}},
		{"BenchmarkScriptModelTurns/turns=200", 10, map[string]float64{"ns/op": 530000000, "ns/turn": 2650000}},
		{"BenchmarkShards/n-8", 1000, map[string]float64{"ns/op": 1500}}, // only the -2 of GOMAXPROCS goes
		{"BenchmarkLuaTool", 200000, map[string]float64{"ns/op": 5300}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.name != w.name || g.iters != w.iters || len(g.metrics) != len(w.metrics) {
			t.Errorf("result %d: got %+v, want %+v", i, g, w)
			continue
		}
		for unit, v := range w.metrics {
			if g.metrics[unit] != v {
				t.Errorf("%s %s: got %v, want %v", w.name, unit, g.metrics[unit], v)
			}
		}
	}
}

func TestParseBenchOneProc(t *testing.T) {
	got, err := parseBench(strings.NewReader("BenchmarkShards/n-8 \t 1000\t 1500 ns/op\n"), 1)
	if err != nil || len(got) != 1 || got[0].name != "BenchmarkShards/n-8" {
		t.Errorf("with -test.cpu 1 no suffix is added, so none may be removed: got %+v, %v", got, err)
	}
}

func TestParseBenchFailure(t *testing.T) {
	for _, out := range []string{
		"BenchmarkA-2 \t 10\t 5 ns/op\n--- FAIL: BenchmarkB\n    x_test.go:3: broken\nFAIL\n",
		"BenchmarkA-2 \t 10\t 5 ns/op\npanic: runtime error: index out of range\n",
	} {
		_, err := parseBench(strings.NewReader(out), 2)
		if err == nil || !strings.Contains(err.Error(), "benchmark failed") {
			t.Errorf("parseBench(%q): got %v, want a failure quoting the output", out, err)
		}
	}
}

func TestBenchValues(t *testing.T) {
	v := benchValues{}
	for _, ns := range []float64{30, 10, 20} {
		v.add("new", "executor", []benchLine{{name: "BenchmarkX", metrics: map[string]float64{"ns/op": ns}}})
	}
	if s, ok := v.get("new", "executor", "BenchmarkX", "ns/op"); !ok || s.median != 20 || s.min != 10 || s.max != 30 {
		t.Errorf("got %+v %v, want median 20 of 10..30", s, ok)
	}
	if _, ok := v.get("base", "executor", "BenchmarkX", "ns/op"); ok {
		t.Error("a revision that never ran has a figure; want it absent")
	}
	if _, ok := v.get("new", "script/lua", "BenchmarkX", "ns/op"); ok {
		t.Error("a benchmark of another package with the same name has a figure; want packages kept apart")
	}
}
