package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/durable"
	"github.com/agentsh/agentsh/provider"
)

// plan is one execution of a test run: what the Runner does with the
// journal; exec counts the executions of the run, from 1.
type plan func(ctx context.Context, j *durable.Journal, exec int, out io.Writer) (durable.Outcome, error)

// harness is an engine on a SQLite file of the test whose Runner executes
// the plan registered for each run id.
type harness struct {
	t  *testing.T
	e  *durable.Engine
	db string

	mu    sync.Mutex
	plans map[string]plan
	execs map[string]int
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "runs.db"), plans: map[string]plan{}, execs: map[string]int{}}
	e, err := durable.Open(context.Background(), durable.Config{DB: h.db, Run: h.run, PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h.e = e
	return h
}

func (h *harness) run(ctx context.Context, j *durable.Journal, spec durable.Spec, out io.Writer) (durable.Outcome, error) {
	h.mu.Lock()
	p := h.plans[spec.ID]
	h.execs[spec.ID]++
	n := h.execs[spec.ID]
	h.mu.Unlock()
	if p == nil {
		return durable.Outcome{}, fmt.Errorf("no plan for run %s", spec.ID)
	}
	return p(ctx, j, n, out)
}

// start registers p for run id and starts it, deferring its asks.
func (h *harness) start(id string, p plan) (durable.Outcome, error) {
	return h.startSpec(durable.Spec{ID: id, Approve: "defer"}, p)
}

func (h *harness) startSpec(spec durable.Spec, p plan) (durable.Outcome, error) {
	h.mu.Lock()
	h.plans[spec.ID] = p
	h.mu.Unlock()
	spec.WorkDir = h.t.TempDir()
	return h.e.Start(context.Background(), spec, io.Discard)
}

func (h *harness) executions(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.execs[id]
}

func (h *harness) state(id string) durable.RunInfo {
	h.t.Helper()
	info, err := h.e.Run(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return info
}

func (h *harness) approve(id string) {
	h.t.Helper()
	if _, err := h.e.Decide(context.Background(), id, durable.DecideOptions{Approve: true, Reason: "ok"}); err != nil {
		h.t.Fatal(err)
	}
}

func newCall(name, args string) *core.Call {
	return &core.Call{ID: "call_1", Name: name, Args: json.RawMessage(args)}
}

// gate asks to run a call of gate: with Spec.Approve "defer" the run parks
// there until the approval is decided.
func gate(ctx context.Context, j *durable.Journal) (core.Approval, error) {
	return j.Approver(nil).Approve(ctx, &core.ApprovalRequest{Call: newCall("gate", `{}`), Reason: "gate needs a yes", Hook: "test"})
}

// parked returns the approval a run stopped at, failing the test when it
// did not stop there.
func parked(t *testing.T, err error) *durable.Approval {
	t.Helper()
	var st *durable.Stopped
	if !errors.As(err, &st) || st.Approval == nil {
		t.Fatalf("got %v, want the run parked at an approval", err)
	}
	return st.Approval
}

func TestStartParkResumeDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	work := 0
	_, err := h.start("r1", func(ctx context.Context, j *durable.Journal, exec int, out io.Writer) (durable.Outcome, error) {
		res := j.Execute(ctx, newCall("count", `{"n":1}`), func(context.Context) *core.Result {
			work++
			return &core.Result{ForLLM: fmt.Sprintf("counted %d", work)}
		})
		fmt.Fprintln(out, res.ForLLM)
		ans, err := gate(ctx, j)
		if err != nil {
			return durable.Outcome{}, err
		}
		fmt.Fprintln(out, "gate:", ans.Verdict)
		return durable.Outcome{ExitCode: 3}, nil
	})
	a := parked(t, err)
	if a.ID != "r1.a1" || a.Tool != "gate" || a.Reason != "gate needs a yes" || a.State != durable.ApprovalPending {
		t.Errorf("parked at %+v", a)
	}
	info := h.state("r1")
	if info.State != durable.StateWaiting || len(info.Pending) != 1 || info.Pending[0].ID != "r1.a1" {
		t.Fatalf("parked run: state %s, pending %v", info.State, info.Pending)
	}

	h.approve("r1.a1")
	var out strings.Builder
	o, err := h.e.Resume(context.Background(), "r1", &out, durable.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "counted 1\ngate: allow\n"
	if o.ExitCode != 3 || o.Stdout != want || out.String() != want {
		t.Errorf("resumed: exit %d, stdout %q, printed %q; want exit 3 and %q", o.ExitCode, o.Stdout, out.String(), want)
	}
	if work != 1 {
		t.Errorf("the journaled call's work ran %d times, want 1", work)
	}
	info = h.state("r1")
	if info.State != durable.StateDone || info.Outcome == nil || info.Outcome.ExitCode != 3 || len(info.Pending) != 0 {
		t.Errorf("done run: %+v", info)
	}

	// Resuming a done run prints its output again and executes nothing.
	execs := h.executions("r1")
	out.Reset()
	if o, err = h.e.Resume(context.Background(), "r1", &out, durable.ResumeOptions{}); err != nil || out.String() != want || o.ExitCode != 3 {
		t.Errorf("resume of a done run: %v, %q", err, out.String())
	}
	if h.executions("r1") != execs {
		t.Errorf("resume of a done run executed it again")
	}
	runs, err := h.e.Runs(context.Background())
	if err != nil || len(runs) != 1 || runs[0].ID != "r1" {
		t.Errorf("Runs: %v, %v", runs, err)
	}
}

func TestStartTakenIDAndUnknownRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	done := func(context.Context, *durable.Journal, int, io.Writer) (durable.Outcome, error) {
		return durable.Outcome{}, nil
	}
	if _, err := h.start("once", done); err != nil {
		t.Fatal(err)
	}
	if _, err := h.start("once", done); err == nil || !strings.Contains(err.Error(), "run id once is taken; resume it with agentsh resume once, or pick another --run-id") {
		t.Errorf("second start under the same id: %v", err)
	}
	if _, err := h.e.Resume(context.Background(), "nope", io.Discard, durable.ResumeOptions{}); !errors.Is(err, durable.ErrNoRun) || !strings.Contains(err.Error(), "agentsh runs") {
		t.Errorf("resume of an unknown run: %v", err)
	}
	if _, err := h.e.Run(context.Background(), "../x"); err == nil || !strings.Contains(err.Error(), `run id "../x"`) {
		t.Errorf("an invalid run id: %v", err)
	}
	if _, err := h.start("../x", done); err == nil || !strings.Contains(err.Error(), `run id "../x"`) {
		t.Errorf("start with an invalid run id: %v", err)
	}
}

func TestRunStates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var during durable.RunInfo
	_, err := h.start("live", func(ctx context.Context, j *durable.Journal, _ int, _ io.Writer) (durable.Outcome, error) {
		var err error
		during, err = h.e.Run(ctx, j.ID())
		return durable.Outcome{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if during.State != durable.StateRunning {
		t.Errorf("a run that is executing: state %s, want %s", during.State, durable.StateRunning)
	}
	_, err = h.start("broken", func(context.Context, *durable.Journal, int, io.Writer) (durable.Outcome, error) {
		return durable.Outcome{}, errors.New("the journal broke")
	})
	if err == nil || !strings.Contains(err.Error(), "the journal broke") {
		t.Errorf("a run whose Runner failed: %v", err)
	}
	if info := h.state("broken"); info.State != durable.StateFailed || !strings.Contains(info.Error, "the journal broke") {
		t.Errorf("failed run: state %s, error %q", info.State, info.Error)
	}
}

func TestDivergenceStops(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := 0
	args := func(exec int) string {
		if exec == 2 {
			return `{"n":2}` // the second execution calls differently
		}
		return `{"n":1}`
	}
	run := func(ctx context.Context, j *durable.Journal, exec int, out io.Writer) (durable.Outcome, error) {
		res := j.Execute(ctx, newCall("count", args(exec)), func(context.Context) *core.Result {
			n++
			return &core.Result{ForLLM: "ok"}
		})
		if res.Err != nil {
			return durable.Outcome{}, nil // the run stopped; the engine reports why
		}
		if _, err := gate(ctx, j); err != nil {
			return durable.Outcome{}, err
		}
		fmt.Fprintln(out, res.ForLLM)
		return durable.Outcome{}, nil
	}
	_, err := h.start("d1", run)
	parked(t, err)
	h.approve("d1.a1")
	_, err = h.e.Resume(context.Background(), "d1", io.Discard, durable.ResumeOptions{})
	var st *durable.Stopped
	if !errors.As(err, &st) || st.Approval != nil {
		t.Fatalf("resume with another call: %v, want *Stopped", err)
	}
	for _, want := range []string{`count was called with {"n":1}, now with {"n":2}`, "agentsh resume d1"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("stop reason %q lacks %q", st.Reason, want)
		}
	}
	if s := h.state("d1").State; s != durable.StateStopped {
		t.Errorf("state after a divergence: %s, want stopped", s)
	}
	// Restored, the run goes on from its journal.
	o, err := h.e.Resume(context.Background(), "d1", io.Discard, durable.ResumeOptions{})
	if err != nil || o.Stdout != "ok\n" || n != 1 {
		t.Errorf("resume after restoring: %v, stdout %q, work ran %d times", err, o.Stdout, n)
	}
}

func TestDivergentDecisionStops(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	run := func(ctx context.Context, j *durable.Journal, exec int, _ io.Writer) (durable.Outcome, error) {
		call := newCall("count", `{}`)
		call.Record(core.Decision{Stage: core.StageToolBefore, Hook: "policy", Verdict: core.VerdictAllow, Reason: fmt.Sprintf("rule %d", exec)})
		j.Execute(ctx, call, func(context.Context) *core.Result { return &core.Result{} })
		_, err := gate(ctx, j)
		return durable.Outcome{}, err
	}
	_, err := h.start("d2", run)
	parked(t, err)
	h.approve("d2.a1")
	_, err = h.e.Resume(context.Background(), "d2", io.Discard, durable.ResumeOptions{})
	var st *durable.Stopped
	if !errors.As(err, &st) {
		t.Fatalf("resume with another decision: %v, want *Stopped", err)
	}
	if want := `decision 1 of count was allow by policy: "rule 1", now allow by policy: "rule 2"`; !strings.Contains(st.Reason, want) {
		t.Errorf("stop reason %q lacks %q", st.Reason, want)
	}
}

func TestClockReplays(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var reads []time.Time
	_, err := h.start("c1", func(ctx context.Context, j *durable.Journal, _ int, _ io.Writer) (durable.Outcome, error) {
		reads = append(reads, j.Clock()())
		_, err := gate(ctx, j)
		return durable.Outcome{}, err
	})
	parked(t, err)
	// The clock of the resumed execution is read later; the journal
	// answers with the first reading.
	first := reads[0]
	sleepPast(first)
	h.approve("c1.a1")
	if _, err := h.e.Resume(context.Background(), "c1", io.Discard, durable.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(reads) != 2 || !reads[1].Equal(first) {
		t.Errorf("clock readings %v, want the first replayed", reads)
	}
}

// sleepPast returns once the wall clock, which is what the engine reads,
// has passed t.
func sleepPast(t time.Time) {
	for d := time.Until(t); d >= 0; d = time.Until(t) {
		time.Sleep(d + time.Millisecond)
	}
}

// model is a provider that streams its answer in two pieces and counts
// its requests.
type model struct {
	mu    sync.Mutex
	calls int
}

func (m *model) Name() string { return "test:model" }

func (m *model) Complete(_ context.Context, req provider.Request, stream func(string)) (provider.Response, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	if stream != nil {
		stream("hello ")
		stream("world")
	}
	return provider.Response{Content: "hello world", ToolCalls: []provider.ToolCall{{ID: "t1", Name: "count", Args: json.RawMessage(`{"n":1}`)}},
		StopReason: "tool_use", Usage: provider.Usage{InputTokens: 7, OutputTokens: 2}}, nil
}

func TestProviderReplays(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	m := &model{}
	var resps []provider.Response
	var streamed []string
	_, err := h.start("m1", func(ctx context.Context, j *durable.Journal, _ int, _ io.Writer) (durable.Outcome, error) {
		var got strings.Builder
		resp, err := j.Provider(m).Complete(ctx, provider.Request{Messages: []provider.Message{{Role: "user", Content: "hi"}}}, func(s string) { got.WriteString(s + "|") })
		if err != nil {
			return durable.Outcome{}, err
		}
		resps, streamed = append(resps, resp), append(streamed, got.String())
		_, err = gate(ctx, j)
		return durable.Outcome{}, err
	})
	parked(t, err)
	h.approve("m1.a1")
	if _, err := h.e.Resume(context.Background(), "m1", io.Discard, durable.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if m.calls != 1 {
		t.Errorf("the model was asked %d times, want once", m.calls)
	}
	if len(resps) != 2 || !reflect.DeepEqual(resps[0], resps[1]) {
		t.Errorf("responses: %+v, want the first replayed", resps)
	}
	if want := []string{"hello |world|", "hello world|"}; !reflect.DeepEqual(streamed, want) {
		t.Errorf("streamed %q, want %q (on replay, the text at once)", streamed, want)
	}
	if j := (&durable.Journal{}); j.Provider(nil) != nil {
		t.Error("Provider(nil) is not nil")
	}
}

func TestResultRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	results := map[string]*core.Result{
		"dual":   {ForLLM: "for the model", ForUser: "for a person"},
		"silent": {ForLLM: "quiet", Silent: true},
		"data":   {ForLLM: "data", Data: map[string]any{"int": int64(1) << 60, "float": 2.5, "whole": float64(3), "list": []any{int64(1), "x", nil, true}}},
		"failed": {Err: &core.Error{Kind: core.KindInvalidArguments, Message: "bad args", Hook: "schema",
			Violations: []core.Violation{{Pointer: "/n", Message: "want an integer"}}}, Data: map[string]any{"exit_code": int64(2)}},
		"timeout": {Err: &core.Error{Kind: core.KindTimeout, Message: "took too long"}},
	}
	names := []string{"dual", "silent", "data", "failed", "timeout"}
	var seen [][]*core.Result
	_, err := h.start("rr", func(ctx context.Context, j *durable.Journal, _ int, _ io.Writer) (durable.Outcome, error) {
		var got []*core.Result
		for _, name := range names {
			got = append(got, j.Execute(ctx, newCall(name, `{}`), func(context.Context) *core.Result {
				r := *results[name]
				return &r
			}))
		}
		seen = append(seen, got)
		_, err := gate(ctx, j)
		return durable.Outcome{}, err
	})
	parked(t, err)
	h.approve("rr.a1")
	if _, err := h.e.Resume(context.Background(), "rr", io.Discard, durable.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("%d executions, want 2", len(seen))
	}
	for exec, got := range seen {
		for i, name := range names {
			want, r := results[name], got[i]
			if r.Tool != name || r.CallID != "call_1" || r.ForLLM != want.ForLLM || r.ForUser != want.ForUser || r.Silent != want.Silent {
				t.Errorf("execution %d, %s: got %+v, want %+v", exec+1, name, r, want)
			}
			// The journal keeps data as JSON that decodes to the same
			// shapes: int64 stays int64, and a whole float64 (3.0) stays a
			// float64.
			if !reflect.DeepEqual(r.Data, want.Data) {
				t.Errorf("execution %d, %s: data %#v, want %#v", exec+1, name, r.Data, want.Data)
			}
			if (want.Err == nil) != (r.Err == nil) {
				t.Fatalf("execution %d, %s: error %v, want %v", exec+1, name, r.Err, want.Err)
			}
			if want.Err == nil {
				continue
			}
			var ce *core.Error
			if !errors.As(r.Err, &ce) {
				t.Fatalf("execution %d, %s: error %T, want *core.Error", exec+1, name, r.Err)
			}
			we := want.Err.(*core.Error)
			if ce.Kind != we.Kind || ce.Message != we.Message || ce.Hook != we.Hook || !reflect.DeepEqual(ce.Violations, we.Violations) || ce.Tool != name {
				t.Errorf("execution %d, %s: error %+v, want %+v", exec+1, name, ce, we)
			}
		}
	}
}

func TestCheckID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"a", "r1", "run-2026.01_x", "A" + strings.Repeat("b", 127)} {
		if err := durable.CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", "../x", "a/b", ".hidden", "-flag", "_x", "a b", "a\x00b", "ä", "A" + strings.Repeat("b", 128), "x\n"} {
		err := durable.CheckID(id)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("run id %q: want 1 to 128 letters", id)) {
			t.Errorf("CheckID(%q) = %v, want a refusal naming it", id, err)
		}
	}
}

func TestOpenRefusesBadDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ db, want string }{
		{"mysql://x", `--db "mysql://x": want sqlite:PATH or postgres://`},
		{"sqlite:", `--db "sqlite:": want sqlite:PATH`},
		{"sqlite::memory:", `want sqlite:PATH, a file other processes can open`},
		{"sqlite:" + dir + "/no/such/dir/x.db", "the directory of the file: stat " + dir + "/no/such/dir: no such file or directory; create it, or pass another --db"},
		// A closed loopback port: refused at once, not after a timeout;
		// the password does not reach the message.
		{"postgres://u:secret@127.0.0.1:1/x?connect_timeout=5", "open the run database postgres://u:***@127.0.0.1:1/x?connect_timeout=5: "},
	} {
		_, err := durable.Open(context.Background(), durable.Config{DB: c.db})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q) = %v, want an error with %q", c.db, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): the error shows the password: %v", c.db, err)
		}
	}
}

func TestDBRedactsPassword(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if got := h.e.DB(); got != h.db {
		t.Errorf("DB() = %q, want %q", got, h.db)
	}
}

func TestDecideRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	stop := func(ctx context.Context, j *durable.Journal, _ int, _ io.Writer) (durable.Outcome, error) {
		ans, err := gate(ctx, j)
		if err == nil && ans.Verdict == core.VerdictAllow {
			j.Execute(ctx, newCall("gate", `{}`), func(context.Context) *core.Result { return &core.Result{} })
		}
		return durable.Outcome{}, err
	}
	for _, id := range []string{"x1", "x2"} {
		_, err := h.start(id, stop)
		parked(t, err)
	}
	if _, err := h.e.Decide(ctx, "x1.a9", durable.DecideOptions{Approve: true}); !errors.Is(err, durable.ErrNoApproval) || !strings.Contains(err.Error(), `approval "x1.a9": no such approval; list them with agentsh approvals`) {
		t.Errorf("an unknown approval: %v", err)
	}
	if _, err := h.e.Decide(ctx, "x1.a1", durable.DecideOptions{Approve: true, Run: "x2"}); err == nil || err.Error() != "approval x1.a1 belongs to run x1, not x2; list the approvals of a run with agentsh approvals" {
		t.Errorf("an approval of another run: %v", err)
	}
	a, err := h.e.Decide(ctx, "x1.a1", durable.DecideOptions{Approve: true, Reason: "fine", Run: "x1"})
	if err != nil || a.State != durable.ApprovalApproved || a.Decided != "fine" {
		t.Fatalf("approve: %+v, %v", a, err)
	}
	if _, err := h.e.Decide(ctx, "x1.a1", durable.DecideOptions{Approve: true}); err == nil || err.Error() != "approval x1.a1 is already approved (fine); a decision is made once" {
		t.Errorf("a second approval: %v", err)
	}
	if _, err := h.e.Decide(ctx, "x1.a1", durable.DecideOptions{Reason: "no"}); err == nil || err.Error() != "approval x1.a1 is already approved (fine); a decision is made once" {
		t.Errorf("a denial after the approval: %v", err)
	}
	if _, err := h.e.Decide(ctx, "x2.a1", durable.DecideOptions{Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Decide(ctx, "x2.a1", durable.DecideOptions{Approve: true}); err == nil || err.Error() != "approval x2.a1 is already denied (not now); a decision is made once" {
		t.Errorf("an approval after the denial: %v", err)
	}
	// Once the run has used it, an approval is spent.
	if _, err := h.e.Resume(ctx, "x1", io.Discard, durable.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Decide(ctx, "x1.a1", durable.DecideOptions{Approve: true}); err == nil || err.Error() != "approval x1.a1 was approved and its call has run; an approval is used once" {
		t.Errorf("an approval once spent: %v", err)
	}
	all, err := h.e.Approvals(ctx, true)
	if err != nil || len(all) != 2 {
		t.Fatalf("Approvals(all): %v, %v", all, err)
	}
	pending, err := h.e.Approvals(ctx, false)
	if err != nil || len(pending) != 0 {
		t.Errorf("Approvals(pending) after the decisions: %v, %v", pending, err)
	}
}

func TestApprovalExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	var answers []core.Approval
	o, err := h.startSpec(durable.Spec{ID: "e1", Approve: "defer", ApprovalTTL: 1}, func(ctx context.Context, j *durable.Journal, _ int, out io.Writer) (durable.Outcome, error) {
		ans, err := gate(ctx, j)
		if err != nil {
			return durable.Outcome{}, err
		}
		answers = append(answers, ans)
		fmt.Fprintln(out, ans.Verdict, ans.Reason)
		return durable.Outcome{}, nil
	})
	if err != nil {
		// Parked (the machine was not too slow to get there within the
		// second): wait out the expiry.
		a := parked(t, err)
		sleepPast(a.Expires)
		_, err := h.e.Decide(ctx, a.ID, durable.DecideOptions{Approve: true})
		want := fmt.Sprintf("approval e1.a1 expired at %s without a decision; agentsh resume e1 goes on with the call refused, or start the run again to be asked anew", a.Expires.Format(time.RFC3339))
		if err == nil || err.Error() != want {
			t.Errorf("approving an expired approval: %v, want %q", err, want)
		}
		if o, err = h.e.Resume(ctx, "e1", io.Discard, durable.ResumeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(answers) != 1 || answers[0].Verdict != core.VerdictDeny || !strings.Contains(answers[0].Reason, "approval e1.a1 expired at ") || !strings.HasSuffix(answers[0].Reason, " without a decision") {
		t.Errorf("answers %+v, want one denial for the expiry", answers)
	}
	if !strings.HasPrefix(o.Stdout, "deny approval e1.a1 expired at ") {
		t.Errorf("stdout %q", o.Stdout)
	}
	all, err := h.e.Approvals(ctx, true)
	if err != nil || len(all) != 1 || all[0].State != durable.ApprovalExpired {
		t.Errorf("approvals after the expiry: %+v, %v", all, err)
	}
}

func TestPolicyHashFollowsFiles(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "pol.star")
	write := func(s string) {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	settings := []string{"--load", f, "run"}
	h1 := durable.PolicyHash(settings, "", f)
	if h2 := durable.PolicyHash(settings, f); h2 != h1 {
		t.Errorf("the same files hash differently: %s, %s", h1, h2)
	}
	write("b")
	if h3 := durable.PolicyHash(settings, f); h3 == h1 {
		t.Error("a changed file keeps the policy hash")
	}
	if durable.PolicyHash([]string{"--approve", "always"}) == durable.PolicyHash([]string{"--approve", "never"}) {
		t.Error("other settings keep the policy hash")
	}
	os.Remove(f)
	if durable.PolicyHash(settings, f) == h1 {
		t.Error("a file gone keeps the policy hash")
	}
}

// TestApprovalSpentByItsCallOnly approves a call that then never runs (a
// later stage refuses it): the next call, which needed no approval, must
// not use the approval up.
func TestApprovalSpentByItsCallOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	plan := func(ctx context.Context, j *durable.Journal, exec int, out io.Writer) (durable.Outcome, error) {
		if _, err := gate(ctx, j); err != nil { // call_1, approved, and refused later
			return durable.Outcome{}, err
		}
		other := &core.Call{ID: "call_2", Name: "other", Args: json.RawMessage(`{}`)}
		res := j.Execute(ctx, other, func(context.Context) *core.Result { return &core.Result{ForLLM: "ran"} })
		fmt.Fprintln(out, res.ForLLM, res.Err)
		return durable.Outcome{}, nil
	}
	_, err := h.start("s1", plan)
	a := parked(t, err)
	h.approve(a.ID)
	var out strings.Builder
	if _, err := h.e.Resume(context.Background(), "s1", &out, durable.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ran <nil>\n" {
		t.Errorf("the other call: %q, want it run", out.String())
	}
	got, err := h.e.Approval(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != durable.ApprovalApproved {
		t.Errorf("approval of a call that never ran: state %s, want approved (not spent by another call)", got.State)
	}
}

// TestWriteApprovalsCutsWholeCharacters: a long argument is cut on one
// line, and never inside a character.
func TestWriteApprovalsCutsWholeCharacters(t *testing.T) {
	var b strings.Builder
	args := `{"t":"` + strings.Repeat("é", 100) + `"}`
	if err := durable.WriteApprovals(&b, []durable.Approval{{ID: "r.a1", State: "pending", Tool: "t", Args: args, Reason: "why\nnot"}}, false); err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(b.String()) || !strings.Contains(b.String(), "…") {
		t.Errorf("approvals: %q, want valid UTF-8 cut with …", b.String())
	}
}
