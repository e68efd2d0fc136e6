package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
)

// goPackage is a package whose benchmarks row 10 runs.
type goPackage struct {
	pkg     string   // module-relative
	benches []string // top-level benchmark names; their sub-benchmarks run too
}

var goPackages = []goPackage{
	{"script/lua", []string{"BenchmarkExecuteAllLua64", "BenchmarkExecuteAllStarlark64", "BenchmarkLuaTool", "BenchmarkGoToolNoHook"}},
	{"script/starlark", []string{"BenchmarkStarlarkTool", "BenchmarkGoToolNoHook"}},
	{"script/agentapi", []string{"BenchmarkScriptModelTurns"}},
	{"executor", []string{"BenchmarkInvokeValidated", "BenchmarkInvokeNoHooks"}},
	{"shell", []string{"BenchmarkParseHostile"}},
	{"scripts/policies", []string{"BenchmarkDenyPatternsHostile"}},
	{"durable", []string{"BenchmarkJournalStep"}},
}

// goFigures are the figures row 10 prints, by package, name and unit.
var goFigures = []struct{ pkg, name, unit string }{
	{"script/lua", "BenchmarkExecuteAllLua64/work/parallel", "ns/op"},
	{"script/lua", "BenchmarkExecuteAllLua64/work/serial", "ns/op"},
	{"script/lua", "BenchmarkExecuteAllStarlark64/work/parallel", "ns/op"},
	{"script/lua", "BenchmarkExecuteAllStarlark64/work/serial", "ns/op"},
	{"script/agentapi", "BenchmarkScriptModelTurns/turns=25", "ns/turn"},
	{"script/agentapi", "BenchmarkScriptModelTurns/turns=200", "ns/turn"},
	{"script/starlark", "BenchmarkStarlarkTool", "ns/op"},
	{"script/starlark", "BenchmarkGoToolNoHook", "ns/op"},
	{"script/lua", "BenchmarkLuaTool", "ns/op"},
	{"script/lua", "BenchmarkGoToolNoHook", "ns/op"},
	{"executor", "BenchmarkInvokeValidated", "ns/op"},
	{"executor", "BenchmarkInvokeNoHooks", "ns/op"},
	{"shell", "BenchmarkParseHostile/pipeline-max", "ns/op"},
	{"shell", "BenchmarkParseHostile/pipeline-max", "B/op"},
	{"shell", "BenchmarkParseHostile/commands-read", "ns/op"},
	{"shell", "BenchmarkParseHostile/commands-read", "B/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/pipeline-1MiB", "ns/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/pipeline-1MiB", "B/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/substitutions-1MiB", "ns/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/substitutions-1MiB", "B/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/commands-read", "ns/op"},
	{"scripts/policies", "BenchmarkDenyPatternsHostile/commands-read", "B/op"},
	{"durable", "BenchmarkJournalStep/journal=on", "ns/op"},
	{"durable", "BenchmarkJournalStep/journal=off", "ns/op"},
}

// fmtFigure prints a benchmark figure in its unit: bytes for B/op,
// durations for the others (ns/op, ns/turn).
func fmtFigure(v float64, unit string) string {
	if unit == "B/op" {
		return fmtBytes(v)
	}
	return fmtNs(v)
}

// benchValues is every pass's value, by revision, package+name and unit.
type benchValues map[string]map[string]map[string][]float64

func (b benchValues) add(rev, pkg string, lines []benchLine) {
	if b[rev] == nil {
		b[rev] = map[string]map[string][]float64{}
	}
	for _, l := range lines {
		key := pkg + " " + l.name
		if b[rev][key] == nil {
			b[rev][key] = map[string][]float64{}
		}
		for unit, v := range l.metrics {
			b[rev][key][unit] = append(b[rev][key][unit], v)
		}
	}
}

func (b benchValues) get(rev, pkg, name, unit string) (summary, bool) {
	xs := b[rev][pkg+" "+name][unit]
	return summarize(xs), len(xs) > 0
}

