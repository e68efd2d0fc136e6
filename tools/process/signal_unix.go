//go:build unix

package process

import (
	"os"
	"syscall"
)

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the process
// group pgid.
func signalGroup(pgid int, kill bool) { _ = syscall.Kill(-pgid, sig(kill)) }

// signalProc sends SIGTERM, or SIGKILL when kill is set, to process pid.
func signalProc(pid int, kill bool) { _ = syscall.Kill(pid, sig(kill)) }

func sig(kill bool) syscall.Signal {
	if kill {
		return syscall.SIGKILL
	}
	return syscall.SIGTERM
}

// exitCode is the status of a finished process: its exit status, or
// 128+N when killed by signal N; -1 if unknown.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
	return -1
}
