package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/pgtest"

	"github.com/agentsh/agentsh/internal/testwait"
)

// approvalRun is a directory with a script whose one call asks, and a
// database of durable runs: agentsh commands run in it as separate
// processes, as a person would run them.
type approvalRun struct {
	t   *testing.T
	dir string
	db  string
}

const (
	askPolicy    = `before(lambda call: ask("appending needs a yes"), tools = ["bash"])` + "\n"
	appendScript = `r = invoke_tool("bash", {"command": "echo once >> effects"})` + "\n" +
		`print("ok: %s%s" % (r.ok, "" if r.ok else " " + r.error))` + "\n"
)

func newApprovalRun(t *testing.T) *approvalRun {
	t.Helper()
	r := &approvalRun{t: t, dir: t.TempDir()}
	r.db = "sqlite:" + filepath.Join(r.dir, "runs.db")
	for name, text := range map[string]string{"pol.star": askPolicy, "append.star": appendScript} {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// cmd is agentsh with args, on the run's database, in its directory.
func (r *approvalRun) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"--db", r.db}, args...)...)
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "XDG_STATE_HOME="+filepath.Join(r.dir, "state"), "GORACE=atexit_sleep_ms=0")
	cmd.Dir = r.dir
	return cmd
}

// exec runs agentsh and returns its stdout, stderr and exit code.
func (r *approvalRun) exec(args ...string) (string, string, int) {
	r.t.Helper()
	cmd := r.cmd(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := exitCode(r.t, cmd.Run())
	return out.String(), errb.String(), code
}

// park starts run id, which parks at its approval id.a1.
func (r *approvalRun) park(id string, extra ...string) {
	r.t.Helper()
	args := append([]string{"--load", "pol.star", "run", "--durable", "--approve", "defer", "--run-id", id}, extra...)
	_, stderr, code := r.exec(append(args, "append.star")...)
	if code != exitWaiting || !strings.Contains(stderr, fmt.Sprintf("run %s is waiting for approval %s.a1: ", id, id)) {
		r.t.Fatalf("run %s: exit %d, stderr %q; want exit 7 naming the approval", id, code, stderr)
	}
}

func (r *approvalRun) effects() int {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "effects"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestDurableResumersRace resumes an approved run from two processes at
// once, again and again: the approved call's work happens exactly once,
// whatever the two print, and the run ends done.
func TestDurableResumersRace(t *testing.T) {
	t.Parallel()
	resumersRace(t, newApprovalRun(t), 10)
}

// TestDurableResumersRacePostgres is the race on Postgres, where the two
// resumers are separate connections to a server, as on two machines.
func TestDurableResumersRacePostgres(t *testing.T) {
	t.Parallel()
	r := newApprovalRun(t)
	r.db = pgtest.Shared(t)
	resumersRace(t, r, 5)
}

func resumersRace(t *testing.T, r *approvalRun, rounds int) {
	for i := range rounds {
		id := fmt.Sprintf("race%d", i)
		r.park(id)
		if _, stderr, code := r.exec("approve", id+".a1"); code != 0 {
			t.Fatalf("approve: exit %d: %s", code, stderr)
		}
		var wg sync.WaitGroup
		outs := make([]string, 2)
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := r.cmd("resume", id)
				b, _ := cmd.CombinedOutput() // either may lose the race; its exit code says so
				outs[k] = string(b)
			}()
		}
		wg.Wait()
		// Both may stop before the call (each taking the run over from
		// the other); neither runs it twice.
		if n := r.effects(); n > i+1 {
			t.Fatalf("round %d: the approved call ran %d times in all, want at most %d; the resumers printed:\n%s\n---\n%s", i, n, i+1, outs[0], outs[1])
		}
		for _, out := range outs {
			if strings.Contains(out, "DBOS") {
				t.Errorf("round %d: a resumer printed the database engine's error: %s", i, out)
			}
		}
		// Whoever lost, a resume ends the run. When the winner's work
		// was not journaled (the loser took the run over meanwhile), the
		// call counts as in flight: the run asks before running it again,
		// and a denial ends it without a second effect.
		out, stderr, code := r.exec("resume", id)
		if code == exitWaiting {
			rerun := fmt.Sprintf("run %s is waiting for approval %s.a2: bash ", id, id)
			if !strings.Contains(stderr, rerun) || !strings.Contains(stderr, fmt.Sprintf("was running when run %s stopped and may have had its effect; bash is not idempotent: run it again?", id)) {
				t.Fatalf("round %d: resume after the race: stderr %q, want the ask to run the call again", i, stderr)
			}
			if _, stderr, code := r.exec("deny", id+".a2", "--reason", "it ran"); code != 0 {
				t.Fatalf("deny: %s", stderr)
			}
			out, stderr, code = r.exec("resume", id)
			if code != 0 || out != "ok: False approval "+id+".a2 denied: it ran\n" {
				t.Fatalf("round %d: resume after the denial: exit %d, stdout %q, stderr %q", i, code, out, stderr)
			}
		} else if code != 0 || out != "ok: True\n" {
			t.Fatalf("round %d: resume after the race: exit %d, stdout %q, stderr %q", i, code, out, stderr)
		}
		if n := r.effects(); n != i+1 {
			t.Fatalf("round %d: the call ran again after the race: %d effects", i, n)
		}
	}
	if n := r.effects(); n != rounds {
		t.Errorf("%d effects after %d rounds", n, rounds)
	}
	out, _, _ := r.exec("approvals", "--all", "--json")
	if got := strings.Count(out, `"state":"spent"`); got != rounds {
		t.Errorf("%d spent approvals, want %d:\n%s", got, rounds, out)
	}
}

