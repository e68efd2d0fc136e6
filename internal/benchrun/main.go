// Command benchrun measures agentsh against its peers and its own past,
// side by side in one run: search through `agentsh call` against rg and
// fd on GOROOT/src and on copies of it at 4× and 16×, start-up against a
// bare go.starlark.net program, the Go benchmarks of the script and
// executor hot paths, and what the sandbox costs: one confined command on
// each backend against the same unconfined (timed in this process), and
// a scripted 200-command agent run with and without it; and what durable
// runs cost: a scripted agent run with and without --durable, and agentsh
// batch on SQLite and on Postgres. Each row of the
// table in BENCHMARKS.md is one row here (--rows picks them).
//
//	scripts/bench/all.sh [--base REV] [--sizes 1,4,16] [--rows 1,3,9] [--runs N] [--quick]
//
// Every case runs its variants (agentsh built from the working tree,
// "new"; from --base REV, "base"; the peer) once to warm the page cache
// and check the output, then N times each, interleaved round-robin, and
// prints medians, min–max, user and system CPU and peak RSS (wait4's
// rusage of the child), with the ratios the targets are stated in. Output
// is checked, not only timed: agentsh's answer must be rg's (see
// verify.go), or the case fails and the harness exits 1.
//
// Timed runs write to a pipe the harness drains, never to /dev/null,
// which some programs detect and take as leave to stop early.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// config is what a run does; flags fill it.
type config struct {
	repo        string // the agentsh checkout: "new" is built from its working tree
	base        string // a revision to build as "base"; "" for none
	src         string // the 1× tree
	tmp         string // where the temporary directory goes
	sizes       []int
	rows        []int
	runs        int    // timed runs of each variant of a search case
	startupRuns int    // of the start-up cases
	benchCount  int    // passes of each Go benchmark
	agentTurns  int    // turns of row 11's scripted agent run, 4 commands each
	batchTasks  int    // tasks of row 12's batches
	batchRuns   int    // timed runs of each of row 12's batch variants
	pgURL       string // row 12's Postgres database; "" skips its case
	benchtime   string
	rg, fd      string // the peers' programs
	// newBinary, when set, is used as "new" instead of building one; self,
	// as the launcher and floor reader instead of this program (tests).
	newBinary, self string
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "floor":
			os.Exit(floorMain(os.Args[2:]))
		case "launch":
			os.Exit(launchMain(os.Args[2:]))
		}
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchrun: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = run(ctx, cfg, os.Stdout)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "benchrun: interrupted; temporary files removed")
		os.Exit(130)
	case err != nil:
		fmt.Fprintf(os.Stderr, "benchrun: %v\n", err)
		os.Exit(1)
	}
}

