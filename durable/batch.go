package durable

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/agentsh/agentsh/script"
)

// batchQueue is the durable queue of batch tasks, which every worker
// process takes tasks from.
const batchQueue = "agentsh-batch"

// DefaultWorkers is how many tasks a process runs at once by default.
const DefaultWorkers = 4

// BatchOptions configure Engine.Batch.
type BatchOptions struct {
	// ID names the batch; its tasks are the runs ID-0, ID-1, ... Running
	// the same batch again finishes it without redoing finished tasks.
	ID string
	// Spec is the run each task is: its Task, Batch, Index and ID are set
	// per task.
	Spec Spec
	// Tasks are the lines of the tasks file, one task each: a JSON object.
	Tasks []string
	// Workers is how many tasks this process runs at once (0: none; other
	// processes work). The queue's setting is shared by every process that
	// works on it: the latest to start working sets it; a process with 0
	// leaves it as it is.
	Workers int
	// Progress gets a progress line now and then (done, failed, running,
	// rate, ETA); nil prints none.
	Progress io.Writer
}

// TaskResult is one task's line of a batch's results.
type TaskResult struct {
	Index    int             `json:"index"`
	Run      string          `json:"run,omitempty"`
	ExitCode int             `json:"exit_code"`
	Stdout   string          `json:"stdout"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Batch runs one durable run per task on the batch queue, works on it
// with opts.Workers, and returns the results in task order once every task
// ended. A task whose line is not a JSON object fails with the reason and
// the batch goes on; a task parked at an approval ends with exit code 7
// and the approval in Error (decide it, and run the batch again).
func (e *Engine) Batch(ctx context.Context, opts BatchOptions) ([]TaskResult, error) {
	if err := CheckID(opts.ID); err != nil {
		return nil, err
	}
	if err := e.workOn(opts.Workers); err != nil {
		return nil, err
	}
	results := make([]TaskResult, len(opts.Tasks))
	handles := make([]dbos.WorkflowHandle[Outcome], len(opts.Tasks))
	bad := 0 // lines that are not tasks
	for i, line := range opts.Tasks {
		results[i] = TaskResult{Index: i}
		task, err := taskOf(line)
		if err != nil {
			results[i].ExitCode, results[i].Error = 2, fmt.Sprintf("task %d: %v", i, err)
			bad++
			continue
		}
		spec := opts.Spec
		spec.ID, spec.Task, spec.Batch, spec.Index = fmt.Sprintf("%s-%d", opts.ID, i), task, opts.ID, i
		results[i].Run = spec.ID
		if handles[i], err = dbos.RunWorkflow(e.dbos, e.workflow, spec, dbos.WithWorkflowID(spec.ID), dbos.WithQueue(e.queues[batchQueue])); err != nil {
			return nil, fmt.Errorf("enqueue task %d: %v", i, err)
		}
	}
	// Tasks stopped by a crash of their process, or parked at an
	// approval that has been decided since, go back on the queue.
	if err := e.requeue(ctx, opts.ID); err != nil {
		return nil, err
	}
	stop := e.progress(ctx, opts, bad)
	for i, h := range handles {
		if h == nil {
			continue
		}
		o, err := e.waitTask(ctx, opts.ID, h)
		if err != nil {
			results[i].ExitCode, results[i].Error = exitCodeOfStop(err), err.Error()
			continue
		}
		results[i].ExitCode, results[i].Stdout, results[i].Result, results[i].Error = o.ExitCode, o.Stdout, o.Result, o.Error
	}
	stop(results)
	return results, nil
}

// exitWaiting is the exit code of a task parked at an approval (as
// agentsh's).
const exitWaiting = 7

func exitCodeOfStop(err error) int {
	var st *Stopped
	if errors.As(err, &st) && st.Approval != nil {
		return exitWaiting
	}
	return 1
}

// taskOf checks a task line: a JSON object.
func taskOf(line string) (json.RawMessage, error) {
	s := strings.TrimSpace(line)
	v, err := script.DecodeJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, oneLine(s, 80))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", oneLine(s, 80))
	}
	return json.RawMessage(s), nil
}

// waitTask waits for a task to end, putting tasks back on the queue when
// the process that ran them is gone.
func (e *Engine) waitTask(ctx context.Context, batch string, h dbos.WorkflowHandle[Outcome]) (Outcome, error) {
	o, err := e.waitTicking(ctx, h.GetWorkflowID(), h, func() error { return e.requeue(ctx, batch) })
	if err != nil {
		return Outcome{}, e.taskStop(ctx, h.GetWorkflowID(), err)
	}
	return o, nil
}

// taskStop is why a task did not end: parked at an approval (its
// *Stopped), or err.
func (e *Engine) taskStop(ctx context.Context, id string, err error) error {
	if st := new(Stopped); errors.As(err, &st) {
		return err
	}
	info, ierr := e.Run(ctx, id)
	if ierr == nil && len(info.Pending) > 0 {
		return &Stopped{Run: id, Approval: &info.Pending[0]}
	}
	return err
}

// Work takes batch tasks from the queue, workers at a time, until ctx
// ends: a worker process for batches started elsewhere.
func (e *Engine) Work(ctx context.Context, workers int) error {
	if workers <= 0 {
		workers = DefaultWorkers
	}
	if err := e.workOn(workers); err != nil {
		return err
	}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := e.requeue(ctx, ""); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
}

// workOn registers the batch queue, worked by workers in this process,
// and starts the engine.
func (e *Engine) workOn(workers int) error {
	if e.isLaunched() {
		return nil
	}
	// The queue's worker concurrency is one setting in the database that
	// every process working on the queue reads: a process that works sets
	// it; one that only enqueues (workers 0) leaves it as the workers set
	// it, and creates the queue with the default if it is new.
	opts := []dbos.QueueOption{dbos.WithQueueBasePollingInterval(e.cfg.PollInterval)}
	if workers > 0 {
		opts = append(opts, dbos.WithWorkerConcurrency(workers), dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))
	} else {
		opts = append(opts, dbos.WithWorkerConcurrency(DefaultWorkers), dbos.WithQueueOnConflict(dbos.QueueConflictNeverUpdate))
	}
	q, err := dbos.RegisterQueue(e.dbos, batchQueue, opts...)
	if err != nil {
		return fmt.Errorf("register the batch queue: %v", err)
	}
	e.mu.Lock()
	e.queues[batchQueue] = q
	e.mu.Unlock()
	if workers > 0 {
		e.listenTo(batchQueue)
	}
	return e.launch()
}

// requeue puts back on the queue the tasks of batch ("" any batch) whose
// process is gone (no heartbeat for Config.StaleAfter), and those parked
// at an approval that has been decided since.
func (e *Engine) requeue(ctx context.Context, batch string) error {
	// A task's queue is not kept once it stops: tasks are told by their
	// spec.
	prefix := []dbos.ListWorkflowsOption{dbos.WithFilterName(workflowName), dbos.WithFilterLoadInput(true),
		dbos.WithFilterStatus(dbos.WorkflowStatusPending, dbos.WorkflowStatusCancelled)}
	if batch != "" {
		prefix = append(prefix, dbos.WithFilterWorkflowIDPrefix(batch+"-"))
	}
	list, err := dbos.ListWorkflows(e.dbos, prefix...)
	if err != nil {
		return fmt.Errorf("list batch tasks: %v", err)
	}
	if len(list) == 0 {
		return nil
	}
	alive, err := e.aliveExecutors(ctx)
	if err != nil {
		return err
	}
	decided, err := e.decidedRuns(ctx)
	if err != nil {
		return err
	}
	for _, w := range list {
		var spec Spec
		if err := decodeAs(w.Input, &spec); err != nil || spec.Batch == "" || (batch != "" && spec.Batch != batch) {
			continue
		}
		stale := w.Status == dbos.WorkflowStatusPending && !e.alive(w.ExecutorID, alive)
		answered := w.Status == dbos.WorkflowStatusCancelled && decided[w.ID] && e.parkedHere(w.ID) == nil
		if !stale && !answered {
			continue
		}
		if _, err := dbos.ResumeWorkflow[Outcome](e.dbos, w.ID, dbos.WithResumeQueue(batchQueue)); err != nil {
			return fmt.Errorf("put task %s back on the queue: %v", w.ID, err)
		}
		if answered {
			if _, err := e.db.ExecContext(ctx, `UPDATE agentsh_approvals SET requeued = 1 WHERE run = $1 AND state <> 'spent'`, w.ID); err != nil {
				return fmt.Errorf("task %s: %v", w.ID, err)
			}
		}
	}
	return nil
}

// decidedRuns are the runs with an approval decided (or expired) since
// they were last put back on the queue: parked, they go on.
func (e *Engine) decidedRuns(ctx context.Context) (map[string]bool, error) {
	rows, err := e.db.QueryContext(ctx, `SELECT DISTINCT run FROM agentsh_approvals WHERE requeued = 0 AND
		(state IN ('approved', 'denied', 'expired') OR (state = 'pending' AND expires_ms <= $1))`, time.Now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("read the decided approvals: %v", err)
	}
	defer rows.Close()
	runs := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		runs[id] = true
	}
	return runs, rows.Err()
}

// parkedHere returns why this process stopped run id, if it did and no
// one waited for it yet.
func (e *Engine) parkedHere(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stops[id]
}

// progress prints the batch's progress every second until stopped; the
// last line, printed by stop, counts the results.
func (e *Engine) progress(ctx context.Context, opts BatchOptions, bad int) func(results []TaskResult) {
	if opts.Progress == nil {
		return func([]TaskResult) {}
	}
	done := make(chan []TaskResult)
	finished := make(chan struct{})
	p := &batchProgress{e: e, opts: opts, bad: bad, start: time.Now(), exits: map[string]int{}}
	if done, failed, _, ok := p.count(); ok {
		p.base = done + failed
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case results := <-done:
				p.last(results)
				return
			case <-ctx.Done():
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
	return func(results []TaskResult) {
		select {
		case done <- results:
		case <-finished:
		}
		<-finished
	}
}

// batchProgress counts a batch's tasks for its progress line: done (exit
// code 0), failed (any other end, and lines that are not tasks), running.
type batchProgress struct {
	e     *Engine
	opts  BatchOptions
	bad   int // lines that are not tasks
	start time.Time
	exits map[string]int // run → exit code, of the tasks that are done
	base  int            // tasks that had ended before this process waited, not part of its rate
}

func (p *batchProgress) tick() {
	if done, failed, running, ok := p.count(); ok {
		p.print(done, failed, running, "\r")
	}
}

// count counts the tasks in the database.
func (p *batchProgress) count() (done, failed, running int, ok bool) {
	list, err := dbos.ListWorkflows(p.e.dbos, dbos.WithFilterName(workflowName), dbos.WithFilterWorkflowIDPrefix(p.opts.ID+"-"),
		dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return 0, 0, 0, false
	}
	// A task's exit code is in its output: read it once, when it is
	// done. A task stopped (parked, or failed) may go on later.
	var ended []string
	failed = p.bad
	for _, w := range list {
		if _, seen := p.exits[w.ID]; seen {
			continue
		}
		switch w.Status {
		case dbos.WorkflowStatusSuccess:
			ended = append(ended, w.ID)
		case dbos.WorkflowStatusError, dbos.WorkflowStatusCancelled:
			failed++
		case dbos.WorkflowStatusPending:
			running++
		}
	}
	if len(ended) > 0 {
		outs, err := dbos.ListWorkflows(p.e.dbos, dbos.WithFilterWorkflowIDs(ended...), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(true))
		if err != nil {
			return 0, 0, 0, false
		}
		for _, w := range outs {
			var o Outcome
			if decodeAs(w.Output, &o) == nil {
				p.exits[w.ID] = o.ExitCode
			}
		}
	}
	for _, code := range p.exits {
		if code == 0 {
			done++
		} else {
			failed++
		}
	}
	return done, failed, running, true
}

// last prints the final line, from the results.
func (p *batchProgress) last(results []TaskResult) {
	done, failed := 0, 0
	for _, r := range results {
		if r.ExitCode == 0 {
			done++
		} else {
			failed++
		}
	}
	p.print(done, failed, 0, "\n")
}

func (p *batchProgress) print(done, failed, running int, end string) {
	ended := done + failed
	elapsed := time.Since(p.start)
	rate := float64(ended-p.base) / elapsed.Seconds()
	eta := "-"
	if left := len(p.opts.Tasks) - ended; rate > 0 && left > 0 {
		eta = (time.Duration(float64(left)/rate) * time.Second).Round(time.Second).String()
	}
	fmt.Fprintf(p.opts.Progress, "batch %s: %d/%d done, %d failed, %d running, %.1f tasks/s, eta %s   %s", p.opts.ID, done, len(p.opts.Tasks), failed, running, rate, eta, end)
}

// ReadTasks reads a tasks file: one task a line; blank lines are not
// tasks.
func ReadTasks(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the tasks: %v; give a file of JSON objects, one task a line", err)
	}
	defer f.Close()
	var tasks []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.TrimSpace(line) != "" {
			tasks = append(tasks, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the tasks in %s: %v", path, err)
	}
	return tasks, nil
}

// BatchID names the batch of spec's script and settings over tasks, so
// that running the same batch again finds it.
func BatchID(spec Spec, tasks []string) string {
	parts := append([]string{spec.ScriptHash, HashBytes([]byte(strings.Join(tasks, "\n")))}, spec.Settings...)
	return "batch-" + HashBytes([]byte(strings.Join(parts, "\x00")))[:12]
}

// WriteResults writes results as JSON lines, in order, to path through a
// temporary file: path holds all of them or what it held before.
func WriteResults(path string, results []TaskResult) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err == nil {
		_, err = tmp.Write(buf.Bytes())
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("write results to %s: %v", path, err)
	}
	return nil
}