// rowGoBench builds each package's test binary at every revision and runs
// the passes interleaved: one pass of base, one of new, and again, with
// -test.count 1 each, so both see the same drift in the machine's load.
func rowGoBench(ctx context.Context, e *env) error {
	procs := runtime.GOMAXPROCS(0)
	bins := map[string]map[string]testBinary{}
	for _, rev := range e.revs {
		bins[rev] = map[string]testBinary{}
		for _, gp := range goPackages {
			out := filepath.Join(e.tmp, "bin", rev+"-"+strings.ReplaceAll(gp.pkg, "/", "-")+".test")
			tb, err := buildTestBinary(ctx, e.roots[rev], gp.pkg, out)
			if err != nil {
				return err
			}
			bins[rev][gp.pkg] = tb
		}
	}
	vals := benchValues{}
	for range e.cfg.benchCount {
		for _, gp := range goPackages {
			pattern := "^(" + strings.Join(gp.benches, "|") + ")$"
			for _, rev := range e.revs {
				lines, err := runBench(ctx, bins[rev][gp.pkg], pattern, e.cfg.benchtime, procs)
				if err != nil {
					return err
				}
				vals.add(rev, gp.pkg, lines)
			}
		}
	}
	printGoBench(e, vals)
	goChecks(e, vals)
	return nil
}

