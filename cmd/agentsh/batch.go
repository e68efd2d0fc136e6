package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/agentsh/agentsh"
)

// batchFlags are agentsh batch's own flags, not settings of its tasks.
var batchFlags = map[string]bool{"script": true, "out": true, "workers": true}

// batch runs agentsh batch TASKS --script FILE --out RESULTS, and agentsh
// batch worker.
func batch(ctx context.Context, eng *agentsh.Runs, o *options, args []string, std stdio) (int, error) {
	workers := o.workers
	if workers < 0 {
		workers = agentsh.DefaultWorkers
	}
	if len(o.positional) == 1 && o.positional[0] == "worker" {
		if workers == 0 {
			return exitUsage, usagef("a batch worker runs tasks: --workers N with N at least 1")
		}
		fmt.Fprintf(std.err, "agentsh: taking batch tasks from %s until stopped\n", eng.DB())
		return exitOK, eng.Work(ctx, workers)
	}
	if len(o.positional) != 1 || o.batchScript == "" || o.batchOut == "" {
		return exitUsage, usagef("batch needs tasks, a script and a results file: agentsh batch TASKS.jsonl --script FILE --out RESULTS.jsonl")
	}
	// A results file that cannot be written is found out now, before
	// the tasks run, not at their end.
	if dir := filepath.Dir(o.batchOut); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return exitUsage, usagef("batch --out %s: its directory %s does not exist; create it, or give --out a path in an existing directory", o.batchOut, dir)
		}
	}
	tasks, err := agentsh.ReadTasks(o.positional[0])
	if err != nil {
		return exitUsage, usagef("batch: %v", err)
	}
	script, err := filepath.Abs(o.batchScript)
	if err != nil {
		return exitUsage, err
	}
	spec, err := newSpec(&options{command: "run", positional: []string{script}, workdir: o.workdir, approve: o.approve,
		approvalTTL: o.approvalTTL, durable: true}, nil)
	if err != nil {
		return exitUsage, err
	}
	spec.Settings = batchSettings(args)
	id := o.runID
	if id == "" {
		id = agentsh.BatchID(spec, tasks)
	}
	results, err := eng.Batch(ctx, agentsh.BatchOptions{ID: id, Spec: spec, Tasks: tasks, Workers: workers, Progress: std.err})
	if err != nil {
		return exitError, err
	}
	code := exitOK
	for _, r := range results {
		switch {
		case r.ExitCode == exitWaiting && code == exitOK:
			code = exitWaiting
		case r.ExitCode != exitOK && r.ExitCode != exitWaiting:
			code = exitError
		}
	}
	if err := agentsh.WriteResults(o.batchOut, results); err != nil {
		return exitError, fmt.Errorf("%v; the tasks' runs are kept in %s: run the same command with another --out to write their results", err, eng.DB())
	}
	return code, nil
}

// batchSettings are the settings of each task's run: agentsh run with the
// batch's flags but its own (see runSettings).
func batchSettings(args []string) []string {
	drop := maps.Clone(batchFlags)
	maps.Copy(drop, durableFlags)
	s := runSettings("batch", args, drop)
	s[0] = "run"
	return s
}
