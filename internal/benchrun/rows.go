package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// row is one line of the table in BENCHMARKS.md.
type row struct {
	id            int
	title, target string
	run           func(ctx context.Context, e *env) error
}

// The patterns of the search rows: many matches, case-folded few, none.
const (
	patFunc    = "func"
	patTodo    = "(?i)todo"
	patNowhere = "zqxjv_found_nowhere_4e1"
	patAtomic  = `atomic\.AddInt64\(&`
	// allLines is a head_limit that no tree reaches: everything is printed.
	allLines = 100000000
)

var grepModeNames = []string{"content", "files_with_matches", "count"}

var rows = []row{
	{1, "ripgrep backend, files_with_matches, head_limit 100 vs rg -l --sort path | head -100",
		"≤ 1.5× at every size, memory flat (first measured: 11.8× / 44× / 175× at 1×/4×/16×)", rowHeadLimit},
	{2, `content mode, "func": peak RSS of the native and ripgrep backends vs rg -n --sort path`,
		"≤ 40 MiB at every size (first measured: native 80 / 233 / 842 MiB, ripgrep 92 / 307 / 1177 MiB; rg 8 MiB)", rowContentRSS},
	{3, "native grep through agentsh call vs rg --sort path (-n, -l, -c)",
		"≤ 1.0× on every pattern and mode (first measured: 1.35–1.57× in content mode)", rowNative},
	{4, "ripgrep backend vs rg --sort path, every mode",
		"≤ 1.1× (first measured: 1.1–2.1×)", rowRipgrep},
	{5, `files_with_matches and count CPU vs content CPU, native, "func"`,
		"less than content: stop at a file's first match, count without building lines (first measured: the same); checked as ≤ 0.9×", rowModeCPU},
	{6, "case-sensitive literal atomic\\.AddInt64\\(& : user CPU of native vs rg -n --sort path",
		"≤ 1.3× rg's CPU (first measured: 72 ms vs 24 ms)", rowLiteral},
	{7, "fd glob backend, **/*.go vs fdfind -t f -e go | LC_ALL=C sort",
		"≤ 1.2× (first measured: 1.66–2.08×)", rowGlob},
	{8, "no-match grep (native, content) vs the physical floor (reading every file once)",
		"stay at the floor (first measured: 1.05–1.11×); checked as ≤ 1.11×", rowFloor},
	{9, "start-up: agentsh run hello.star vs a bare go.starlark.net program; agentsh explain and agentsh hook claude-code with the shipped policies",
		"run ≤ 1.5× the bare program (first measured: 11.7 vs 3.6 ms, 3.2×); hook ≤ 8 ms on an idle machine (first measured: 15.9 ms); explain reported", rowStartup},
	{10, "Go benchmarks (go test -bench): parallel Lua, agent turns, script tools, schema validation, hostile shell command lines, a journaled call",
		"Lua parallel ≥ 1.7× serial; 200-turn per-turn cost ≤ 1.3× 25-turn; script tool ≤ 2.5 µs; validated call ≤ 2 µs; a hostile bash call decided ≤ 1000 ms and ≤ 64 MiB", rowGoBench},
	{11, "the sandbox: one sandboxed true on each backend vs unconfined (in this process); a 200-command scripted agent run, sandboxed vs not",
		"start-up median ≤ 25 ms on bubblewrap, ≤ 5 ms on Landlock; the agent run's ratios reported", rowSandbox},
	{12, "durable runs: a 20-turn scripted agent run with --durable vs without; agentsh batch of 2,000 scripted tasks on SQLite (4 and 16 workers) and on Postgres with 2 agentsh batch worker processes",
		"durable/plain ≤ 1.10×; 2,000 tasks ≤ 120 s on SQLite; tasks/s and the peak RSS of 16 workers reported", rowDurable},
}