func printGoBench(e *env, vals benchValues) {
	fmt.Fprintf(e.out, "  medians of %d passes, -test.benchtime %s, -test.cpu %d\n", e.cfg.benchCount, e.cfg.benchtime, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "    benchmark\tunit")
	for _, rev := range e.revs {
		fmt.Fprintf(tw, "\t%s median\t(min–max)", rev)
	}
	if len(e.revs) > 1 {
		fmt.Fprint(tw, "\tnew/base")
	}
	fmt.Fprint(tw, "\t\n")
	for _, f := range goFigures {
		fmt.Fprintf(tw, "    %s %s\t%s", f.pkg, strings.TrimPrefix(f.name, "Benchmark"), f.unit)
		for _, rev := range e.revs {
			s, ok := vals.get(rev, f.pkg, f.name, f.unit)
			if !ok {
				fmt.Fprintf(tw, "\tabsent at %s\t", rev)
				continue
			}
			fmt.Fprintf(tw, "\t%s\t(%s–%s)", fmtFigure(s.median, f.unit), fmtFigure(s.min, f.unit), fmtFigure(s.max, f.unit))
		}
		if len(e.revs) > 1 {
			b, okB := vals.get("base", f.pkg, f.name, f.unit)
			n, okN := vals.get("new", f.pkg, f.name, f.unit)
			if r, ok := ratio(n.median, b.median); ok && okB && okN {
				fmt.Fprintf(tw, "\t%.2f×", r)
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprint(tw, "\t\n")
	}
	tw.Flush()
}

// fmtNs prints a figure in nanoseconds in a readable unit.
func fmtNs(ns float64) string { return fmtDuration(ns / 1e9) }

// goChecks records row 10's figures against their targets, for each
// revision that has the benchmarks.
func goChecks(e *env, vals benchValues) {
	type fig struct {
		label  string
		value  func(rev string) (float64, string, bool)
		target *bound
	}
	ratioOf := func(pkg, num, den, unit string) func(string) (float64, string, bool) {
		return func(rev string) (float64, string, bool) {
			a, okA := vals.get(rev, pkg, num, unit)
			b, okB := vals.get(rev, pkg, den, unit)
			r, ok := ratio(a.median, b.median)
			return r, fmt.Sprintf("%.2f×", r), ok && okA && okB
		}
	}
	micros := func(pkg, name string) func(string) (float64, string, bool) {
		return func(rev string) (float64, string, bool) {
			s, ok := vals.get(rev, pkg, name, "ns/op")
			return s.median / 1e3, fmtNs(s.median), ok
		}
	}
	diff := func(pkg, a, b string) func(string) (float64, string, bool) {
		return func(rev string) (float64, string, bool) {
			x, okX := vals.get(rev, pkg, a, "ns/op")
			y, okY := vals.get(rev, pkg, b, "ns/op")
			return (x.median - y.median) / 1e3, fmtNs(x.median - y.median), okX && okY
		}
	}
	us := func(v float64) *bound { return &bound{v: v, unit: " µs"} }
	// A decision's cost, in milliseconds and MiB.
	decision := func(pkg, name string) (func(string) (float64, string, bool), func(string) (float64, string, bool)) {
		return func(rev string) (float64, string, bool) {
				s, ok := vals.get(rev, pkg, name, "ns/op")
				return s.median / 1e6, fmtNs(s.median), ok
			}, func(rev string) (float64, string, bool) {
				s, ok := vals.get(rev, pkg, name, "B/op")
				return s.median / (1 << 20), fmtBytes(s.median), ok
			}
	}
	pipeTime, pipeMem := decision("scripts/policies", "BenchmarkDenyPatternsHostile/pipeline-1MiB")
	substTime, substMem := decision("scripts/policies", "BenchmarkDenyPatternsHostile/substitutions-1MiB")
	readTime, readMem := decision("scripts/policies", "BenchmarkDenyPatternsHostile/commands-read")
	ms := &bound{v: 1000, unit: " ms"}
	mib := &bound{v: 64, unit: " MiB"}
	figs := []fig{
		{"64 busy Lua calls: serial/parallel", ratioOf("script/lua", "BenchmarkExecuteAllLua64/work/serial", "BenchmarkExecuteAllLua64/work/parallel", "ns/op"), atLeastTarget(1.7)},
		{"64 busy Starlark calls: serial/parallel", ratioOf("script/lua", "BenchmarkExecuteAllStarlark64/work/serial", "BenchmarkExecuteAllStarlark64/work/parallel", "ns/op"), nil},
		{"agent loop, per-turn cost: 200 turns/25 turns", ratioOf("script/agentapi", "BenchmarkScriptModelTurns/turns=200", "BenchmarkScriptModelTurns/turns=25", "ns/turn"), ratioTarget(1.3)},
		{"Starlark tool through InvokeTool", micros("script/starlark", "BenchmarkStarlarkTool"), us(2.5)},
		{"Lua tool through InvokeTool", micros("script/lua", "BenchmarkLuaTool"), us(2.5)},
		{"Starlark tool / Go tool", ratioOf("script/starlark", "BenchmarkStarlarkTool", "BenchmarkGoToolNoHook", "ns/op"), nil},
		{"Lua tool / Go tool", ratioOf("script/lua", "BenchmarkLuaTool", "BenchmarkGoToolNoHook", "ns/op"), nil},
		{"call with schema validation (InvokeValidated)", micros("executor", "BenchmarkInvokeValidated"), us(2)},
		{"validation's share: InvokeValidated − InvokeNoHooks", diff("executor", "BenchmarkInvokeValidated", "BenchmarkInvokeNoHooks"), nil},
		{"deny_patterns.star on a 1 MiB a|a|...: time", pipeTime, ms},
		{"deny_patterns.star on a 1 MiB a|a|...: allocated", pipeMem, mib},
		{"deny_patterns.star on 1 MiB of nested $(: time", substTime, ms},
		{"deny_patterns.star on 1 MiB of nested $(: allocated", substMem, mib},
		{"deny_patterns.star on the most commands the analysis reads: time", readTime, ms},
		{"deny_patterns.star on the most commands the analysis reads: allocated", readMem, mib},
		{"a journaled call's cost over an unjournaled one (durable, SQLite)", diff("durable", "BenchmarkJournalStep/journal=on", "BenchmarkJournalStep/journal=off"), nil},
	}
	for _, f := range figs {
		var parts []string
		for _, rev := range e.revs {
			r := result{row: 10, caseName: "go test -bench", label: rev + " " + f.label}
			x, shown, ok := f.value(rev)
			switch {
			case !ok:
				r.verdict = "absent at " + rev
				parts = append(parts, rev+" absent")
			case rev == "new" && f.target != nil:
				r.value, r.target = shown, f.target.String()
				r.verdict = "missed"
				if f.target.met(x) {
					r.verdict = "met"
				}
				parts = append(parts, fmt.Sprintf("%s %s (target %s: %s)", rev, shown, r.target, r.verdict))
			default:
				r.value = shown
				parts = append(parts, rev+" "+shown)
			}
			e.results = append(e.results, r)
		}
		fmt.Fprintf(e.out, "  %s: %s\n", f.label, strings.Join(parts, ", "))
	}
}
