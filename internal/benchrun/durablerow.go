package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentsh/agentsh/internal/pgtest"
)

// Row 12 is what durable runs cost (docs/durable.md): a scripted agent
// run of 20 turns with and without --durable; agentsh batch of
// --batch-tasks scripted tasks on SQLite with 4 and 16 workers (wall
// time, tasks/s, peak RSS); and the same batch on Postgres (--pg-url, or
// a throwaway cluster) with 2 agentsh batch worker processes doing the
// work. Every batch run
// starts from an empty database, and its results file is checked line by
// line.

// durableScript and batchScript are row 12's scripts, under the
// harness's testdata.
const (
	durableScript = "durable20.star"
	batchScript   = "batchtask.star"
)

// rowDurable is row 12.
func rowDurable(ctx context.Context, e *env) error {
	if err := durableAgentRun(ctx, e); err != nil {
		return err
	}
	dir := filepath.Join(e.tmp, "durable")
	tasks := filepath.Join(dir, "tasks.jsonl")
	if err := writeTasks(tasks, e.cfg.batchTasks); err != nil {
		return err
	}
	if err := batchSQLite(ctx, e, tasks); err != nil {
		return err
	}
	return batchPostgres(ctx, e, tasks)
}

// durableAgentRun times durable20.star with and without --durable; both
// must print the same bytes.
func durableAgentRun(ctx context.Context, e *env) error {
	script := filepath.Join(e.cfg.repo, "internal", "benchrun", "testdata", durableScript)
	dir := filepath.Join(e.tmp, "durable", "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	same := &sameOutput{want: "20 calls, every result as expected"}
	db := "sqlite:" + filepath.Join(dir, "runs.db") // every run a new one in it, as people use it
	var vs []variant
	for _, v := range []struct {
		name string
		args []string
	}{
		{"plain", []string{"--no-builtins", "run", script}},
		{"durable", []string{"--no-builtins", "run", "--durable", "--db", db, script}},
	} {
		vr, ok := e.agentsh("new", v.name, dir, v.args...)
		if !ok {
			return errors.New("agentsh was not built")
		}
		vr.verify = same.verify(v.name)
		vs = append(vs, vr)
	}
	_, err := e.runCase(ctx, 12, "agentsh run durable20.star: a scripted agent, 20 turns of one script-tool call, --durable vs not", vs, e.cfg.runs,
		check{num: "durable", den: "plain", metric: wallTime, target: ratioTarget(1.10)},
		check{num: "durable", den: "plain", metric: cpuTime},
		check{num: "plain", metric: wallTime},
		check{num: "durable", metric: wallTime},
		check{num: "durable", den: "plain", metric: peakRSS})
	return err
}

// writeTasks writes n tasks, {"n": 0} to {"n": n-1}.
func writeTasks(path string, n int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"n\": %d}\n", i)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// checkResults checks a batch's results file: one line per task, in
// order, each exit 0 and printing the task's number and its double.
func checkResults(path string, n int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var r struct {
			Index    int    `json:"index"`
			ExitCode int    `json:"exit_code"`
			Stdout   string `json:"stdout"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s line %d: %v", path, i+1, err)
		}
		if want := fmt.Sprintf("%d %d\n", i, 2*i); r.Index != i || r.ExitCode != 0 || r.Stdout != want {
			return fmt.Errorf("%s line %d: task %d exit %d printed %q (%s), want task %d exit 0 printing %q", path, i+1, r.Index, r.ExitCode, r.Stdout, r.Error, i, want)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if i != n {
		return fmt.Errorf("%s has %d results, want %d", path, i, n)
	}
	return nil
}

// batchVariant is a variant that runs agentsh batch on tasks through the
// launcher, in a directory of its own per run, with the flags flags(dir,
// run) gives (--db, --workers, ...); label is how the report shows them.
// Each run's results are checked.
func (e *env) batchVariant(name, tasks string, flags func(dir string, run int) []string, label ...string) variant {
	script := filepath.Join(e.cfg.repo, "internal", "benchrun", "testdata", batchScript)
	runs := 0
	return variant{
		name: name,
		p:    pipeline{{path: "agentsh", args: append([]string{"--no-builtins", "batch", "tasks.jsonl", "--script", batchScript, "--out", "results.jsonl"}, label...)}},
		inProcess: func(ctx context.Context) (sample, error) {
			runs++
			dir := filepath.Join(e.tmp, "durable", fmt.Sprintf("%s-%d", strings.NewReplacer(" ", "-", "=", "-").Replace(name), runs))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return sample{}, err
			}
			defer os.RemoveAll(dir)
			out := filepath.Join(dir, "results.jsonl")
			args := append([]string{"--no-builtins", "batch", tasks, "--script", script, "--out", out}, flags(dir, runs)...)
			v, ok := e.agentsh("new", name, dir, args...)
			if !ok {
				return sample{}, errors.New("agentsh was not built")
			}
			s, err := e.runner(ctx, v.p, io.Discard)
			if err != nil {
				return s, err
			}
			return s, checkResults(out, e.cfg.batchTasks)
		},
	}
}

// batchSQLite runs the batch on a new SQLite file each run, with 4 and
// 16 workers.
func batchSQLite(ctx context.Context, e *env, tasks string) error {
	sqlite := func(workers string) func(string, int) []string {
		return func(dir string, _ int) []string {
			return []string{"--db", "sqlite:" + filepath.Join(dir, "runs.db"), "--workers", workers}
		}
	}
	vs := []variant{
		e.batchVariant("workers=4", tasks, sqlite("4"), "--db", "sqlite:runs.db", "--workers", "4"),
		e.batchVariant("workers=16", tasks, sqlite("16"), "--db", "sqlite:runs.db", "--workers", "16"),
	}
	limit := &bound{v: 120, unit: " s"}
	caseName := fmt.Sprintf("agentsh batch: %d scripted tasks, one script-tool call each, on SQLite", e.cfg.batchTasks)
	ms, err := e.runCase(ctx, 12, caseName, vs, e.cfg.batchRuns,
		check{num: "workers=4", metric: wallTime, target: limit},
		check{num: "workers=16", metric: wallTime, target: limit},
		check{num: "workers=4", metric: peakRSS},
		check{num: "workers=16", metric: peakRSS})
	if err != nil {
		return err
	}
	e.taskRates(caseName, vs, ms)
	return nil
}

// taskRates prints and records each variant's tasks per second at its
// median wall time.
func (e *env) taskRates(caseName string, vs []variant, ms []measured) {
	var parts []string
	for i, v := range vs {
		wall, ok := ms[i].value(wallTime)
		if !ok || wall <= 0 {
			continue
		}
		rate := fmt.Sprintf("%.0f tasks/s", float64(e.cfg.batchTasks)/wall)
		parts = append(parts, v.name+" "+rate)
		e.results = append(e.results, result{row: 12, caseName: caseName, label: v.name + " tasks/s (at the median wall)", value: rate})
	}
	if len(parts) > 0 {
		fmt.Fprintf(e.out, "    %s\n", strings.Join(parts, "; "))
	}
}

// batchPostgres runs the batch on Postgres: this run's agentsh batch
// with --workers 0 enqueues and waits, and two agentsh batch worker
// processes, started before the case and stopped after it, do the work.
// The database is --pg-url, or one in a throwaway cluster of
// internal/pgtest (fsync off, so its figures are a bound from below);
// without Postgres on the machine the case says why it is skipped.
func batchPostgres(ctx context.Context, e *env, tasks string) error {
	caseName := fmt.Sprintf("agentsh batch: %d scripted tasks on Postgres, 2 agentsh batch worker processes (4 workers each)", e.cfg.batchTasks)
	url := e.cfg.pgURL
	if url == "" {
		// A directory of its own under the system's: when this process is
		// root the server runs as another user, who must reach it.
		dir, err := os.MkdirTemp("", "agentsh-bench-pg-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c, err := pgtest.StartCluster(dir)
		if errors.Is(err, pgtest.ErrUnavailable) {
			why := fmt.Sprintf("skipped: no Postgres (%v); install it, or pass --pg-url postgres://USER@HOST:PORT/DB", err)
			fmt.Fprintf(e.out, "  %s\n    %s\n", caseName, why)
			e.results = append(e.results, result{row: 12, caseName: caseName, label: "coordinator wall", verdict: why})
			return nil
		}
		if err != nil {
			return err
		}
		defer c.Stop()
		if url, err = c.CreateDatabase("bench"); err != nil {
			return err
		}
		caseName += ", a throwaway cluster of internal/pgtest (fsync off)"
	}
	// Each run is a batch of its own in the one database.
	stamp := time.Now().UTC().Format("150405")
	flags := func(_ string, run int) []string {
		return []string{"--db", url, "--workers", "0", "--run-id", fmt.Sprintf("bench-%s-%d", stamp, run)}
	}
	workers, err := startWorkers(ctx, e, url, 2)
	if err != nil {
		return err
	}
	defer workers.stop()
	vs := []variant{e.batchVariant("pg coordinator", tasks, flags, "--db", "postgres://...", "--workers", "0", "--run-id", "bench-N")}
	ms, err := e.runCase(ctx, 12, caseName, vs, e.cfg.batchRuns,
		check{num: "pg coordinator", metric: wallTime, target: &bound{v: 120, unit: " s"}})
	if err != nil {
		return err
	}
	e.taskRates(caseName, vs, ms)
	return workers.check()
}

// workerProcs are running agentsh batch worker processes.
type workerProcs struct {
	cmds   []*exec.Cmd
	exited []chan struct{}
}

// startWorkers starts n agentsh batch worker processes on the database
// url.
func startWorkers(ctx context.Context, e *env, url string, n int) (*workerProcs, error) {
	w := &workerProcs{}
	for i := range n {
		c := exec.CommandContext(ctx, e.bins["new"], "batch", "worker", "--db", url, "--workers", "4")
		c.Dir = filepath.Join(e.tmp, "durable")
		c.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(e.tmp, "state"))
		c.Stderr = &capWriter{b: &bytes.Buffer{}, max: 64 << 10}
		ownGroup(c)
		if err := c.Start(); err != nil {
			w.stop()
			return nil, fmt.Errorf("start batch worker %d: %w", i+1, err)
		}
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		w.cmds, w.exited = append(w.cmds, c), append(w.exited, done)
	}
	return w, nil
}

// check reports a worker that exited before it was stopped: the case's
// figures are then not those of two workers.
func (w *workerProcs) check() error {
	for i, done := range w.exited {
		select {
		case <-done:
			c := w.cmds[i]
			return fmt.Errorf("batch worker %d exited during the case: %v: %s", i+1, c.ProcessState, strings.TrimSpace(c.Stderr.(*capWriter).b.String()))
		default:
		}
	}
	return nil
}

// stop stops the workers as a person would, with SIGTERM, and waits for
// them.
func (w *workerProcs) stop() {
	for _, c := range w.cmds {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	}
	for _, done := range w.exited {
		<-done
	}
}
