package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPipelineRun(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	// yes never ends by itself: head closing the pipe must end it, and
	// its SIGPIPE is not a failure.
	s, err := pipeline{{path: "yes", args: []string{"y"}}, {path: "head", args: []string{"-3"}}}.run(ctx, &out)
	if err != nil || out.String() != "y\ny\ny\n" || s.outBytes != 6 || s.wall <= 0 {
		t.Errorf("yes | head -3: got %q (%d bytes, wall %v), %v; want three lines", out.String(), s.outBytes, s.wall, err)
	}
	out.Reset()
	if _, err := (pipeline{{path: "sh", args: []string{"-c", "cat; exit 1"}, okCodes: []int{1}, stdin: "in\n"}}).run(ctx, &out); err != nil || out.String() != "in\n" {
		t.Errorf("a stage that exits with an allowed status: got %q, %v; want its stdin echoed, no error", out.String(), err)
	}
	_, err = pipeline{{path: "sh", args: []string{"-c", "echo broken >&2; exit 3"}}}.run(ctx, &out)
	var es *errStage
	if !errors.As(err, &es) || !strings.Contains(err.Error(), "exit status 3: broken") {
		t.Errorf("a failing stage: got %v, want its status and stderr", err)
	}
	_, err = pipeline{{path: "sh", args: []string{"-c", "kill -PIPE $$"}}}.run(ctx, &out)
	if err == nil {
		t.Error("the last stage killed by SIGPIPE passed; only a stage before the last may die of it")
	}
	if _, err := (pipeline{{path: filepath.Join(t.TempDir(), "missing")}}).run(ctx, &out); err == nil {
		t.Error("a program that does not exist started")
	}
}

// TestLaunchRSS: a command started through the launcher reports its own
// peak RSS, not the harness's: the test holds 64 MiB while `true` runs.
func TestLaunchRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the inherited high-water mark is Linux's behaviour")
	}
	needPrograms(t, "go")
	self := testLauncher(t)
	ballast := bytes.Repeat([]byte{1}, 64<<20)
	var out bytes.Buffer
	s, err := pipeline{{path: "sh", args: []string{"-c", "echo hi; echo err >&2"}}}.launch(context.Background(), self, &out)
	runtime.KeepAlive(ballast)
	if err != nil || out.String() != "hi\n" {
		t.Fatalf("launch: got %q, %v; want hi", out.String(), err)
	}
	if s.maxRSS <= 0 || s.maxRSS > 32<<20 {
		t.Errorf("peak RSS of sh through the launcher: %d bytes, want above 0 and well under the test's 64 MiB", s.maxRSS)
	}
	_, err = pipeline{{path: "sh", args: []string{"-c", "echo why >&2; exit 4"}}}.launch(context.Background(), self, &out)
	if err == nil || !strings.Contains(err.Error(), "exit status 4: why") {
		t.Errorf("a failure through the launcher: got %v, want the stage's status and stderr", err)
	}
}

func TestLaunchCancel(t *testing.T) {
	needPrograms(t, "go")
	self := testLauncher(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (pipeline{{path: "sleep", args: []string{"10"}}}).launch(ctx, self, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled launch: got %v, want context.Canceled", err)
	}
}

func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "12345")
	write("sub/b.txt", strings.Repeat("x", 300<<10)) // more than one read buffer
	write(".hidden", "skipped")
	write(".git/config", "skipped")
	if err := os.Symlink("a.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	files, n, err := readAll(dir)
	if err != nil || files != 2 || n != 5+300<<10 {
		t.Errorf("readAll: %d files, %d bytes, %v; want 2 files, %d bytes (no hidden file, no link)", files, n, err, 5+300<<10)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--quick", "--runs", "7", "--rows", "9,1,9"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.runs != 7 || cfg.startupRuns != 20 || len(cfg.sizes) != 1 || cfg.sizes[0] != 1 || cfg.benchtime != "200ms" {
		t.Errorf("--quick with --runs 7: got runs %d, startup runs %d, sizes %v, benchtime %s; want 7, 20, [1], 200ms", cfg.runs, cfg.startupRuns, cfg.sizes, cfg.benchtime)
	}
	if len(cfg.rows) != 2 || cfg.rows[0] != 1 || cfg.rows[1] != 9 {
		t.Errorf("--rows 9,1,9: got %v, want [1 9]", cfg.rows)
	}
	full, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil || len(full.sizes) != 3 || full.runs != 5 || len(full.rows) != 12 || full.batchTasks != 2000 || full.batchRuns != 3 || full.agentTurns != 50 {
		t.Errorf("defaults: got %+v, %v; want sizes 1,4,16, 5 runs, every row, 50 agent turns, 2000 batch tasks, 3 batch runs", full, err)
	}
	for _, args := range [][]string{{"--rows", "13"}, {"--batch-tasks", "0"}, {"--batch-runs", "0"}, {"--rows", "x"}, {"--sizes", "0"}, {"--runs", "0"}, {"--agent-turns", "0"}, {"extra"}} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted it; want an error", args)
		}
	}
}

func TestExtractRev(t *testing.T) {
	needPrograms(t, "git", "tar")
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "f.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f.txt")
	git("commit", "-q", "-m", "one")
	if err := os.WriteFile(filepath.Join(repo, "f.txt"), []byte("new, not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "base")
	short, err := extractRev(context.Background(), repo, "HEAD", dst)
	if err != nil || len(short) < 7 {
		t.Fatalf("extractRev: %q, %v", short, err)
	}
	if data, err := os.ReadFile(filepath.Join(dst, "f.txt")); err != nil || string(data) != "old\n" {
		t.Errorf("extracted f.txt: %q, %v; want the committed text", data, err)
	}
	if _, err := extractRev(context.Background(), repo, "no-such-rev", filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "is not a revision") {
		t.Errorf("a revision that does not exist: got %v, want an error naming it", err)
	}
}
