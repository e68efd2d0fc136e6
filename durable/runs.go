package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// RunInfo is what the database knows of a run.
type RunInfo struct {
	ID   string `json:"id"`
	Spec Spec   `json:"spec"`
	// State is one of: queued (a batch task not started), running,
	// interrupted (its process is gone: resume it), waiting (for an
	// approval), stopped (would decide differently), done, failed.
	State   string    `json:"state"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Outcome is set once the run is done.
	Outcome *Outcome `json:"outcome,omitempty"`
	// Error says why a failed run failed.
	Error string `json:"error,omitempty"`
	// Pending are the run's approvals that wait for a decision.
	Pending []Approval `json:"pending,omitempty"`

	executor string // the process running it
}

// The states of a run.
const (
	StateQueued      = "queued"
	StateRunning     = "running"
	StateInterrupted = "interrupted"
	StateWaiting     = "waiting"
	StateStopped     = "stopped"
	StateDone        = "done"
	StateFailed      = "failed"
)

// Ended reports whether the run is done: resuming it prints its output.
func (r RunInfo) Ended() bool { return r.State == StateDone }

// Run returns what the database knows of run id.
func (e *Engine) Run(ctx context.Context, id string) (RunInfo, error) {
	if err := CheckID(id); err != nil {
		return RunInfo{}, err
	}
	list, err := e.runs(ctx, dbos.WithFilterWorkflowIDs(id))
	if err != nil {
		return RunInfo{}, err
	}
	if len(list) == 0 {
		return RunInfo{}, fmt.Errorf("run %q: %w; list them with agentsh runs", id, ErrNoRun)
	}
	return list[0], nil
}

// Runs lists the runs, oldest first.
func (e *Engine) Runs(ctx context.Context) ([]RunInfo, error) { return e.runs(ctx) }

func (e *Engine) runs(ctx context.Context, filter ...dbos.ListWorkflowsOption) ([]RunInfo, error) {
	opts := append([]dbos.ListWorkflowsOption{dbos.WithFilterName(workflowName),
		dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(true)}, filter...)
	list, err := dbos.ListWorkflows(e.dbos, opts...)
	if err != nil {
		return nil, fmt.Errorf("list runs in %s: %v", e.DB(), err)
	}
	pending, err := e.Approvals(ctx, false)
	if err != nil {
		return nil, err
	}
	alive, err := e.aliveExecutors(ctx)
	if err != nil {
		return nil, err
	}
	byRun := map[string][]Approval{}
	for _, a := range pending {
		byRun[a.Run] = append(byRun[a.Run], a)
	}
	infos := make([]RunInfo, 0, len(list))
	for _, w := range list {
		info := RunInfo{ID: w.ID, Created: w.CreatedAt.UTC(), Updated: w.UpdatedAt.UTC(), Pending: byRun[w.ID]}
		if err := decodeAs(w.Input, &info.Spec); err != nil {
			return nil, fmt.Errorf("run %s: its spec: %v", w.ID, err)
		}
		switch w.Status {
		case dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusDelayed:
			info.State = StateQueued
		case dbos.WorkflowStatusPending:
			info.State = StateRunning
			info.executor = w.ExecutorID
			if !e.alive(w.ExecutorID, alive) {
				info.State = StateInterrupted
			}
		case dbos.WorkflowStatusCancelled:
			info.State = StateStopped
			if len(info.Pending) > 0 {
				info.State = StateWaiting
			}
		case dbos.WorkflowStatusSuccess:
			info.State = StateDone
			var o Outcome
			if err := decodeAs(w.Output, &o); err != nil {
				return nil, fmt.Errorf("run %s: its outcome: %v", w.ID, err)
			}
			info.Outcome = &o
		default:
			info.State = StateFailed
			if w.Error != nil {
				info.Error = w.Error.Error()
			}
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// decodeAs reads a value the database engine decoded as it could (a
// struct, a map, a JSON string) into v.
func decodeAs(from any, v any) error {
	if from == nil {
		return nil
	}
	var b []byte
	switch f := from.(type) {
	case string:
		b = []byte(f)
	case []byte:
		b = f
	default:
		var err error
		if b, err = json.Marshal(from); err != nil {
			return err
		}
	}
	return json.Unmarshal(b, v)
}
