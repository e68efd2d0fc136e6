package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/pgtest"
	"github.com/agentsh/agentsh/internal/testwait"
)

// The hidden hook of the batch tests: AGENTSH_TEST_STALE sets how soon
// the tasks of a killed process go back on the queue (the engine's
// StaleAfter, 10 s in production). Only this test binary reads it.
func init() {
	if v := os.Getenv("AGENTSH_TEST_STALE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			panic(fmt.Sprintf("AGENTSH_TEST_STALE=%q: %v", v, err))
		}
		staleAfter = d
	}
}

// batchStale is how long a killed process's heartbeat takes to go stale
// in these tests.
const batchStale = "2s"

// batchScript is each task of the main suite: tool calls that write, read
// and run in the working directory, output, and failures by the task's
// index (exit(3), a script error).
const batchScript = `i = task["i"]
name = "out/%d.txt" % i
w = invoke_tool("write_file", {"path": name, "content": "task %d: %s\n" % (i, task.get("word", ""))})
r = invoke_tool("read_file", {"path": name})
print(r.output)
b = invoke_tool("bash", {"command": "echo %d >> effects.log; echo from bash %d" % (i, i)})
print(b.output)
if i % 7 == 3:
    exit(3)
if i % 7 == 5:
    fail("task %d fails" % i)
print("task", i, "ok")
`

// markScript is each task of the crash suites: one call of an idempotent
// tool whose effect is a line with the task's index in effects.log, so a
// line counts the executions of the step; an in-flight step may run
// again after a kill (its tool is idempotent), a finished one never.
const markScript = `def mark(args):
    invoke_tool("bash", {"command": "sleep 0.05; echo %d >> effects.log" % args["i"]})
    return "marked %d" % args["i"]

tool(name = "mark", fn = mark, description = "Appends the task's index to effects.log.",
     parameters = {"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]},
     idempotent = True)

r = invoke_tool("mark", {"i": task["i"]})
print(r.output)
`

// batchEnv is a directory holding a batch's tasks, script and effects,
// and the database its runs live in.
type batchEnv struct {
	t     *testing.T
	dir   string
	db    string
	state string
}

func newBatchEnv(t *testing.T, db, script string, tasks []string) *batchEnv {
	t.Helper()
	b := &batchEnv{t: t, dir: t.TempDir(), db: db, state: t.TempDir()}
	b.write("script.star", script)
	b.write("tasks.jsonl", strings.Join(tasks, "\n")+"\n")
	if err := os.Mkdir(filepath.Join(b.dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *batchEnv) write(name, content string) {
	b.t.Helper()
	if err := os.WriteFile(filepath.Join(b.dir, name), []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func (b *batchEnv) read(name string) string {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join(b.dir, name))
	if err != nil {
		b.t.Fatal(err)
	}
	return string(data)
}

// cmd is agentsh args in the env's directory, against its database.
func (b *batchEnv) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "XDG_STATE_HOME="+b.state, "AGENTSH_DB="+b.db,
		"AGENTSH_TEST_STALE="+batchStale, "GORACE=atexit_sleep_ms=0")
	cmd.Dir = b.dir
	return cmd
}

// batch runs agentsh batch on the env's tasks and returns its exit code
// and stderr.
func (b *batchEnv) batch(args ...string) (int, string) {
	b.t.Helper()
	cmd := b.cmd(append([]string{"batch", "tasks.jsonl", "--script", "script.star"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var err error
	testwait.Within(b.t, "agentsh batch", func() { err = cmd.Run() })
	return exitCode(b.t, err), stderr.String()
}

// effects counts the lines of effects.log by task index.
func (b *batchEnv) effects() map[int]int {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join(b.dir, "effects.log"))
	if err != nil && !os.IsNotExist(err) {
		b.t.Fatal(err)
	}
	counts := map[int]int{}
	for _, line := range strings.Fields(string(data)) {
		i, err := strconv.Atoi(line)
		if err != nil {
			b.t.Fatalf("effects.log: line %q is not an index", line)
		}
		counts[i]++
	}
	return counts
}

// runStates is agentsh runs --json: run id → state.
func (b *batchEnv) runStates() map[string]string {
	b.t.Helper()
	out, err := b.cmd("runs", "--json").Output()
	if err != nil {
		b.t.Fatalf("agentsh runs --json: %v", err)
	}
	states := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var r struct{ ID, State string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			b.t.Fatalf("agentsh runs --json: %v: %s", err, line)
		}
		states[r.ID] = r.State
	}
	return states
}

// batchResult is a line of RESULTS.
type batchResult struct {
	Index    int             `json:"index"`
	Run      string          `json:"run"`
	ExitCode int             `json:"exit_code"`
	Stdout   string          `json:"stdout"`
	Result   json.RawMessage `json:"result"`
	Error    string          `json:"error"`
}

func readResults(t *testing.T, data string) []batchResult {
	t.Helper()
	var rs []batchResult
	sc := bufio.NewScanner(strings.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r batchResult
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("RESULTS line %d: %v: %s", len(rs), err, sc.Text())
		}
		rs = append(rs, r)
	}
	return rs
}

// sqliteDB is a new SQLite database of runs for t.
func sqliteDB(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "runs.db") }

