// Package proctest reads the Linux process table for tests that must show
// a run left no process behind, and limits the memory of a test's own
// child process.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Alive reports whether pid is a process that has not exited (a zombie
// has).
func Alive(pid int) bool {
	_, state, ok := stat(pid)
	return ok && state != "Z" && state != "X"
}

// Descendants returns the live descendants of pid whose command line
// holds every one of args (none: all of them).
func Descendants(pid int, args ...string) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, _, ok := stat(p); ok {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q, n := parent[p], 0; q > 1 && n < 256; q, n = parent[q], n+1 {
			if q == pid {
				if Alive(p) && hasArgs(p, args) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// stat reads the parent and state of pid from /proc/PID/stat.
func stat(pid int) (ppid int, state string, ok bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

// statFields are the fields of /proc/PID/stat after the command name:
// STATE PPID ... (utime and stime are the 12th and 13th).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	// pid (comm) STATE PPID ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// CPUTicks is the CPU time pid and its live descendants have used, in
// clock ticks (user and system): a test waits on it to see work under
// way, whatever else keeps the machine busy.
func CPUTicks(pid int) int64 {
	var n int64
	for _, p := range append(Descendants(pid), pid) {
		if f, ok := statFields(p); ok && len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			n += u + s
		}
	}
	return n
}

func hasArgs(pid int, args []string) bool {
	if len(args) == 0 {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, a := range bytes.Split(b, []byte{0}) {
		have[string(a)] = true
	}
	for _, a := range args {
		if !have[a] {
			return false
		}
	}
	return true
}