func rowByID(id int) row {
	for _, r := range rows {
		if r.id == id {
			return r
		}
	}
	panic(fmt.Sprintf("no row %d", id)) // parseFlags allows only 1..len(rows)
}

// agentsh is the variant running revision rev's agentsh with args; false
// when that revision was not built.
func (e *env) agentsh(rev, name, dir string, args ...string) (variant, bool) {
	bin, ok := e.bins[rev]
	if !ok {
		return variant{}, false
	}
	return variant{name: name, p: pipeline{{path: bin, dir: dir, args: args,
		env: []string{"XDG_STATE_HOME=" + filepath.Join(e.tmp, "state")}}}}, true
}

// grepJSON is the arguments of a grep call.
func grepJSON(pattern, mode string, limit int) string {
	b, _ := json.Marshal(map[string]any{"pattern": pattern, "output_mode": mode, "head_limit": limit})
	return string(b)
}

// grepVariants are the agentsh variants of a grep call on backend, one
// per revision, each checked against rg's answer (the first limit
// results of it).
func (e *env) grepVariants(ctx context.Context, t tree, backend, pattern, mode string, limit int, label func(rev string) string) []variant {
	var vs []variant
	for _, rev := range e.revs {
		v, ok := e.agentsh(rev, label(rev), t.dir, "--grep-backend", backend, "--workdir", t.dir, "call", "grep", grepJSON(pattern, mode, limit))
		if !ok {
			continue
		}
		v.verify = verifyAgainst(func() ([]record, error) { return e.refs.grep(ctx, t.dir, pattern, mode) })
		vs = append(vs, v)
	}
	return vs
}

// rgVariant is the peer: rg with flags and --sort path, as people type it.
func (e *env) rgVariant(name, dir string, args ...string) variant {
	return variant{name: name, p: pipeline{{path: e.cfg.rg, dir: dir, okCodes: []int{1}, args: append([]string{"--sort", "path"}, args...)}}}
}

// runCase measures a case, prints it and records its checks.
func (e *env) runCase(ctx context.Context, rowID int, caseName string, vs []variant, runs int, checks ...check) ([]measured, error) {
	ms, err := measure(ctx, e.runner, vs, runs, e.tmp)
	if err != nil {
		return nil, err
	}
	printCase(e.out, caseName, vs, ms, runs)
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
		if ms[i].err != nil {
			e.failed = append(e.failed, fmt.Sprintf("row %d, %s, %s: %v", rowID, caseName, v.name, ms[i].err))
		}
	}
	var line []string
	for _, c := range checks {
		if !hasAll(names, c.num, c.den) {
			continue // a variant this run does not have (no --base)
		}
		label, value, verdict := c.evaluate(names, ms)
		r := result{row: rowID, caseName: caseName, label: label, value: value, verdict: verdict}
		s := label + " " + value
		if value == "" {
			s = label + ": " + verdict
		}
		if c.target != nil {
			r.target = c.target.String()
			if value != "" {
				s += " (target " + r.target + ": " + verdict + ")"
			}
		}
		e.results = append(e.results, r)
		line = append(line, s)
	}
	if len(line) > 0 {
		fmt.Fprintf(e.out, "    %s\n", strings.Join(line, "; "))
	}
	return ms, nil
}

func hasAll(names []string, want ...string) bool {
	for _, w := range want {
		if w == "" {
			continue
		}
		found := false
		for _, n := range names {
			found = found || n == w
		}
		if !found {
			return false
		}
	}
	return true
}

func ratioTarget(v float64) *bound   { return &bound{v: v, unit: "×"} }
func atLeastTarget(v float64) *bound { return &bound{atLeast: true, v: v, unit: "×"} }

