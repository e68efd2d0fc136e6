//go:build !unix

package main

import (
	"os"
	"os/exec"
	"time"
)

// usage is the CPU time of a process that has exited; this system gives
// no peak resident set size.
func usage(st *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	return st.UserTime(), st.SystemTime(), 0
}

// ownGroup is a no-op here: cancelling c's context kills c alone.
func ownGroup(c *exec.Cmd) {}

// ownUsage is the CPU time this process has used; this system does not
// say, so it is 0.
func ownUsage() (user, sys time.Duration) { return 0, 0 }