var allRows = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("benchrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var sizes, rows string
	fs.StringVar(&cfg.repo, "repo", "", "the agentsh checkout whose working tree is measured as new (default: the module of the current directory)")
	fs.StringVar(&cfg.base, "base", "", "also build this git revision and measure it as base")
	fs.StringVar(&cfg.src, "src", "", "the 1× tree (default: $(go env GOROOT)/src)")
	fs.StringVar(&cfg.tmp, "tmp", os.TempDir(), "where to make the temporary directory (the trees are hard links: same file system as --src)")
	fs.StringVar(&sizes, "sizes", "1,4,16", "tree sizes, in copies of --src")
	fs.StringVar(&rows, "rows", "1,2,3,4,5,6,7,8,9,10,11,12", "rows of the table to run")
	fs.IntVar(&cfg.runs, "runs", 5, "timed runs of each variant of a search case")
	fs.IntVar(&cfg.startupRuns, "startup-runs", 100, "timed runs of each variant of a start-up case")
	fs.IntVar(&cfg.benchCount, "bench-count", 5, "passes of each go test benchmark")
	fs.IntVar(&cfg.agentTurns, "agent-turns", 50, "turns of row 11's scripted agent run (internal/benchrun/testdata/sandbox200.star), 4 bash calls each")
	fs.IntVar(&cfg.batchTasks, "batch-tasks", 2000, "tasks of row 12's agentsh batch runs")
	fs.IntVar(&cfg.batchRuns, "batch-runs", 3, "timed runs of each of row 12's batch variants")
	fs.StringVar(&cfg.pgURL, "pg-url", "", "row 12: an empty Postgres database for the batch with agentsh batch worker processes (postgres://USER@HOST:PORT/DB); without it, a throwaway cluster (internal/pgtest), or the case is skipped when the machine has no Postgres")
	fs.StringVar(&cfg.benchtime, "benchtime", "1s", "go test -benchtime of each pass")
	quick := fs.Bool("quick", false, "a quick look: --sizes 1 --runs 3 --startup-runs 20 --bench-count 3 --benchtime 200ms --batch-tasks 200 --batch-runs 1, unless given")
	fs.StringVar(&cfg.rg, "rg", "rg", "the ripgrep program")
	fs.StringVar(&cfg.fd, "fd", "fdfind", "the fd program (fd on some systems)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: scripts/bench/all.sh [flags]\n\nRuns the rows of BENCHMARKS.md side by side and prints medians, min–max, CPU, peak RSS and ratios.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q: every setting is a flag (see --help)", fs.Arg(0))
	}
	if *quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		quickDefaults := map[string]func(){
			"sizes":        func() { sizes = "1" },
			"runs":         func() { cfg.runs = 3 },
			"startup-runs": func() { cfg.startupRuns = 20 },
			"bench-count":  func() { cfg.benchCount = 3 },
			"benchtime":    func() { cfg.benchtime = "200ms" },
			"batch-tasks":  func() { cfg.batchTasks = 200 },
			"batch-runs":   func() { cfg.batchRuns = 1 },
		}
		for name, apply := range quickDefaults {
			if !set[name] {
				apply()
			}
		}
	}
	var err error
	if cfg.sizes, err = parseInts("sizes", sizes, 1, 1000); err != nil {
		return config{}, err
	}
	if cfg.rows, err = parseInts("rows", rows, 1, len(allRows)); err != nil {
		return config{}, err
	}
	for name, n := range map[string]int{"runs": cfg.runs, "startup-runs": cfg.startupRuns, "bench-count": cfg.benchCount, "agent-turns": cfg.agentTurns,
		"batch-tasks": cfg.batchTasks, "batch-runs": cfg.batchRuns} {
		if n < 1 {
			return config{}, fmt.Errorf("--%s %d: want 1 or more", name, n)
		}
	}
	return cfg, nil
}

// parseInts reads a comma-separated list of integers in [lo, hi], sorted
// and without repeats.
func parseInts(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("--%s %q: %q is not a whole number from %d to %d", name, s, f, lo, hi)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// env is what the rows share during a run.
type env struct {
	cfg     config
	out     io.Writer
	tmp     string
	trees   []tree
	revs    []string          // "base" (with --base), then "new"
	bins    map[string]string // revision → agentsh binary
	roots   map[string]string // revision → module root
	labels  map[string]string // revision → what it is: "5063e6c", "5063e6c-dirty"
	self    string            // this program: the floor reader and the launcher
	runner  runner
	refs    *refs
	results []result
	failed  []string // cases whose output check or runs failed
}

// run is one whole run of the harness.
func run(ctx context.Context, cfg config, out io.Writer) (err error) {
	e := &env{cfg: cfg, out: out, bins: map[string]string{}, roots: map[string]string{}, labels: map[string]string{}}
	for _, p := range []*string{&cfg.rg, &cfg.fd} {
		if path, lerr := exec.LookPath(*p); lerr == nil {
			*p = path
		} else {
			return fmt.Errorf("%s is not on PATH: %v; install it (ripgrep, fd-find) or pass --rg/--fd", *p, lerr)
		}
	}
	e.cfg = cfg
	e.refs = &refs{rg: cfg.rg}
	if e.self = cfg.self; e.self == "" {
		if e.self, err = os.Executable(); err != nil {
			return err
		}
	}
	e.runner = through(e.self)
	if cfg.repo == "" {
		wd, _ := os.Getwd()
		if cfg.repo, err = moduleRoot(ctx, wd); err != nil {
			return err
		}
	} else if cfg.repo, err = moduleRoot(ctx, cfg.repo); err != nil {
		return err
	}
	e.cfg = cfg
	if cfg.src == "" {
		goroot, gerr := runGo(ctx, cfg.repo, "env", "GOROOT")
		if gerr != nil {
			return gerr
		}
		e.cfg.src = filepath.Join(goroot, "src")
	}
	if e.cfg.src, err = filepath.Abs(e.cfg.src); err != nil {
		return err
	}
	if st, serr := os.Stat(e.cfg.src); serr != nil || !st.IsDir() {
		return fmt.Errorf("--src %s is not a directory; pass a tree to search", e.cfg.src)
	}

	e.tmp, err = os.MkdirTemp(cfg.tmp, "agentsh-bench-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(e.tmp); rerr != nil && err == nil {
			err = fmt.Errorf("remove the temporary directory: %w", rerr)
		}
	}()
	if err := e.prepare(ctx); err != nil {
		return err
	}

	fmt.Fprintf(out, "agentsh benchmarks: %d runs of each search variant, %d of each start-up variant, interleaved; GOMAXPROCS %d, %s/%s\n",
		cfg.runs, cfg.startupRuns, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	for _, r := range e.revs {
		fmt.Fprintf(out, "%s: %s\n", r, e.labels[r])
	}
	floor, err := e.runner(ctx, pipeline{{path: "true"}}, io.Discard)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "peak RSS floor: %s (true through the launcher every command starts from)\n", fmtBytes(float64(floor.maxRSS)))
	fmt.Fprintf(out, "load average at start: %s\n", loadAverage())
	for _, r := range cfg.rows {
		row := rowByID(r)
		fmt.Fprintf(out, "\n== row %d: %s\n   target: %s\n", row.id, row.title, row.target)
		if err := row.run(ctx, e); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			e.failed = append(e.failed, fmt.Sprintf("row %d: %v", row.id, err))
			fmt.Fprintf(out, "  FAILED: %v\n", err)
		}
	}
	fmt.Fprintf(out, "\nload average at end: %s\n\nsummary\n\n", loadAverage())
	printSummary(out, e.results)
	if len(e.failed) > 0 {
		return fmt.Errorf("%d case(s) failed:\n  %s", len(e.failed), strings.Join(e.failed, "\n  "))
	}
	return nil
}