func rowHeadLimit(ctx context.Context, e *env) error {
	var rss []float64
	for _, t := range e.trees {
		vs := e.grepVariants(ctx, t, "ripgrep", patFunc, "files_with_matches", 100, func(rev string) string { return rev })
		vs = append(vs, variant{name: "rg|head", p: pipeline{
			{path: e.cfg.rg, dir: t.dir, okCodes: []int{1}, args: []string{"-l", "--sort", "path", "-e", patFunc}},
			{path: "head", args: []string{"-100"}},
		}})
		ms, err := e.runCase(ctx, 1, fmt.Sprintf(`%s files_with_matches %q head_limit 100`, t.label(), patFunc), vs, e.cfg.runs,
			check{num: "new", den: "rg|head", metric: wallTime, target: ratioTarget(1.5)},
			check{num: "new", den: "rg|head", metric: cpuTime},
			check{num: "new", den: "base", metric: wallTime},
			check{num: "new", metric: peakRSS})
		if err != nil {
			return err
		}
		for i, v := range vs {
			if x, ok := ms[i].value(peakRSS); ok && v.name == "new" {
				rss = append(rss, x)
			}
		}
	}
	if len(rss) > 1 && rss[0] > 0 {
		r := rss[len(rss)-1] / rss[0]
		b := ratioTarget(1.25)
		verdict := "missed"
		if b.met(r) {
			verdict = "met"
		}
		fmt.Fprintf(e.out, "  memory flat: new peak RSS at %s / at %s %.2f× (target %s: %s)\n", e.trees[len(e.trees)-1].label(), e.trees[0].label(), r, b, verdict)
		e.results = append(e.results, result{row: 1, caseName: "memory flat", label: fmt.Sprintf("new peak RSS %s/%s", e.trees[len(e.trees)-1].label(), e.trees[0].label()),
			value: fmt.Sprintf("%.2f×", r), target: b.String(), verdict: verdict})
	}
	return nil
}

func rowContentRSS(ctx context.Context, e *env) error {
	for _, t := range e.trees {
		var vs []variant
		for _, backend := range []string{"native", "ripgrep"} {
			vs = append(vs, e.grepVariants(ctx, t, backend, patFunc, "content", allLines, func(rev string) string { return rev + " " + backend })...)
		}
		vs = append(vs, e.rgVariant("rg", t.dir, "-n", "-e", patFunc))
		mib40 := &bound{v: 40, unit: " MiB"}
		if _, err := e.runCase(ctx, 2, fmt.Sprintf("%s content %q", t.label(), patFunc), vs, e.cfg.runs,
			check{num: "new native", metric: peakRSS, target: mib40},
			check{num: "new ripgrep", metric: peakRSS, target: mib40},
			check{num: "rg", metric: peakRSS},
			check{num: "new native", den: "base native", metric: peakRSS},
			check{num: "new ripgrep", den: "base ripgrep", metric: peakRSS}); err != nil {
			return err
		}
	}
	return nil
}

// rgModeFlag is rg's flag for an output mode.
func rgModeFlag(mode string) string { return grepModes[mode] }

