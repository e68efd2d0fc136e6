package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyTree writes a tree with the corners the output checks must get
// right: a directory x next to x.go (rg's order and agentsh's differ), a
// line longer than agentsh prints, an ignored file outside any git
// repository, a hidden directory, a binary file, a literal for row 6.
func tinyTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	files := map[string]string{
		"a.go":          "package a\n\nfunc A() {}\n// TODO: more\nfunc B() {}\n",
		"x.go":          "package x\nfunc X() {}\n",
		"x/y.go":        "package y\nfunc Y() { atomic.AddInt64(&n, 1) }\n",
		"long.go":       "package long\nvar s = \"" + strings.Repeat("func ", 700) + "\"\n",
		"ignored.go":    "func ignored() {}\n",
		".gitignore":    "ignored.go\n",
		".hidden/h.go":  "func hidden() {}\n",
		"notes.txt":     "todo: nothing to do with func\n",
		"bin/blob.dat":  "\x00\x01func\n",
		"deep/a/b/c.go": "package c\n// ToDo\n",
	}
	for rel, data := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testConfig(t *testing.T, rows ...int) config {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return config{self: testLauncher(t), repo: filepath.Join(wd, "..", ".."), src: tinyTree(t), tmp: t.TempDir(), sizes: []int{2}, rows: rows,
		runs: 1, startupRuns: 1, benchCount: 1, benchtime: "1x", agentTurns: 1, batchTasks: 3, batchRuns: 1, rg: "rg", fd: "fdfind"}
}

// TestHarnessQuick runs every row but the Go benchmarks, once each, on
// two hard-linked copies of a tiny tree, and row 11's agent run with one
// turn and row 12 with a batch of 3 tasks: agentsh is built, every output check passes, every row prints,
// and the temporary directory is gone afterwards.
func TestHarnessQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentsh and runs it some hundred times; skipped in -short")
	}
	needPrograms(t, "rg", "fdfind", "go")
	cfg := testConfig(t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12)
	var out bytes.Buffer
	if err := run(context.Background(), cfg, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{"load average at start:", "load average at end:", "peak RSS floor:", "| row | case |",
		"2× files_with_matches", "2× content", "lines equal the reference", `printed "hello, world\n"`, "new/minstar wall",
		"reads .env, writes .git", `"4 commands, every output as expected"`,
		`"20 calls, every result as expected"`, "durable/plain wall", "workers=16 tasks/s", "scripted tasks on Postgres"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report has no %q", want)
		}
	}
	for _, r := range cfg.rows {
		if !strings.Contains(text, fmt.Sprintf("== row %d:", r)) {
			t.Errorf("the report has no row %d", r)
		}
	}
	if strings.Contains(text, "FAILED") {
		t.Errorf("a case failed:\n%s", text)
	}
	if t.Failed() {
		t.Logf("report:\n%s", text)
	}
	if left, _ := os.ReadDir(cfg.tmp); len(left) != 0 {
		t.Errorf("the run left %d entries in its temporary directory's parent: %v", len(left), left)
	}
}

// TestHarnessCatchesWrongOutput: an agentsh that answers fast and wrong
// fails its case, and the run fails naming the line.
func TestHarnessCatchesWrongOutput(t *testing.T) {
	needPrograms(t, "rg", "fdfind", "go")
	cfg := testConfig(t, 3)
	cfg.sizes = []int{1}
	cfg.newBinary = filepath.Join(t.TempDir(), "agentsh")
	if err := os.WriteFile(cfg.newBinary, []byte("#!/bin/sh\necho a.go:3:func A\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(context.Background(), cfg, &out)
	if err == nil {
		t.Fatalf("run passed an agentsh that prints one line for every search:\n%s", out.String())
	}
	if !strings.Contains(err.Error(), "differs from the reference") || !strings.Contains(out.String(), "FAILED") {
		t.Errorf("got %v and a report without FAILED; want the difference named:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `0 lines equal the reference`) && !strings.Contains(err.Error(), "got 1 lines, want 0") {
		t.Errorf("the pattern found nowhere: want the fake's one line reported against none:\n%v", err)
	}
}

// TestSandboxScriptCatchesWrongOutput: testdata/sandbox200.star checks
// every command's output itself, so a run in which one command
// does something else fails naming it, and a turn count below 1 is
// refused.
func TestSandboxScriptCatchesWrongOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentsh; skipped in -short")
	}
	needPrograms(t, "go", "sh")
	ctx := context.Background()
	repo := testConfig(t).repo
	bin := filepath.Join(t.TempDir(), "agentsh")
	if err := buildAgentsh(ctx, repo, bin); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeProject(dir); err != nil {
		t.Fatal(err)
	}
	// out/t2 is a file: turn 2's mkdir fails, and so does its check.
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out", "t2"), []byte("in the way\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repo, "internal", "benchrun", "testdata", "sandbox200.star")
	var out bytes.Buffer
	_, err := pipeline{{path: bin, dir: dir, args: []string{"--sandbox", "off", "run", script, "2"},
		env: []string{"XDG_STATE_HOME=" + t.TempDir()}}}.run(ctx, &out)
	if err == nil || !strings.Contains(out.String()+err.Error(), "command 5 (mkdir -p out/t2") {
		t.Errorf("a run whose fifth command fails: got %v, want the script to fail naming command 5:\n%s", err, out.String())
	}
	out.Reset()
	_, err = pipeline{{path: bin, dir: dir, args: []string{"--sandbox", "off", "run", script, "0"},
		env: []string{"XDG_STATE_HOME=" + t.TempDir()}}}.run(ctx, &out)
	if err == nil || !strings.Contains(err.Error(), "TURNS 0: want 1 or more") {
		t.Errorf("0 turns: got %v, want it refused", err)
	}
}
