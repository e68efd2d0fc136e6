//go:build unix && !linux

package process

import (
	"os/exec"
	"sync"
	"syscall"
)

// On Unix systems other than Linux there is no WNOWAIT and no /proc: the
// leader is reaped as soon as it exits, the group is sent one SIGKILL
// afterwards (its id could in principle have been reused by then), and
// nothing waits for the group's last processes to die.

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func lockThread()   {}
func unlockThread() {}

// waitErrs holds the error waitExit saw, by *exec.Cmd, for reap.
var waitErrs sync.Map

func waitExit(cmd *exec.Cmd) {
	ps, err := cmd.Process.Wait()
	cmd.ProcessState = ps
	waitErrs.Store(cmd, err)
}

func reap(cmd *exec.Cmd) error {
	err, _ := waitErrs.LoadAndDelete(cmd)
	if err == nil {
		return nil
	}
	return err.(error)
}

func sweepGroup(pgid int) { signalGroup(pgid, true) }

type procInfo struct {
	pid, ppid, pgrp int
	state           byte
}

func descendants(pid int) []procInfo { return nil }
