package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A --resume or --continue that finds no session is a usage error: exit
// 2, saying how to see the sessions.
func TestResumeMissingExitCode(t *testing.T) {
	for _, args := range [][]string{{"--resume", "nope"}, {"--resume"}, {"--continue"}} {
		cmd := agentshCmd(t, append(args, "-c", "print(1)")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if code := exitCode(t, cmd.Run()); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "agentsh sessions") {
			t.Errorf("%v: stderr %q does not say how to list the sessions", args, stderr.String())
		}
	}
}

// A second agentsh on a session that another one has open is refused,
// naming the first one's pid.
func TestSessionOpenElsewhere(t *testing.T) {
	state := t.TempDir()
	first := agentshCmd(t, "-i", "--no-builtins", "--session", "busy")
	first.Env = append(first.Env, "XDG_STATE_HOME="+state)
	stdin, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		first.Wait()
	}()
	path := filepath.Join(state, "agentsh", "sessions", "busy.jsonl")
	for i := 0; ; i++ {
		if b, err := os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			break
		}
		if i > 500 {
			t.Fatal("the first agentsh did not create the session")
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := agentshCmd(t, "--no-builtins", "--session", "busy", "-c", "print(1)")
	second.Env = append(second.Env, "XDG_STATE_HOME="+state)
	var stderr bytes.Buffer
	second.Stderr = &stderr
	code := exitCode(t, second.Run())
	want := fmt.Sprintf("session busy is open in another agentsh (pid %d)", first.Process.Pid)
	if code == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("second agentsh: exit %d, stderr %q; want %q", code, stderr.String(), want)
	}
}