// suiteTasks are the main suite's task lines: n tasks, with lines that are
// not tasks among them (not JSON, a JSON array, a blank line, which is
// not a task at all).
func suiteTasks(n int) (lines []string, want []int) {
	for i := 0; i < n; i++ {
		switch i {
		case 4:
			lines, want = append(lines, "not json"), append(want, -1)
		case 9:
			lines, want = append(lines, "[1, 2]"), append(want, -1)
		case 12:
			lines = append(lines, "   ")
		}
		lines, want = append(lines, fmt.Sprintf(`{"i": %d, "word": "w%d"}`, i, i)), append(want, i)
	}
	return lines, want
}

// progressLine is the shape of the last progress line on stderr.
var progressLine = regexp.MustCompile(`batch (\S+): (\d+)/(\d+) done, (\d+) failed, (\d+) running, [0-9.]+ tasks/s, eta \S+ *\n$`)

// TestDurableBatchSQLite runs the batch suite on SQLite.
func TestDurableBatchSQLite(t *testing.T) {
	t.Parallel()
	batchSuite(t, sqliteDB)
}

// TestDurableBatchPostgres runs the batch suite on Postgres (skipped
// where Postgres is not installed).
func TestDurableBatchPostgres(t *testing.T) {
	t.Parallel()
	batchSuite(t, func(t *testing.T) string { return pgtest.Shared(t) })
}

// batchSuite is the batch suite against the databases db makes: RESULTS
// for 1, 4 and 16 workers, the progress line, a crash and a re-run, bad
// input, and workers in other processes.
func batchSuite(t *testing.T, db func(*testing.T) string) {
	t.Run("Workers", func(t *testing.T) { batchWorkers(t, db) })
	t.Run("Crash", func(t *testing.T) { batchCrash(t, db) })
	t.Run("BadInput", func(t *testing.T) { batchBadInput(t, db) })
	t.Run("WorkerProcesses", func(t *testing.T) { batchWorkerProcesses(t, db) })
	t.Run("OnlyEnqueue", func(t *testing.T) { batchOnlyEnqueue(t, db) })
}

