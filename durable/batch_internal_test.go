package durable

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/agentsh/agentsh/internal/testwait"
)

// TestWorkOnConcurrency: the batch queue's worker concurrency is one
// setting all processes read; a process that works sets it, one that only
// enqueues (workers 0) leaves it as it is, or creates the queue with the
// default.
func TestWorkOnConcurrency(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	open := func() *Engine {
		e, err := Open(context.Background(), Config{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	concurrency := func(e *Engine) int {
		q, err := dbos.RetrieveQueue(e.dbos, batchQueue)
		if err != nil {
			t.Fatal(err)
		}
		c := q.GetWorkerConcurrency()
		if c == nil {
			return -1 // unlimited
		}
		return *c
	}
	for _, step := range []struct {
		workers, want int
	}{
		{0, DefaultWorkers}, // a new queue, from a process that only enqueues
		{2, 2},              // a worker sets it
		{0, 2},              // a coordinator that only enqueues leaves it
		{3, 3},              // the latest worker sets it
	} {
		e := open()
		if err := e.workOn(step.workers); err != nil {
			t.Fatal(err)
		}
		if got := concurrency(e); got != step.want {
			t.Errorf("after a process with %d workers: the queue's worker concurrency is %d, want %d", step.workers, got, step.want)
		}
	}
}

// TestRequeueKeepsOwnTasks: a process never puts back on the queue a
// task it is running itself, even when its own heartbeat looks stale (a
// slow write, a busy machine): that would run the task twice at once.
func TestRequeueKeepsOwnTasks(t *testing.T) {
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	run := func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error) {
		started <- struct{}{}
		<-release
		return Outcome{}, nil
	}
	e, err := Open(context.Background(), Config{DB: "sqlite:" + filepath.Join(t.TempDir(), "runs.db"), Run: run})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := make(chan error, 1)
	go func() {
		_, err := e.Batch(context.Background(), BatchOptions{ID: "own", Tasks: []string{`{}`}, Workers: 1})
		done <- err
	}()
	<-started
	// The heartbeat of this process is gone, as if it had not been
	// written for longer than StaleAfter.
	if _, err := e.db.Exec(`DELETE FROM agentsh_executors`); err != nil {
		t.Fatal(err)
	}
	if err := e.requeue(context.Background(), "own"); err != nil {
		t.Fatal(err)
	}
	list, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterWorkflowIDs("own-0"))
	if err != nil || len(list) != 1 {
		t.Fatalf("list the task: %v (%d)", err, len(list))
	}
	if list[0].Status != dbos.WorkflowStatusPending {
		t.Errorf("the task this process runs is %s after a requeue, want PENDING (left with this process)", list[0].Status)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(started); n != 0 {
		t.Errorf("the task started %d more times", n)
	}
}

// TestTakenOverTask: a task whose process looked gone (a stale
// heartbeat) goes back on the queue and another process finishes it;
// when the first process goes on, it stops its execution without
// cancelling the run the other process finished, and the batch it waits
// for gets the task's outcome.
func TestTakenOverTask(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	slow := func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error) {
		j.Clock()()
		started <- struct{}{}
		<-release
		j.Clock()()
		io.WriteString(out, "slow")
		return Outcome{}, nil
	}
	fast := func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error) {
		j.Clock()()
		j.Clock()()
		io.WriteString(out, "fast")
		return Outcome{}, nil
	}
	a, done := startTask(t, db, slow)
	<-started
	// Another process finds a's heartbeat stale and puts the task back
	// on the queue; it takes the task and finishes it.
	b := takeOver(t, db, a, fast)
	testwait.Until(t, "the other process takes the task over and finishes it", func() bool {
		info, err := b.Run(context.Background(), "over-0")
		if err != nil {
			t.Fatal(err)
		}
		if info.State == StateDone {
			return true
		}
		if err := b.requeue(context.Background(), "over"); err != nil {
			t.Fatal(err)
		}
		return false
	})
	close(release)
	finishedByOther(t, <-done, b)
}

// TestTakenOverInStep: as TestTakenOverTask, with the first process inside
// a step when the other takes the task over, and going on while the other
// still runs it: its step's record is refused; it must stop without
// cancelling the other's execution, and wait for the other's outcome.
func TestTakenOverInStep(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	inStep := make(chan struct{}, 1)
	releaseA := make(chan struct{})
	bWaits := make(chan struct{}, 1)
	releaseB := make(chan struct{})
	slow := func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error) {
		if _, _, err := step(j, "work", func(context.Context) (int, error) {
			inStep <- struct{}{}
			<-releaseA
			return 1, nil
		}); err != nil {
			return Outcome{}, err
		}
		io.WriteString(out, "slow")
		return Outcome{}, nil
	}
	fast := func(ctx context.Context, j *Journal, spec Spec, out io.Writer) (Outcome, error) {
		if _, _, err := step(j, "work", func(context.Context) (int, error) { return 2, nil }); err != nil {
			return Outcome{}, err
		}
		bWaits <- struct{}{}
		<-releaseB
		if _, _, err := step(j, "after", func(context.Context) (int, error) { return 3, nil }); err != nil {
			return Outcome{}, err
		}
		io.WriteString(out, "fast")
		return Outcome{}, nil
	}
	a, done := startTask(t, db, slow)
	<-inStep
	b := takeOver(t, db, a, fast)
	if err := b.requeue(context.Background(), "over"); err != nil {
		t.Fatal(err)
	}
	<-bWaits
	a.mu.Lock()
	aReturned := a.active["over-0"]
	a.mu.Unlock()
	if aReturned == nil {
		t.Fatal("a is not executing the task it is inside a step of")
	}
	close(releaseA) // a's step ends, and its record is refused
	// a stops: had it (wrongly) cancelled the run b executes, it did so
	// before its execution returned.
	testwait.Within(t, "the first process's execution to return", func() { <-aReturned })
	close(releaseB)
	finishedByOther(t, <-done, b)
}

// finishedByOther checks the end of a task taken over: the first
// process's batch returned the outcome of the process b that finished
// it ("fast"), and the task is done.
func finishedByOther(t *testing.T, r batchResult, b *Engine) {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.r[0]; got.ExitCode != 0 || got.Stdout != "fast" || got.Error != "" {
		t.Errorf("the task's result: %+v, want the outcome of the process that finished it", got)
	}
	info, err := b.Run(context.Background(), "over-0")
	if err != nil || info.State != StateDone {
		t.Errorf("the task is %s (%v) after the first process went on, want done", info.State, err)
	}
}

// batchResult is what Batch returned.
type batchResult struct {
	r   []TaskResult
	err error
}

// startTask opens an engine on db that runs a batch of one task, "over-0",
// with run, and returns it and what its Batch will return.
func startTask(t *testing.T, db string, run Runner) (*Engine, <-chan batchResult) {
	t.Helper()
	a, err := Open(context.Background(), Config{DB: db, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	done := make(chan batchResult, 1)
	go func() {
		r, err := a.Batch(context.Background(), BatchOptions{ID: "over", Tasks: []string{`{}`}, Workers: 1})
		done <- batchResult{r, err}
	}()
	return a, done
}

// takeOver opens a second engine on db, working the batch queue with run,
// for which a looks gone: its heartbeat is deleted.
func takeOver(t *testing.T, db string, a *Engine, run Runner) *Engine {
	t.Helper()
	b, err := Open(context.Background(), Config{DB: db, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.db.Exec(`DELETE FROM agentsh_executors WHERE id = $1`, a.executor); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go b.Work(ctx, 1)
	t.Cleanup(func() { cancel(); b.Close() })
	return b
}
