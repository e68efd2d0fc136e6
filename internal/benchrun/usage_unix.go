//go:build unix

package main

import (
	"os"
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
