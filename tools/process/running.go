package process

import (
	"os/exec"
	"sync"
)

// running holds the process groups that runs have started and not yet
// collected, so that KillAll can reach them from anywhere.
var running = struct {
	sync.Mutex
	groups map[int]stopper // by the leader's pid
}{groups: map[int]stopper{}}

// startTracked starts cmd and tracks its group in one step under the lock
// KillAll takes, so a KillAll that comes while a run starts either finds
// the group or runs before the process exists.
func startTracked(cmd *exec.Cmd, st stopper) error {
	running.Lock()
	defer running.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	running.groups[cmd.Process.Pid] = st
	return nil
}

func untrack(pid int) {
	running.Lock()
	delete(running.groups, pid)
	running.Unlock()
}

// KillAll sends SIGKILL, without a grace period, to every process group
// that a LocalExec or BubblewrapExec of this process is running, and
// returns at once; each Exec then returns as it does after a timeout. It
// is for a program that is about to exit (on SIGTERM, say) and must not
// leave processes behind or wait out their grace periods. Safe to call
// from any goroutine, any number of times.
func KillAll() {
	running.Lock()
	defer running.Unlock()
	for pid, st := range running.groups {
		st.kill(pid)
	}
}