// needsTrees reports whether any chosen row searches the trees.
func (e *env) needsTrees() bool {
	return slices.ContainsFunc(e.cfg.rows, func(r int) bool { return r <= 8 })
}

// prepare builds the binaries and the trees and warms the page cache.
func (e *env) prepare(ctx context.Context) error {
	bin := filepath.Join(e.tmp, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	if e.cfg.base != "" {
		root := filepath.Join(e.tmp, "base")
		short, err := extractRev(ctx, e.cfg.repo, e.cfg.base, root)
		if err != nil {
			return err
		}
		e.revs = append(e.revs, "base")
		e.roots["base"], e.labels["base"] = root, short
		if e.needsAgentsh() {
			fmt.Fprintf(e.out, "building agentsh at %s\n", short)
			e.bins["base"] = filepath.Join(bin, "agentsh-base")
			if err := buildAgentsh(ctx, root, e.bins["base"]); err != nil {
				return err
			}
		}
	}
	e.revs = append(e.revs, "new")
	e.roots["new"] = e.cfg.repo
	e.labels["new"] = "the working tree of " + e.cfg.repo
	if d := describe(ctx, e.cfg.repo); d != "" {
		e.labels["new"] += " (" + d + ")"
	}
	switch {
	case e.cfg.newBinary != "":
		e.bins["new"] = e.cfg.newBinary
	case e.needsAgentsh():
		fmt.Fprintln(e.out, "building agentsh from the working tree")
		e.bins["new"] = filepath.Join(bin, "agentsh-new")
		if err := buildAgentsh(ctx, e.cfg.repo, e.bins["new"]); err != nil {
			return err
		}
	}
	if !e.needsTrees() {
		return nil
	}
	trees, note, err := buildTrees(ctx, e.cfg.src, e.tmp, e.cfg.sizes)
	if err != nil {
		return err
	}
	e.trees = trees
	files, bytes, err := readAll(e.cfg.src) // warms the cache: the copies are the same files
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "trees: 1× is %s (%d files, %s); larger sizes are %s of it under %s\n",
		e.cfg.src, files, fmtBytes(float64(bytes)), note, e.tmp)
	if note != "hard-linked copies (cp -al)" {
		for _, t := range trees {
			if _, _, err := readAll(t.dir); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *env) needsAgentsh() bool {
	return slices.ContainsFunc(e.cfg.rows, func(r int) bool { return r <= 9 || r >= 11 })
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		if out, uerr := exec.Command("uptime").Output(); uerr == nil {
			s := strings.TrimSpace(string(out))
			if i := strings.Index(s, "load average"); i >= 0 {
				return s[i:]
			}
			return s
		}
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
