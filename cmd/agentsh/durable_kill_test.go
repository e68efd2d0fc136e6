package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// The kill-point suite of durable runs: a 20-turn scripted run whose
// tools append to files is killed with SIGKILL at points before, inside
// and after its steps and inside the journal write, and resumed until it
// ends. Every resume must finish it; a finished effect is never repeated;
// the effect that was in flight is repeated only by the idempotent tool,
// and the other one is refused on resume (no one is asked); what agentsh
// resume prints is what the unbroken run printed, but for that refusal.

// killScript is the run. append and append_idem each append their turn
// to a file (effects.log, idem.log) with edit_file, before the file's
// last line "end"; append_idem is idempotent: whoever reads idem.log
// counts each turn once.
const killScript = `
def append_line(path, n):
    r = invoke_tool("edit_file", {"path": path, "old_string": "end\n", "new_string": "%d\nend\n" % n})
    if not r.ok:
        fail("append %d to %s: %s" % (n, path, r.error))

def append(args):
    append_line("effects.log", args["n"])
    return "appended %d" % args["n"]

def append_idem(args):
    append_line("idem.log", args["n"])
    return "noted %d" % args["n"]

N = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
tool(name = "append", fn = append, parameters = N)
tool(name = "append_idem", fn = append_idem, parameters = N, idempotent = True)
before(lambda call: allow("the run appends"), tools = ["append", "append_idem", "edit_file"])

def show(call, result):
    print("%s(%d): %s" % (call.name, call.args["n"], result.output if result.ok else result.error))
after(show, tools = ["append", "append_idem"])

TURNS = 20

def scripted(messages, tools):
    turn = len([m for m in messages if m["role"] == "assistant"]) + 1
    if turn > TURNS:
        return "done after %d turns" % TURNS
    calls = [{"name": "append", "args": {"n": turn}}]
    if turn % 2 == 0:
        calls.append({"name": "append_idem", "args": {"n": turn}})
    return {"content": "turn %d" % turn, "tool_calls": calls}

if "replay" not in argv:
    model(scripted)
t0 = time.now()
print("started at", t0)
reply = ask("append the lines", max_turns = TURNS + 1)
t1 = time.now()
print("reply:", reply.text, reply.turns, reply.tool_calls, reply.stop)
print("ended at", t1, "after", t0)
`

const killTurns = 20

// killRunID is the id of the unbroken run; a kill point's run is
// killRunID and the number of its case.
const killRunID = "r"

// killGolden is what the unbroken durable run did.
type killGolden struct {
	stdout string
	trace  []faultPoint // every fault point, in order
}

// window is what a kill leaves of one call: its decision journaled and
// its work not, so a resume finds it in flight.
type window struct {
	tool string // append or append_idem
	n    int    // its turn
	ran  bool   // its work had its effect before the kill
}

// killCase is one kill-point test: kills[0] kills the run, kills[i] its
// ith resume; the resume after the last one finishes it.
type killCase struct {
	name  string
	kills []killSpec
}

type killSpec struct {
	at     faultPoint
	delay  time.Duration // < 0: at the point; else from another thread this long after it
	replay bool          // the step is journaled when this execution reaches it
}

func TestDurableKillSQLite(t *testing.T) {
	t.Parallel()
	killSuite(t, func(t *testing.T) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	})
}

