//go:build linux

package process

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// KillAll stops a running process group at once, a process that ignores
// SIGTERM and one it left in the background included, and Exec returns as
// after a kill; the group is forgotten once collected.
func TestKillAll(t *testing.T) {
	root := t.TempDir()
	e := NewLocalExec(root)
	e.Grace = time.Hour // only KillAll can end this run soon
	type out struct {
		res ExecResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := e.Exec(context.Background(), ExecRequest{
			Args: []string{"bash", "-c", `trap '' TERM; sleep 60 & echo $! > bg.pid; echo ready > ready; wait`},
		})
		done <- out{res, err}
	}()
	deadline := time.Now().Add(watchdog)
	for {
		if _, err := os.Stat(filepath.Join(root, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	KillAll()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("Exec: %v", o.err)
		}
		if o.res.ExitCode != 137 {
			t.Errorf("exit code %d, want 137 (SIGKILL)", o.res.ExitCode)
		}
	case <-time.After(watchdog):
		t.Fatal("Exec did not return after KillAll")
	}
	running.Lock()
	n := len(running.groups)
	running.Unlock()
	if n != 0 {
		t.Errorf("%d process groups still tracked after the run ended", n)
	}
	KillAll() // nothing running: a no-op
}
