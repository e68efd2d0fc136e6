//go:build unix

package main

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// usage is the CPU time and peak resident set size of a process that has
// exited, from wait4's rusage. ru_maxrss is in KiB on Linux, bytes on
// Darwin.
func usage(st *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return st.UserTime(), st.SystemTime(), 0
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		rss <<= 10
	}
	return st.UserTime(), st.SystemTime(), rss
}

// ownGroup starts c in a process group of its own and makes cancelling
// c's context kill the whole group, so that nothing c started outlives it.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}

// ownUsage is the CPU time this process and the children it has waited
// for have used so far. Its difference across a piece of work done in
// this process is that work's CPU, the processes it started included.
func ownUsage() (user, sys time.Duration) {
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		return 0, 0
	}
	return time.Duration(self.Utime.Nano() + kids.Utime.Nano()), time.Duration(self.Stime.Nano() + kids.Stime.Nano())
}
