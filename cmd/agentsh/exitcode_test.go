package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
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

// TestExitCodes checks the exit codes the README's command-line section
// lists: 0 ok, 1 script error or failed call, 2 usage, and a few of the
// headless codes (headless.txtar has them all).
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
		{"extra argument", []string{"tools", "extra"}, 2},
		{"run without file", []string{"run"}, 2},
		{"bad mode", []string{"--mode", "x", "-c", "1"}, 2},
		{"call without tool", []string{"call"}, 2},
		{"ask without prompt", []string{"ask"}, 2},
		{"ask without a model", []string{"ask", "hi"}, 1},
		{"ask at its turn limit", []string{"--max-turns", "1", "-c", `model(lambda m, t: {"tool_calls": [{"name": "nope"}]}); ask("go")`}, 3},
		{"exit(3)", []string{"-c", "exit(3)"}, 3},
		{"exit() is 0", []string{"-c", "print(1); exit(); fail('x')"}, 0},
		{"lua exit(4)", []string{"--lang", "lua", "-c", "exit(4)"}, 4},
		{"exit(255)", []string{"-c", "exit(255)"}, 255},
		{"exit out of range", []string{"-c", "exit(256)"}, 1},
		{"output schema outside ask", []string{"--output-schema", "s.json", "-c", "1"}, 2},
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

// /dev/null is a character device but no terminal: a --load file that
// fails with stdin from it fails the run, as with any other stdin that is
// not a terminal, instead of starting a REPL that reads nothing and exits 0.
func TestLoadFailsWithStdinFromDevNull(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := agentshCmd(t, "--load", "missing.star")
	cmd.Stdin = null
	out, err := cmd.CombinedOutput()
	if got := exitCode(t, err); got != 1 {
		t.Errorf("agentsh --load missing.star < /dev/null: exit %d, want 1\noutput:\n%s", got, out)
	}
	if !strings.Contains(string(out), "missing.star") {
		t.Errorf("output does not name the file that failed:\n%s", out)
	}
}

// exit(code) in the REPL ends it with code.
func TestREPLExitCode(t *testing.T) {
	for lang, input := range map[string]string{"starlark": "print(1)\nexit(5)\nprint(2)\n", "lua": "print(1)\nexit(5)\nprint(2)\n"} {
		cmd := agentshCmd(t, "-i", "--no-builtins", "--lang", lang)
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.CombinedOutput()
		if got := exitCode(t, err); got != 5 || string(out) != "1\n" {
			t.Errorf("%s REPL: exit %d, output %q; want 5 and 1", lang, got, out)
		}
	}
}
