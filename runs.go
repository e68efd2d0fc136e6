package agentsh

import (
	"context"
	"io"

	"github.com/agentsh/agentsh/durable"
)

// Durable runs outlive the process (see the durable package and
// docs/durable.md): a Runner composes a shell WithJournal for each
// execution of a run; OpenRuns opens the database of runs.
type (
	// Runs is a process's handle on the database of durable runs.
	Runs = durable.Engine
	// RunsConfig configures OpenRuns.
	RunsConfig = durable.Config
	// Runner executes one execution of a run.
	Runner = durable.Runner
	// RunJournal is one execution of a run (see WithJournal).
	RunJournal = durable.Journal
	// RunSpec is what a run is: its script or prompt and settings.
	RunSpec = durable.Spec
	// RunOutcome is how a run ended.
	RunOutcome = durable.Outcome
	// RunInfo is what the database knows of a run.
	RunInfo = durable.RunInfo
	// RunStopped is the error of a run parked at an approval or stopped
	// because it would decide differently than its journal.
	RunStopped = durable.Stopped
	// ResumeOptions configure Runs.Resume.
	ResumeOptions = durable.ResumeOptions
	// Approval is an ask of an unattended run that waits for a decision.
	Approval = durable.Approval
	// DecideOptions say what Runs.Decide decides.
	DecideOptions = durable.DecideOptions
	// BatchOptions configure Runs.Batch.
	BatchOptions = durable.BatchOptions
)

// OpenRuns opens (creating on first use) the database of durable runs.
func OpenRuns(ctx context.Context, cfg RunsConfig) (*Runs, error) { return durable.Open(ctx, cfg) }

// DefaultWorkers is how many batch tasks a process runs at once by
// default.
const DefaultWorkers = durable.DefaultWorkers

// WriteRuns prints runs one a line, or as JSON lines.
func WriteRuns(w io.Writer, runs []RunInfo, asJSON bool) error {
	return durable.WriteRuns(w, runs, asJSON)
}

// WriteApprovals prints approvals one a line, or as JSON lines.
func WriteApprovals(w io.Writer, list []Approval, asJSON bool) error {
	return durable.WriteApprovals(w, list, asJSON)
}

// ReadTasks reads a batch's tasks file: one task a line.
func ReadTasks(path string) ([]string, error) { return durable.ReadTasks(path) }

// BatchID names a batch by its script, settings and tasks.
func BatchID(spec RunSpec, tasks []string) string { return durable.BatchID(spec, tasks) }

// WriteResults writes a batch's results, in task order, to path.
func WriteResults(path string, results []durable.TaskResult) error {
	return durable.WriteResults(path, results)
}

// HashFile is the SHA-256 of a file's content, as a run keeps its
// script's.
func HashFile(path string) (string, error) { return durable.HashFile(path) }

// PolicyHash is what a run's deferred approvals are bound to: its
// settings and the content of its files as this execution reads them.
func PolicyHash(settings []string, files ...string) string {
	return durable.PolicyHash(settings, files...)
}