// TestDurableApprovalExpires waits out a one-second approval: approving it
// then is refused, and the resumed run sees the call denied as expired.
func TestDurableApprovalExpires(t *testing.T) {
	t.Parallel()
	r := newApprovalRun(t)
	_, stderr, code := r.exec("--load", "pol.star", "run", "--durable", "--approve", "defer", "--approval-ttl", "1s", "--run-id", "e1", "append.star")
	if code == 0 {
		// The machine took more than the second to get from the ask to
		// the wait: the run saw the approval expired at once.
		t.Logf("the approval expired before the run parked: %s", stderr)
	} else {
		if code != exitWaiting {
			t.Fatalf("exit %d, stderr %q; want 7", code, stderr)
		}
		out, _, _ := r.exec("approvals", "--json")
		var a struct {
			ID      string    `json:"id"`
			Expires time.Time `json:"expires"`
			Created time.Time `json:"created"`
			State   string    `json:"state"`
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("approvals --json: %v: %q", err, out)
		}
		if a.ID != "e1.a1" || a.State != "pending" || a.Expires.Sub(a.Created) != time.Second {
			t.Fatalf("approval %+v, want e1.a1 pending for 1s", a)
		}
		testwait.Until(t, "the approval's expiry", func() bool { return time.Now().After(a.Expires) })
		_, stderr, code = r.exec("approve", "e1.a1")
		want := fmt.Sprintf("agentsh: approval e1.a1 expired at %s without a decision; agentsh resume e1 goes on with the call refused, or start the run again to be asked anew\n", a.Expires.UTC().Format(time.RFC3339))
		if code != 1 || stderr != want {
			t.Errorf("approve after the expiry: exit %d, stderr %q; want %q", code, stderr, want)
		}
		out, stderr, code = r.exec("resume", "e1")
		if code != 0 || !strings.HasPrefix(out, "ok: False not approved: approval e1.a1 expired at ") || !strings.HasSuffix(out, " without a decision\n") {
			t.Errorf("resume after the expiry: exit %d, stdout %q, stderr %q", code, out, stderr)
		}
	}
	if n := r.effects(); n != 0 {
		t.Errorf("the expired call ran %d times", n)
	}
	out, _, _ := r.exec("approvals", "--all")
	if !strings.HasPrefix(out, "e1.a1  expired  bash ") {
		t.Errorf("approvals --all: %q", out)
	}
}

// TestDurableFullDisk resumes a run whose database cannot grow (the file
// size limit of the process, as on a full disk): agentsh stops with an
// error that says how to go on, and once the limit is lifted a resume
// finishes the run with every journaled effect kept and none repeated.
func TestDurableFullDisk(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit to limit the file size of agentsh")
	}
	r := newApprovalRun(t)
	two := appendScript + `r = invoke_tool("bash", {"command": "echo twice >> effects"})` + "\n" +
		`print("ok: %s%s" % (r.ok, "" if r.ok else " " + r.error))` + "\n"
	if err := os.WriteFile(filepath.Join(r.dir, "append.star"), []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	r.park("f1")
	if _, stderr, code := r.exec("approve", "f1.a1"); code != 0 {
		t.Fatal(stderr)
	}
	// Files of agentsh may not grow past 100 kB: the journal's
	// write-ahead log fills up within the run.
	limited := r.cmd("--timeout", "60s", "resume", "f1")
	limited.Args = append([]string{prlimit, "--fsize=100000", "--"}, limited.Args...)
	limited.Path = prlimit
	var out, errb bytes.Buffer
	limited.Stdout, limited.Stderr = &out, &errb
	code := exitCode(t, limited.Run())
	if code == 0 || code == exitWaiting || !strings.Contains(errb.String(), "agentsh resume f1 goes on") {
		t.Fatalf("resume on a full disk: exit %d, stdout %q, stderr %q; want an error saying to resume", code, out.String(), errb.String())
	}
	if strings.Contains(out.String(), "ok: False") {
		t.Errorf("the script went on past a step the journal could not keep: %q", out.String())
	}
	if n := r.effects(); n > 1 {
		t.Fatalf("%d effects on a full disk, want at most 1", n)
	}
	// Lifted: the run goes on. Where the limit struck decides what it
	// asks: the first call's work may have run without being journaled
	// (in flight: the run asks before running it again, and a person who
	// knows it ran denies that), and the second call asks as it always
	// does.
	for round := 0; ; round++ {
		stdout, stderr, code := r.exec("resume", "f1")
		if code == 0 {
			if !strings.HasSuffix(stdout, "ok: True\n") {
				t.Errorf("final resume: stdout %q, want the second call run", stdout)
			}
			break
		}
		if code != exitWaiting || round == 3 {
			t.Fatalf("resume after the limit: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		list, _, _ := r.exec("approvals", "--json")
		var a struct{ ID, Reason string }
		if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &a); err != nil {
			t.Fatalf("approvals --json: %v: %q", err, list)
		}
		decide := []string{"approve", a.ID}
		if strings.Contains(a.Reason, "was running when run f1 stopped") {
			decide = []string{"deny", a.ID, "--reason", "it ran"}
		}
		if _, stderr, code := r.exec(decide...); code != 0 {
			t.Fatal(stderr)
		}
	}
	b, _ := os.ReadFile(filepath.Join(r.dir, "effects"))
	if string(b) != "once\ntwice\n" {
		t.Errorf("effects %q, want each call's once", b)
	}
}