// killSuite runs the kill-point suite against the databases dbURL
// makes: a new empty one on each call.
func killSuite(t *testing.T, dbURL func(t *testing.T) string) {
	g := killGoldenRun(t, dbURL)
	cases := killCases(g.trace)
	if n := countKills(cases); n < 60 {
		t.Fatalf("%d kill points, want at least 60", n)
	}
	var mu sync.Mutex
	landed := map[string]int{}
	t.Run("points", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				where, ok := runKillCase(t, g, c, dbURL(t), fmt.Sprintf("%s%d", killRunID, i+1))
				if ok && where != "" {
					mu.Lock()
					landed[where]++
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("%d cases, %d kills; timed kills armed at a step's end: %d %s, %d %s, %d %s",
		len(cases), countKills(cases), landed[landedInWrite], landedInWrite, landed[landedAfter], landedAfter, landed[landedLater], landedLater)
}

func countKills(cases []killCase) int {
	n := 0
	for _, c := range cases {
		n += len(c.kills)
	}
	return n
}

// killGoldenRun runs the script unbroken, not durable and durable, and
// checks both print the same (but for the times they read) and have
// every effect once; it returns the durable run's output and fault
// points.
func killGoldenRun(t *testing.T, dbURL func(t *testing.T) string) killGolden {
	plainDir := killDir(t)
	plain, _, err := killAgentsh(t, plainDir, "", "run", "run.star")
	if err != nil {
		t.Fatalf("agentsh run: %v", err)
	}
	checkEffects(t, plainDir, nil)

	dir := killDir(t)
	tracePath := filepath.Join(dir, "trace")
	db := dbURL(t)
	out, stderr, err := killAgentsh(t, dir, "trace="+tracePath, "run", "--durable", "--run-id", killRunID, "--db", db, "run.star")
	if err != nil {
		t.Fatalf("agentsh run --durable: %v\n%s", err, stderr)
	}
	checkEffects(t, dir, nil)
	if got, want := untimed(out), untimed(plain); got != want {
		t.Fatalf("the durable run printed\n%s\nthe run not durable\n%s", got, want)
	}
	again, stderr, err := killAgentsh(t, dir, "", "resume", killRunID, "--db", db)
	if err != nil || again != out {
		t.Fatalf("agentsh resume of the finished run: %v; it printed\n%s\nthe run printed\n%s\nstderr:\n%s", err, again, out, stderr)
	}
	checkEffects(t, dir, nil)
	trace := readTrace(t, tracePath)
	// 2 clock readings, and per call a decision and its work.
	if want := 4 * (2 + 2*(killTurns+killTurns/2)); len(trace) != want {
		t.Fatalf("the unbroken run has %d fault points, want %d", len(trace), want)
	}
	return killGolden{stdout: out, trace: trace}
}

// killDir is a new directory with the script and the effect files.
func killDir(t *testing.T) string {
	dir := t.TempDir()
	for name, text := range map[string]string{"run.star": killScript, "effects.log": "end\n", "idem.log": "end\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// killAgentsh runs this test binary as agentsh in dir with the fault
// spec and returns what it printed and how it ended.
func killAgentsh(t *testing.T, dir, fault string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	// Not a timing assertion: a bound on a hang, so that it fails here
	// rather than at the binary's timeout.
	ctx, cancel := context.WithTimeout(t.Context(), testwait.Bound(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0",
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTSH_TEST_FAULT="+fault)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("agentsh %s did not end within %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), testwait.Bound(2*time.Minute), out.String(), errb.String())
	}
	return out.String(), errb.String(), err
}

func readTrace(t *testing.T, path string) []faultPoint {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var trace []faultPoint
	seqs := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		point, step, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("trace line %q", line)
		}
		if point == "before" {
			seqs[step]++
		}
		trace = append(trace, faultPoint{Point: point, Step: step, Seq: seqs[step]})
	}
	return trace
}

// timeRE is a time as time.now() prints it.
var timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \w+`)

// untimed is out with the times it printed blanked.
func untimed(out string) string { return timeRE.ReplaceAllString(out, "TIME") }

// killCases spreads kills over every kind of point of every kind of
// step of the trace: the first and the last of each, and one between of
// the steps of calls' work; kills from another thread inside the
// journal write of calls' steps; and runs whose resumes are killed too.
func killCases(trace []faultPoint) []killCase {
	byKind := map[[2]string][]faultPoint{}
	var kinds [][2]string
	for _, p := range trace {
		k := [2]string{p.Point, p.Step}
		if byKind[k] == nil {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], p)
	}
	var cases []killCase
	for i, k := range kinds {
		ps := byKind[k]
		picks := []int{0, len(ps) - 1}
		if strings.HasPrefix(k[1], "run ") {
			picks = append(picks, (len(ps)-1)*(i%3+2)/6)
		}
		slices.Sort(picks)
		for _, j := range slices.Compact(picks) {
			cases = append(cases, killCase{name: ps[j].String(), kills: []killSpec{{at: ps[j], delay: -1}}})
		}
	}
	// Inside the journal write: another thread kills while the engine
	// records the step's result, or just after (the trace tells which
	// point the process passed last; the result, whether it was
	// recorded). Not in the last turns, so the run is still going.
	delays := []time.Duration{0, 5 * time.Microsecond, 0, 20 * time.Microsecond, 0, 50 * time.Microsecond}
	timed := 0
	for _, step := range []string{"run append", "run append_idem", "decide append", "decide append_idem"} {
		ps := byKind[[2]string{"end", step}]
		every := 4
		if strings.HasPrefix(step, "decide") {
			every = 6
		}
		for j := 0; j < len(ps)-2; j += every {
			d := delays[timed%len(delays)]
			timed++
			cases = append(cases, killCase{name: fmt.Sprintf("%s@%v", ps[j], d), kills: []killSpec{{at: ps[j], delay: d}}})
		}
	}
	// A refused append has no work step: once turn 4's is refused, the
	// 15th "run append" is turn 16's (callOf reads turns off the trace).
	pt := func(point, step string, seq int) faultPoint { return faultPoint{Point: point, Step: step, Seq: seq} }
	cases = append(cases,
		killCase{name: "chain/golden", kills: []killSpec{
			{at: pt("after", "run append", 5), delay: -1},
			{at: pt("after", "run append", 12), delay: -1},
			{at: pt("before", "clock", 2), delay: -1}}},
		killCase{name: "chain/two-in-flight", kills: []killSpec{
			{at: pt("end", "run append", 4), delay: -1},
			{at: pt("start", "run append_idem", 5), delay: -1},
			{at: pt("end", "run append", 15), delay: -1}}},
		killCase{name: "chain/killed-in-replay", kills: []killSpec{
			{at: pt("end", "run append_idem", 8), delay: -1},
			{at: pt("after", "run append", 2), delay: -1, replay: true}}},
		killCase{name: "chain/refused-twice", kills: []killSpec{
			{at: pt("start", "run append", 18), delay: -1},
			{at: pt("after", "decide append", 18), delay: -1, replay: true},
			{at: pt("after", "run append", 19), delay: -1}}},
	)
	return cases
}

// runKillCase runs c on a new database and checks the end; for a timed
// kill it says where the kill landed.
func runKillCase(t *testing.T, g killGolden, c killCase, db, id string) (landed string, ok bool) {
	dir := killDir(t)
	var partial []string     // what each killed execution printed
	var candidates []window  // a timed kill's possible windows
	var windows []window     // the windows the kills left, for certain
	var lastTimed faultPoint // the last point a timed kill passed
	args := []string{"run", "--durable", "--run-id", id, "--db", db, "run.star"}
	for i, k := range c.kills {
		tracePath := filepath.Join(dir, fmt.Sprintf("trace%d", i))
		fault := fmt.Sprintf("trace=%s;kill=%s", tracePath, k.at)
		if k.delay >= 0 {
			fault += "@" + k.delay.String()
		}
		out, stderr, err := killAgentsh(t, dir, fault, args...)
		if !killedBySIGKILL(err) {
			t.Fatalf("execution %d (agentsh %s, kill at %s): %v, want killed by SIGKILL\nstdout:\n%s\nstderr:\n%s",
				i+1, args[0], fault, err, out, stderr)
		}
		partial = append(partial, out)
		trace := readTrace(t, tracePath)
		if len(trace) == 0 {
			t.Fatalf("execution %d: killed before its first fault point", i+1)
		}
		last := trace[len(trace)-1]
		if k.delay < 0 {
			if last != k.at {
				t.Fatalf("execution %d: the last fault point is %s, want %s", i+1, last, k.at)
			}
			if w, ok := windowAt(trace, k.replay); ok {
				windows = append(windows, w)
			}
		} else {
			candidates, lastTimed = timedWindows(trace), last
			t.Logf("the kill %s landed after %s", k.at, last)
		}
		args = []string{"resume", id, "--db", db}
	}
	final, stderr, err := killAgentsh(t, dir, "", args...)
	if err != nil {
		t.Fatalf("the last resume: %v, want it to finish the run\nstdout:\n%s\nstderr:\n%s", err, final, stderr)
	}
	for i, out := range partial {
		if !strings.HasPrefix(final, out) {
			t.Errorf("execution %d printed what the finished run did not print first (times included):\n%s\nthe finished run:\n%s", i+1, out, final)
		}
	}
	if len(candidates) == 0 {
		checkKillEnd(t, g, dir, final, id, windows)
		return "", !t.Failed()
	}
	// A timed kill: the end must be one of the ends its last point allows.
	var errs []string
	for _, cand := range candidates {
		ws := windows
		if cand.tool != "" {
			ws = append(slices.Clip(ws), cand)
		}
		msg := killEndDiff(g, dir, final, id, ws)
		if msg == "" {
			return landing(c.kills[0].at, lastTimed, cand), true
		}
		errs = append(errs, fmt.Sprintf("as if %+v: %s", cand, msg))
	}
	t.Errorf("the end matches none of the ends a kill there allows:\n%s", strings.Join(errs, "\n"))
	return "", false
}

// Where a timed kill armed at the end of a step landed.
const (
	landedInWrite = "in the journal write"    // the step's result was not journaled
	landedAfter   = "after the journal write" // it was, and the step's after point not reached
	landedLater   = "at a later point"
)

// landing says where a kill armed at point armed landed, given the last
// point it passed and the window it left.
func landing(armed, last faultPoint, left window) string {
	if last != armed {
		return landedLater
	}
	kind, _, _ := strings.Cut(armed.Step, " ")
	// The work step in flight leaves a window; the decision step leaves
	// one once journaled.
	if (left.tool != "") == (kind == "run") {
		return landedInWrite
	}
	return landedAfter
}

func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// turnStep is how far apart the turns of tool's calls are.
func turnStep(tool string) int {
	if tool == "append_idem" {
		return 2
	}
	return 1
}

// callOf is the tool and turn of the step of the last point of trace
// when it is a step of a call ("decide append", "run append_idem"). A
// call's work step follows its decision step, but a refused call has no
// work step: the turn is that of the last decision of the tool.
func callOf(trace []faultPoint) (kind, tool string, n int, ok bool) {
	last := trace[len(trace)-1]
	kind, tool, ok = strings.Cut(last.Step, " ")
	if !ok || (kind != "decide" && kind != "run") {
		return "", "", 0, false
	}
	for i := len(trace) - 1; i >= 0; i-- {
		if trace[i].Step == "decide "+tool {
			return kind, tool, trace[i].Seq * turnStep(tool), true
		}
	}
	return "", "", 0, false
}

// windowAt is the window a kill at the last point of trace leaves, by the journal's rules: a
// call whose decision is journaled and whose work is not is in flight,
// from after its decision step to the end of its work step (its work
// done at "end"). replay says the step was journaled before: a kill then
// leaves what was there.
func windowAt(trace []faultPoint, replay bool) (window, bool) {
	p := trace[len(trace)-1]
	kind, tool, n, ok := callOf(trace)
	if !ok {
		return window{}, false
	}
	switch {
	case replay && kind == "decide" && p.Point == "after":
		// The decision is journaled; a run step of the call is not
		// (the suite kills in replay only where it was refused).
		return window{tool: tool, n: n}, true
	case replay:
		return window{}, false
	case kind == "decide" && p.Point == "after",
		kind == "run" && (p.Point == "before" || p.Point == "start"):
		return window{tool: tool, n: n}, true
	case kind == "run" && p.Point == "end":
		return window{tool: tool, n: n, ran: true}, true
	}
	return window{}, false
}

// timedWindows are the windows a kill somewhere after the last point of
// trace (and before the next point) may leave; a window with no tool is
// none.
func timedWindows(trace []faultPoint) []window {
	last := trace[len(trace)-1]
	kind, tool, n, ok := callOf(trace)
	if !ok {
		return []window{{}}
	}
	switch {
	case last.Point == "start" && kind == "run":
		return []window{{tool: tool, n: n}, {tool: tool, n: n, ran: true}}
	case last.Point == "end" && kind == "run":
		// Killed before the result was journaled, or after.
		return []window{{tool: tool, n: n, ran: true}, {}}
	case last.Point == "end" && kind == "decide":
		return []window{{tool: tool, n: n}, {}}
	}
	if w, ok := windowAt(trace, false); ok {
		return []window{w}
	}
	return []window{{}}
}

func checkKillEnd(t *testing.T, g killGolden, dir, final, id string, windows []window) {
	t.Helper()
	if msg := killEndDiff(g, dir, final, id, windows); msg != "" {
		t.Error(msg)
	}
}

// killEndDiff says how the finished run differs from what the windows
// the kills left allow, or "".
func killEndDiff(g killGolden, dir, final, id string, windows []window) string {
	var msgs []string
	want := expectedEffects(windows)
	for _, f := range []string{"effects.log", "idem.log"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err.Error()
		}
		if got := strings.Fields(strings.TrimSuffix(string(b), "end\n")); !slices.Equal(got, want[f]) {
			msgs = append(msgs, fmt.Sprintf("%s has %v, want %v", f, got, want[f]))
		}
	}
	if msg := transcriptDiff(g.stdout, final, id, windows); msg != "" {
		msgs = append(msgs, msg)
	}
	return strings.Join(msgs, "\n")
}

// expectedEffects are the lines of each effect file once the run ends:
// every call's turn once, but a refused append's only if its work ran,
// and an idempotent call's again for each time it was in flight after
// its work ran.
func expectedEffects(windows []window) map[string][]string {
	want := map[string][]string{}
	for n := 1; n <= killTurns; n++ {
		count := 1
		ran := false
		refused := false
		for _, w := range windows {
			if w.tool == "append" && w.n == n {
				refused = true
				ran = ran || w.ran
			}
		}
		if refused && !ran {
			count = 0
		}
		for range count {
			want["effects.log"] = append(want["effects.log"], strconv.Itoa(n))
		}
		if n%2 == 0 {
			count := 1
			for _, w := range windows {
				if w.tool == "append_idem" && w.n == n && w.ran {
					count++
				}
			}
			for range count {
				want["idem.log"] = append(want["idem.log"], strconv.Itoa(n))
			}
		}
	}
	return want
}

// transcriptDiff says how final differs from the unbroken run's output
// golden, but for the refusals of appends that were in flight, or "".
// The times final printed are checked where a killed execution printed
// them (it is a prefix of final).
func transcriptDiff(golden, final, id string, windows []window) string {
	want := strings.Split(untimed(golden), "\n")
	got := strings.Split(untimed(final), "\n")
	if len(got) != len(want) {
		return fmt.Sprintf("the finished run printed %d lines, the unbroken run %d:\n%s\nthe unbroken run:\n%s", len(got), len(want), final, golden)
	}
	refused := map[string]*regexp.Regexp{}
	for _, w := range windows {
		if w.tool != "append" {
			continue
		}
		why := fmt.Sprintf(`call_%d_1 \(append\) was running when run %s stopped and may have had its effect; append is not idempotent`, w.n, regexp.QuoteMeta(id))
		refused[fmt.Sprintf("append(%d): appended %d", w.n, w.n)] = regexp.MustCompile(fmt.Sprintf(`^append\(%d\): .*%s`, w.n, why))
		refused[fmt.Sprintf("[append] appended %d", w.n)] = regexp.MustCompile(`^\[append\] error \(rejected\): .*` + why)
	}
	for i := range want {
		if re := refused[want[i]]; re != nil {
			if !re.MatchString(got[i]) {
				return fmt.Sprintf("line %d: got %q, want the refusal %s", i+1, got[i], re)
			}
			continue
		}
		if got[i] != want[i] {
			return fmt.Sprintf("line %d: got %q, want %q\nthe finished run printed:\n%s", i+1, got[i], want[i], final)
		}
	}
	return ""
}

// checkEffects checks an unbroken run's effect files.
func checkEffects(t *testing.T, dir string, windows []window) {
	t.Helper()
	for f, want := range expectedEffects(windows) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Fields(strings.TrimSuffix(string(b), "end\n")); !slices.Equal(got, want) {
			t.Fatalf("%s has %v, want %v", f, got, want)
		}
	}
}
