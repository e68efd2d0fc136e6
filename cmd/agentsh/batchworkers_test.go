package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBatchWorkersZero: agentsh batch --workers 0 enqueues the tasks and
// runs none of them itself (alone, it waits until its --timeout); with an
// agentsh batch worker process on the same database, the same batch
// finishes with every task's result. A worker of no workers, and a
// negative count, are refused.
func TestBatchWorkersZero(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"tasks.jsonl": "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n",
		"t.star":      "print(task[\"n\"] * 10)\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := "sqlite:" + filepath.Join(dir, "runs.db")
	env := append(os.Environ(), "AGENTSH_MAIN=1", "AGENTSH_DB=", "XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	agentsh := func(ctx context.Context, args ...string) *exec.Cmd {
		c := exec.CommandContext(ctx, self, args...)
		c.Dir, c.Env = dir, env
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coordinator := []string{"batch", "tasks.jsonl", "--script", "t.star", "--out", "results.jsonl", "--db", db, "--workers", "0"}

	out, err := agentsh(ctx, append(coordinator, "--timeout", "1s")...).CombinedOutput()
	if err == nil {
		t.Fatalf("--workers 0 with no worker finished:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "results.jsonl")); strings.Contains(string(b), `"stdout":"10\n"`) {
		t.Fatalf("--workers 0 ran a task itself:\n%s", b)
	}

	worker := agentsh(ctx, "batch", "worker", "--db", db, "--workers", "2")
	var werr bytes.Buffer
	worker.Stderr = &werr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		worker.Process.Kill()
		worker.Wait()
	}()
	if out, err := agentsh(ctx, coordinator...).CombinedOutput(); err != nil {
		t.Fatalf("the batch with a worker: %v\n%s\nthe worker said:\n%s", err, out, werr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("results: %d lines, want 3:\n%s", len(lines), b)
	}
	for i, l := range lines {
		if want := `"stdout":"` + []string{"10", "20", "30"}[i] + `\n"`; !strings.Contains(l, want) || !strings.Contains(l, `"exit_code":0`) {
			t.Errorf("result %d: %s; want exit 0 and %s", i, l, want)
		}
	}

	for _, args := range [][]string{{"batch", "worker", "--workers", "0"}, {"batch", "worker", "--workers", "-1"}} {
		out, err := agentsh(ctx, append(args, "--db", db)...).CombinedOutput()
		if code := exitCode(t, err); code != exitUsage || !strings.Contains(string(out), "--workers") {
			t.Errorf("agentsh %s: exit %d, %s; want exit %d naming --workers", strings.Join(args, " "), code, out, exitUsage)
		}
	}
}
