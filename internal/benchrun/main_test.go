package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain removes the launcher tests build.
func TestMain(m *testing.M) {
	code := m.Run()
	if launcherDir != "" {
		os.RemoveAll(launcherDir)
	}
	os.Exit(code)
}

var (
	launcherOnce sync.Once
	launcherDir  string
	launcherPath string
	launcherErr  error
)

// testLauncher is benchrun built without the test's flags: the launcher
// and floor reader the harness runs as itself. (The test binary could be
// its own launcher, but built with -race it takes a second to start.)
func testLauncher(t *testing.T) string {
	t.Helper()
	launcherOnce.Do(func() {
		if launcherDir, launcherErr = os.MkdirTemp("", "benchrun-test-"); launcherErr != nil {
			return
		}
		launcherPath = filepath.Join(launcherDir, "benchrun")
		out, err := exec.Command("go", "build", "-o", launcherPath, ".").CombinedOutput()
		if err != nil {
			launcherErr = &buildError{err, string(out)}
		}
	})
	if launcherErr != nil {
		t.Fatalf("build benchrun: %v", launcherErr)
	}
	return launcherPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
