package durable

import (
	"context"
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
