package main

import (
	"os/exec"
	"testing"
	"time"
)

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// needPrograms skips t unless every program is on PATH.
func needPrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not on PATH (install ripgrep and fd-find to run this test): %v", n, err)
		}
	}
}
