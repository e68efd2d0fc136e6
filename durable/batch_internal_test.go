package durable

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
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
