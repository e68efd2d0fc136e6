package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentshCmd returns a command that runs this test binary as agentsh.
func agentshCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "XDG_STATE_HOME="+t.TempDir())
	cmd.Dir = t.TempDir()
	return cmd
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("running agentsh: %v", err)
	}
	return ee.ExitCode()
}

// TestExitCodes checks DESIGN §8: 0 ok, 1 script error or failed call,
// 2 usage.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"ok snippet", []string{"-c", "1"}, 0},
		{"help", []string{"help"}, 0},
		{"script error", []string{"-c", "fail('x')"}, 1},
		{"syntax error", []string{"-c", "print("}, 1},
		{"missing script", []string{"run", "missing.star"}, 1},
		{"failed call", []string{"call", "nope"}, 1},
		{"run timed out", []string{"--timeout", "50ms", "-c", "while True: pass"}, 1},
		{"unknown flag", []string{"--nope"}, 2},
		{"unknown command", []string{"nope"}, 2},
		{"run without file", []string{"run"}, 2},
		{"bad mode", []string{"--mode", "x", "-c", "1"}, 2},
		{"call without tool", []string{"call"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := agentshCmd(t, tt.args...).CombinedOutput()
			if got := exitCode(t, err); got != tt.want {
				t.Errorf("agentsh %s: exit %d, want %d\noutput:\n%s", strings.Join(tt.args, " "), got, tt.want, out)
			}
		})
	}
}

// TestInterruptExitCode sends SIGINT to a run stuck in a loop: the run is
// cancelled and agentsh exits 130.
func TestInterruptExitCode(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "spin.star")
	if err := os.WriteFile(script, []byte("print('ready')\nwhile True:\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := agentshCmd(t, "--max-steps", "100000000000", "run", script)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("waiting for the script to start: %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if got := exitCode(t, err); got != 130 {
			t.Fatalf("exit %d after SIGINT, want 130; stderr:\n%s", got, stderr.String())
		}
		if !strings.Contains(stderr.String(), "agentsh: interrupted") {
			t.Errorf("stderr %q does not say the run was interrupted", stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("agentsh did not stop after SIGINT")
	}
}
