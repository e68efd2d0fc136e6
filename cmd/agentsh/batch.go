package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	tasks, err := readTasks(o.positional[0])
	if err != nil {
		return exitUsage, err
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
	spec.Settings = batchSettings(args, o.positional[0], script)
	id := o.runID
	if id == "" {
		id = "batch-" + agentsh.HashText(strings.Join(append([]string{spec.ScriptHash, agentsh.HashText(strings.Join(tasks, "\n"))}, spec.Settings...), "\x00"))[:12]
	}
	results, err := eng.Batch(ctx, agentsh.BatchOptions{ID: id, Spec: spec, Tasks: tasks, Workers: workers, Progress: std.err})
	if err != nil {
		return exitError, err
	}
	var buf bytes.Buffer
	code := exitOK
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return exitError, err
		}
		switch {
		case r.ExitCode == exitWaiting && code == exitOK:
			code = exitWaiting
		case r.ExitCode != exitOK && r.ExitCode != exitWaiting:
			code = exitError
		}
	}
	if err := writeFileAtomic(o.batchOut, buf.Bytes()); err != nil {
		return exitError, fmt.Errorf("%v; the tasks' runs are kept in %s: run the same command with another --out to write their results", err, eng.DB())
	}
	return code, nil
}

// readTasks reads the tasks file: one task a line; blank lines are not
// tasks.
func readTasks(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("batch: read the tasks: %v; give a file of JSON objects, one task a line", err)
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
		return nil, fmt.Errorf("batch: read %s: %v", path, err)
	}
	return tasks, nil
}

// batchSettings are the settings of each task's run: agentsh run with the
// batch's flags but its own (paths made absolute, see runSettings), on
// the script.
func batchSettings(args []string, tasks, script string) []string {
	keep := []string{"run"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "batch" || a == tasks:
		case strings.HasPrefix(a, "-") && (batchFlags[name] || durableFlags[name]):
			if !hasValue && name != "durable" && name != "force" {
				i++
			}
		default:
			keep = append(keep, a)
		}
	}
	return append(runSettings(keep), script)
}

// writeFileAtomic writes data to path through a temporary file, so that
// path holds all of it or what it held before.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write results to %s: %v", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write results to %s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write results to %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write results to %s: %v", path, err)
	}
	return nil
}
