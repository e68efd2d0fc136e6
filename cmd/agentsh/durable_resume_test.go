package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"github.com/agentsh/agentsh/internal/testwait"
)

// Resumes after a kill that the kill-point suite does not reach: a run
// whose model is a recording, and a resume while another run is on its
// way back.

// TestDurableResumeUnderReplayModel kills a durable run under --model
// replay:FILE after its fifth model request and resumes it: the resume
// must finish the run and print what the recorded run printed. The
// journal answers the first five requests, so the recording must go on
// from the sixth.
func TestDurableResumeUnderReplayModel(t *testing.T) {
	t.Parallel()
	recDir := killDir(t)
	rec := filepath.Join(recDir, "rec.jsonl")
	golden, stderr, err := killAgentsh(t, recDir, "", "--record", rec, "run", "run.star")
	if err != nil {
		t.Fatalf("agentsh --record: %v\n%s", err, stderr)
	}
	dir := killDir(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	model := "replay:" + rec
	out, stderr, err := killAgentsh(t, dir, "kill=after/model "+model+"/5",
		"--model", model, "run", "--durable", "--run-id", "r", "--db", db, "run.star", "replay")
	if !killedBySIGKILL(err) {
		t.Fatalf("agentsh run --durable --model %s: %v, want killed after the fifth model request\nstdout:\n%s\nstderr:\n%s", model, err, out, stderr)
	}
	final, stderr, err := killAgentsh(t, dir, "", "resume", "r", "--db", db)
	if err != nil {
		t.Fatalf("agentsh resume: %v, want it to finish the run\nstdout:\n%s\nstderr:\n%s", err, final, stderr)
	}
	if msg := killEndDiff(killGolden{stdout: golden}, dir, final, "r", nil); msg != "" {
		t.Error(msg)
	}
}

// TestDurableResumeRunsOnlyItsRun resumes run a while run c is on its
// way back (another process resumed it and has not started executing
// it): agentsh resume a must execute a, not c, whose own resumer waits
// for it and prints it.
func TestDurableResumeRunsOnlyItsRun(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "runs.db")
	dirA, dirC := killDir(t), killDir(t)
	for id, dir := range map[string]string{"a": dirA, "c": dirC} {
		out, stderr, err := killAgentsh(t, dir, "kill=after/run append/3", "run", "--durable", "--run-id", id, "--db", db, "run.star")
		if !killedBySIGKILL(err) {
			t.Fatalf("run %s: %v, want killed\nstdout:\n%s\nstderr:\n%s", id, err, out, stderr)
		}
	}
	// What agentsh resume c does before its engine starts: c goes back on
	// the queue of runs that its process alone works.
	ctx, err := dbos.NewContext(context.Background(), dbos.Config{AppName: "agentsh", DatabaseURL: db,
		ApplicationVersion: "agentsh-journal-1", ExecutorID: "resumer-of-c",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dbos.RegisterQueue(ctx, "agentsh-resume-of-c"); err != nil {
		t.Fatal(err)
	}
	if _, err := dbos.ResumeWorkflow[any](ctx, "c", dbos.WithResumeQueue("agentsh-resume-of-c")); err != nil {
		t.Fatal(err)
	}
	dbos.Shutdown(ctx, testwait.Bound(10*time.Second)) // returns as soon as it has stopped
	before, err := os.ReadFile(filepath.Join(dirC, "effects.log"))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := killAgentsh(t, dirA, "", "resume", "a", "--db", db)
	if err != nil {
		t.Fatalf("agentsh resume a: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	after, err := os.ReadFile(filepath.Join(dirC, "effects.log"))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Errorf("agentsh resume a executed run c too: c's effects went from\n%s\nto\n%s", before, after)
	}
}
