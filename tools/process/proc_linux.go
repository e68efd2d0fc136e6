package process

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts a process in a new session (so a new process group
// and no controlling terminal) that is killed when agentsh dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }

// waitExit blocks until cmd's process has exited, leaving it a zombie
// (WNOWAIT) for reap: until then its pid, which is also its process
// group's id, cannot be reused.
func waitExit(cmd *exec.Cmd) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return // exited, or ECHILD: nothing left to wait for
		}
	}
}

// reap collects cmd's exit status (cmd.Wait).
func reap(cmd *exec.Cmd) error { return cmd.Wait() }

// sweepGroup kills whatever is left in the process group pgid, whose
// leader has exited but is not reaped, and waits (at most sweepWait) until
// no live process is left in it.
func sweepGroup(pgid int) {
	deadline := time.Now().Add(sweepWait)
	for {
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
			return // ESRCH: the group is empty
		}
		live := false
		for _, p := range listProcs() {
			if p.pgrp == pgid && p.pid != pgid && p.state != 'Z' && p.state != 'X' {
				live = true
				break
			}
		}
		if !live || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// procInfo is a process as /proc/PID/stat shows it.
type procInfo struct {
	pid, ppid, pgrp int
	state           byte
}

// listProcs lists the processes /proc shows; processes that vanish while
// it reads are skipped.
func listProcs() []procInfo {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	procs := make([]procInfo, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || len(f[0]) != 1 {
			continue
		}
		ppid, err1 := strconv.Atoi(string(f[1]))
		pgrp, err2 := strconv.Atoi(string(f[2]))
		if err1 != nil || err2 != nil {
			continue
		}
		procs = append(procs, procInfo{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return procs
}

// descendants returns the live descendants of pid, parents before their
// children.
func descendants(pid int) []procInfo {
	procs := listProcs()
	children := make(map[int][]procInfo, len(procs))
	for _, p := range procs {
		if p.state != 'Z' && p.state != 'X' {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []procInfo
	seen := map[int]bool{pid: true}
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			if !seen[c.pid] { // pids read at different moments may loop
				seen[c.pid] = true
				out = append(out, c)
				queue = append(queue, c.pid)
			}
		}
	}
	return out
}