// batchWorkers: RESULTS has one object per task in task order, and is the
// same byte for byte for 1, 4 and 16 workers.
func batchWorkers(t *testing.T, db func(*testing.T) string) {
	lines, want := suiteTasks(24)
	var first string
	runs := []struct {
		workers int
		db      string
	}{{1, db(t)}, {4, db(t)}, {16, db(t)}}
	if !strings.HasPrefix(runs[0].db, "sqlite:") {
		// Another database: its RESULTS are SQLite's too.
		runs = append([]struct {
			workers int
			db      string
		}{{1, sqliteDB(t)}}, runs...)
	}
	for _, run := range runs {
		workers := run.workers
		b := newBatchEnv(t, run.db, batchScript, lines)
		code, stderr := b.batch("--out", "results.jsonl", "--workers", strconv.Itoa(workers), "--run-id", "suite")
		if code != exitError {
			t.Fatalf("workers %d: exit code %d, want %d (some tasks fail); stderr:\n%s", workers, code, exitError, stderr)
		}
		out := b.read("results.jsonl")
		rs := readResults(t, out)
		if len(rs) != len(want) {
			t.Fatalf("workers %d: %d results, want %d:\n%s", workers, len(rs), len(want), out)
		}
		var done, failed int
		for k, r := range rs {
			i := want[k]
			if r.Index != k {
				t.Errorf("workers %d: result %d has index %d", workers, k, r.Index)
			}
			if i < 0 {
				if r.ExitCode != exitUsage || r.Run != "" || r.Result != nil || !strings.Contains(r.Error, fmt.Sprintf("task %d:", k)) ||
					!strings.Contains(r.Error, "JSON") {
					t.Errorf("workers %d: the line that is not a task: %+v, want exit code 2 and the reason", workers, r)
				}
				failed++
				continue
			}
			wantCode := exitOK
			switch i % 7 {
			case 3:
				wantCode = 3
			case 5:
				wantCode = exitError
			}
			if wantCode == exitOK {
				done++
			} else {
				failed++
			}
			if r.ExitCode != wantCode || r.Run != fmt.Sprintf("suite-%d", k) {
				t.Errorf("workers %d: task %d: exit code %d, run %q; want %d, suite-%d", workers, i, r.ExitCode, r.Run, wantCode, k)
			}
			for _, s := range []string{fmt.Sprintf("task %d: w%d", i, i), fmt.Sprintf("from bash %d\n", i)} {
				if !strings.Contains(r.Stdout, s) {
					t.Errorf("workers %d: task %d: stdout %q lacks %q", workers, i, r.Stdout, s)
				}
			}
			if ok := strings.Contains(r.Stdout, fmt.Sprintf("task %d ok\n", i)); ok != (wantCode == exitOK) {
				t.Errorf("workers %d: task %d: stdout %q: printed its end %v, want %v", workers, i, r.Stdout, ok, wantCode == exitOK)
			}
			var ev struct {
				Event    string `json:"event"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal(r.Result, &ev); err != nil || ev.Event != "result" || ev.ExitCode != wantCode {
				t.Errorf("workers %d: task %d: result %s (%v), want the result event with exit code %d", workers, i, r.Result, err, wantCode)
			}
		}
		for i, n := range b.effects() {
			if n != 1 {
				t.Errorf("workers %d: task %d ran its bash call %d times", workers, i, n)
			}
		}
		if got := len(b.effects()); got != len(want)-2 {
			t.Errorf("workers %d: %d tasks ran their bash call, want %d", workers, got, len(want)-2)
		}
		m := progressLine.FindStringSubmatch(stderr)
		if m == nil {
			t.Errorf("workers %d: no progress line at the end of stderr:\n%s", workers, stderr)
		} else if m[1] != "suite" || m[2] != strconv.Itoa(done) || m[3] != strconv.Itoa(len(want)) || m[4] != strconv.Itoa(failed) || m[5] != "0" {
			t.Errorf("workers %d: progress line %q, want suite: %d/%d done, %d failed, 0 running", workers, m[0], done, len(want), failed)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("workers %d, %s: RESULTS differ from 1 worker's on %s:\n%s\nwant:\n%s", workers, run.db, runs[0].db, out, first)
		}
	}
}

// markTasks are n tasks of markScript.
func markTasks(n int) []string {
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"i": %d}`, i))
	}
	return lines
}

// unbrokenMarks is RESULTS of markScript's n tasks run without a crash,
// in one process (on SQLite, the reference for every database).
func unbrokenMarks(t *testing.T, db string, n int) string {
	t.Helper()
	b := newBatchEnv(t, db, markScript, markTasks(n))
	if code, stderr := b.batch("--out", "results.jsonl", "--run-id", "marks"); code != exitOK {
		t.Fatalf("the unbroken batch: exit code %d; stderr:\n%s", code, stderr)
	}
	return b.read("results.jsonl")
}

// waitEffects waits until effects.log has at least n lines.
func (b *batchEnv) waitEffects(n int, exited <-chan error, stderr *lockedBuffer) {
	b.t.Helper()
	testwait.Until(b.t, fmt.Sprintf("%d lines in effects.log", n), func() bool {
		select {
		case err := <-exited:
			b.t.Fatalf("agentsh exited before it was killed: %v; stderr:\n%s", err, stderr.String())
		default:
		}
		total := 0
		for _, c := range b.effects() {
			total += c
		}
		return total >= n
	})
}