// rowVsRg is rows 3 and 4: a backend against rg on every pattern and mode.
func rowVsRg(ctx context.Context, e *env, rowID int, backend string, target float64) error {
	for _, t := range e.trees {
		for _, pat := range []string{patFunc, patTodo, patNowhere} {
			for _, mode := range grepModeNames {
				vs := e.grepVariants(ctx, t, backend, pat, mode, allLines, func(rev string) string { return rev })
				vs = append(vs, e.rgVariant("rg", t.dir, rgModeFlag(mode), "-e", pat))
				if _, err := e.runCase(ctx, rowID, fmt.Sprintf("%s %s %s %q", t.label(), backend, mode, pat), vs, e.cfg.runs,
					check{num: "new", den: "rg", metric: wallTime, target: ratioTarget(target)},
					check{num: "new", den: "rg", metric: cpuTime},
					check{num: "new", den: "base", metric: wallTime}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func rowNative(ctx context.Context, e *env) error { return rowVsRg(ctx, e, 3, "native", 1.0) }

func rowRipgrep(ctx context.Context, e *env) error { return rowVsRg(ctx, e, 4, "ripgrep", 1.1) }

func rowModeCPU(ctx context.Context, e *env) error {
	for _, t := range e.trees {
		var vs []variant
		for _, mode := range grepModeNames {
			vs = append(vs, e.grepVariants(ctx, t, "native", patFunc, mode, allLines, func(rev string) string { return rev + " " + mode })...)
		}
		if _, err := e.runCase(ctx, 5, fmt.Sprintf("%s native %q", t.label(), patFunc), vs, e.cfg.runs,
			check{num: "new files_with_matches", den: "new content", metric: userCPU, target: ratioTarget(0.9)},
			check{num: "new count", den: "new content", metric: userCPU, target: ratioTarget(0.9)},
			check{num: "base files_with_matches", den: "base content", metric: userCPU},
			check{num: "base count", den: "base content", metric: userCPU}); err != nil {
			return err
		}
	}
	return nil
}

func rowLiteral(ctx context.Context, e *env) error {
	for _, t := range e.trees {
		vs := e.grepVariants(ctx, t, "native", patAtomic, "content", allLines, func(rev string) string { return rev })
		vs = append(vs, e.rgVariant("rg", t.dir, "-n", "-e", patAtomic))
		if _, err := e.runCase(ctx, 6, fmt.Sprintf("%s native content %q", t.label(), patAtomic), vs, e.cfg.runs,
			check{num: "new", den: "rg", metric: userCPU, target: ratioTarget(1.3)},
			check{num: "new", den: "base", metric: userCPU},
			check{num: "new", den: "rg", metric: wallTime}); err != nil {
			return err
		}
	}
	return nil
}

func rowGlob(ctx context.Context, e *env) error {
	args, _ := json.Marshal(map[string]any{"pattern": "**/*.go", "limit": allLines})
	for _, t := range e.trees {
		var vs []variant
		for _, rev := range e.revs {
			v, ok := e.agentsh(rev, rev, t.dir, "--glob-backend", "fd", "--workdir", t.dir, "call", "glob", string(args))
			if !ok {
				continue
			}
			v.verify = verifyAgainst(func() ([]record, error) { return e.refs.glob(ctx, t.dir, "go") })
			vs = append(vs, v)
		}
		vs = append(vs, variant{name: "fd|sort", p: pipeline{
			{path: e.cfg.fd, dir: t.dir, args: []string{"-t", "f", "-e", "go"}},
			{path: "sort", env: []string{"LC_ALL=C"}},
		}})
		if _, err := e.runCase(ctx, 7, fmt.Sprintf("%s glob %q, fd backend", t.label(), "**/*.go"), vs, e.cfg.runs,
			check{num: "new", den: "fd|sort", metric: wallTime, target: ratioTarget(1.2)},
			check{num: "new", den: "fd|sort", metric: cpuTime},
			check{num: "new", den: "base", metric: wallTime}); err != nil {
			return err
		}
	}
	return nil
}

func rowFloor(ctx context.Context, e *env) error {
	for _, t := range e.trees {
		vs := e.grepVariants(ctx, t, "native", patNowhere, "content", allLines, func(rev string) string { return rev })
		floor := variant{name: "floor", p: pipeline{{path: e.self, args: []string{"floor", t.dir}}}}
		floor.verify = func(outPath string) (string, error) {
			b, err := os.ReadFile(outPath)
			return "read " + strings.TrimSpace(string(b)), err
		}
		vs = append(vs, floor)
		if _, err := e.runCase(ctx, 8, fmt.Sprintf("%s native content %q (found nowhere)", t.label(), patNowhere), vs, e.cfg.runs,
			check{num: "new", den: "floor", metric: wallTime, target: ratioTarget(1.11)},
			check{num: "new", den: "floor", metric: cpuTime},
			check{num: "new", den: "base", metric: wallTime}); err != nil {
			return err
		}
	}
	return nil
}
