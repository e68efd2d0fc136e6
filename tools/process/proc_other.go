//go:build !unix

package process

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Outside Unix there are no process groups to stop: only the process
// itself is stopped (killed at once), and what it started may survive.

func sysProcAttr() *syscall.SysProcAttr { return nil }

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

func sweepGroup(int) {}

func signalGroup(pid int, _ bool) { signalProc(pid, true) }

func signalProc(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func exitCode(ps *os.ProcessState) int { return ps.ExitCode() }

type procInfo struct {
	pid, ppid, pgrp int
	state           byte
}

func descendants(int) []procInfo { return nil }