// start starts agentsh args in the background; exited gets its end. The
// process is killed when the test ends, if it is still running.
func (b *batchEnv) start(stderr *lockedBuffer, args ...string) (*exec.Cmd, <-chan error) {
	b.t.Helper()
	cmd := b.cmd(args...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	exited := make(chan error, 1)
	gone := make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(gone)
	}()
	b.t.Cleanup(func() {
		cmd.Process.Kill()
		<-gone
		if b.t.Failed() {
			b.t.Logf("agentsh %s: stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return cmd, exited
}

// checkMarks checks effects.log after a crash: every task ran its mark
// step; those done before the kill exactly once, the others at most
// twice (an in-flight idempotent step runs again), and no more of them
// twice than the killed process ran at once (it had at most that many
// steps in flight).
func (b *batchEnv) checkMarks(n int, beforeKill map[string]string, atOnce int) {
	b.t.Helper()
	counts := b.effects()
	again := 0
	for i := 0; i < n; i++ {
		state := beforeKill[fmt.Sprintf("marks-%d", i)]
		switch c := counts[i]; {
		case c == 1:
		case c == 2 && state != "done":
			again++
		default:
			b.t.Errorf("task %d (%s before the kill) marked %d times", i, state, c)
		}
	}
	if again > atOnce {
		b.t.Errorf("%d tasks marked twice; the killed process ran %d at once", again, atOnce)
	}
	b.t.Logf("states before the kill: %v; in-flight steps run again: %d", countStates(beforeKill), again)
}

func countStates(states map[string]string) map[string]int {
	n := map[string]int{}
	for _, s := range states {
		n[s]++
	}
	return n
}

// batchCrash: agentsh batch killed with SIGKILL mid-batch; the same
// command again finishes the batch without redoing finished tasks, and
// writes the RESULTS of the unbroken batch.
func batchCrash(t *testing.T, db func(*testing.T) string) {
	const n = 30
	want := unbrokenMarks(t, sqliteDB(t), n)
	b := newBatchEnv(t, db(t), markScript, markTasks(n))
	stderr := newLockedBuffer()
	args := []string{"batch", "tasks.jsonl", "--script", "script.star", "--out", "results.jsonl", "--run-id", "marks", "--workers", "4"}
	cmd, exited := b.start(stderr, args...)
	b.waitEffects(8, exited, stderr)
	beforeKill := b.runStates()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	if c := countStates(b.runStates()); c["done"] == 0 || c["done"] == n {
		t.Fatalf("killed with %v; want some tasks done and some not", c)
	}
	if _, err := os.Stat(filepath.Join(b.dir, "results.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("the killed batch wrote RESULTS (%v)", err)
	}
	code, errs := b.batch("--out", "results.jsonl", "--run-id", "marks", "--workers", "4")
	if code != exitOK {
		t.Fatalf("the re-run: exit code %d; stderr:\n%s", code, errs)
	}
	if got := b.read("results.jsonl"); got != want {
		t.Errorf("RESULTS after the crash:\n%s\nwant the unbroken batch's:\n%s", got, want)
	}
	b.checkMarks(n, beforeKill, 4)
	for id, s := range b.runStates() {
		if s != "done" {
			t.Errorf("run %s is %s after the re-run, want done", id, s)
		}
	}
}

// batchWorkerProcesses: three agentsh batch worker processes and a
// coordinator that only enqueues share one queue; one worker is killed
// mid-batch; the batch completes with the RESULTS of a batch in one
// process (on SQLite).
func batchWorkerProcesses(t *testing.T, db func(*testing.T) string) {
	const n = 30
	want := unbrokenMarks(t, sqliteDB(t), n)
	b := newBatchEnv(t, db(t), markScript, markTasks(n))
	var werr [3]*lockedBuffer
	var workers [3]*exec.Cmd
	var wexited [3]<-chan error
	for k := range workers {
		werr[k] = newLockedBuffer()
		workers[k], wexited[k] = b.start(werr[k], "batch", "worker", "--workers", "2")
	}
	cerr := newLockedBuffer()
	_, cexited := b.start(cerr, "batch", "tasks.jsonl", "--script", "script.star", "--out", "results.jsonl", "--run-id", "marks", "--workers", "0")
	b.waitEffects(8, cexited, cerr)
	beforeKill := b.runStates()
	if err := workers[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-wexited[0]
	var err error
	testwait.Within(t, "the coordinator", func() { err = <-cexited })
	if code := exitCode(t, err); code != exitOK {
		t.Fatalf("the coordinator: exit code %d; stderr:\n%s\nworkers:\n%s\n%s\n%s", code, cerr.String(), werr[0].String(), werr[1].String(), werr[2].String())
	}
	if got := b.read("results.jsonl"); got != want {
		t.Errorf("RESULTS with worker processes:\n%s\nwant the one-process batch's:\n%s", got, want)
	}
	b.checkMarks(n, beforeKill, 2)
	for k := 1; k < 3; k++ {
		select {
		case err := <-wexited[k]:
			t.Errorf("worker %d ended before it was stopped: %v\n%s", k, err, werr[k].String())
		default:
		}
	}
}

// batchOnlyEnqueue: a coordinator with --workers 0 runs no task itself,
// and leaves the queue's concurrency as the worker set it: the worker
// started with --workers 2 runs at most 2 tasks at once.
func batchOnlyEnqueue(t *testing.T, db func(*testing.T) string) {
	const script = `r = invoke_tool("bash", {"command": "mkdir -p running && touch running/%d && ls running | wc -l >> concurrency.log && echo $PPID >> pids.log && sleep 0.25 && rm running/%d" % (task["i"], task["i"])})
print(r.ok)
`
	const n = 12
	b := newBatchEnv(t, db(t), script, markTasks(n))
	werr := newLockedBuffer()
	worker, _ := b.start(werr, "batch", "worker", "--workers", "2")
	testwait.Until(t, "the worker's first line", func() bool { return strings.Contains(werr.String(), "taking batch tasks") })
	code, stderr := b.batch("--out", "results.jsonl", "--workers", "0")
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nworker:\n%s", code, stderr, werr.String())
	}
	if rs := readResults(t, b.read("results.jsonl")); len(rs) != n {
		t.Fatalf("%d results, want %d", len(rs), n)
	}
	pids := strings.Fields(b.read("pids.log"))
	sort.Strings(pids)
	if len(pids) != n || pids[0] != pids[n-1] || pids[0] != strconv.Itoa(worker.Process.Pid) {
		t.Errorf("the tasks ran in processes %v, want all %d in the worker's, %d", pids, n, worker.Process.Pid)
	}
	for _, c := range strings.Fields(b.read("concurrency.log")) {
		if k, _ := strconv.Atoi(c); k > 2 {
			t.Errorf("%d tasks ran at once on the worker started with --workers 2 (concurrency.log: %q)", k, b.read("concurrency.log"))
			break
		}
	}
}

// batchBadInput: missing tasks or script, a results file in a directory
// that does not exist (found before any task runs; and one that goes
// away during the batch: the runs are kept, and the same command with a
// good --out writes the results without running a task again).
func batchBadInput(t *testing.T, db func(*testing.T) string) {
	b := newBatchEnv(t, db(t), markScript, markTasks(3))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "missing.jsonl", "--script", "script.star", "--out", "r.jsonl"}, "missing.jsonl"},
		{[]string{"batch", "tasks.jsonl", "--script", "missing.star", "--out", "r.jsonl"}, "missing.star"},
		{[]string{"batch", "tasks.jsonl", "--out", "r.jsonl"}, "--script FILE"},
		{[]string{"batch", "tasks.jsonl", "--script", "script.star", "--out", "no/such/dir/r.jsonl"}, "no/such/dir"},
		{[]string{"batch", "tasks.jsonl", "--script", "script.star", "--out", "r.jsonl", "--workers", "-1"}, "--workers"},
		{[]string{"batch", "worker", "--workers", "0"}, "--workers N"},
	} {
		var stderr bytes.Buffer
		cmd := b.cmd(c.args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := exitCode(t, err); code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("agentsh %s: exit code %d, stderr %q; want %d naming %q", strings.Join(c.args, " "), code, stderr.String(), exitUsage, c.want)
		}
	}
	if len(b.effects()) != 0 || len(b.runStates()) != 0 {
		t.Fatalf("bad input ran tasks: effects %v, runs %v", b.effects(), b.runStates())
	}

	// The results directory goes away while the tasks run (task 0 removes it).
	b.write("script.star", markScript+`
if task["i"] == 0:
    invoke_tool("bash", {"command": "rm -r gone"})
`)
	if err := os.Mkdir(filepath.Join(b.dir, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stderr := b.batch("--out", "gone/results.jsonl", "--run-id", "gone")
	if code != exitError || !strings.Contains(stderr, "gone/results.jsonl") || !strings.Contains(stderr, "--out") {
		t.Fatalf("a results directory removed during the batch: exit code %d, stderr:\n%s\nwant %d, naming the file and --out", code, stderr, exitError)
	}
	code, stderr = b.batch("--out", "results.jsonl", "--run-id", "gone")
	if code != exitOK {
		t.Fatalf("the same batch with a good --out: exit code %d; stderr:\n%s", code, stderr)
	}
	if rs := readResults(t, b.read("results.jsonl")); len(rs) != 3 || rs[2].Stdout != "marked 2\n" {
		t.Errorf("results %+v, want the 3 tasks'", rs)
	}
	for i, c := range b.effects() {
		if c != 1 {
			t.Errorf("task %d marked %d times, want once: the second command ran it again", i, c)
		}
	}
}
