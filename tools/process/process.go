// Package process runs the processes of agentsh's bash and run_code tools:
// locally (LocalExec) or inside Bubblewrap (BubblewrapExec), always killing
// the whole process group on timeout or cancellation. It also checks shell
// commands against allow and block lists (ShellPolicy), which is a
// convenience, not isolation, and caps output for a model (CapOutput).
//
// Running processes needs Linux for the guarantees documented here (a
// process group that is stopped as a whole, no process left behind);
// BubblewrapExec is Linux-only.
package process

import (
	"context"
	"time"
)

// ExecRequest is one process to run.
type ExecRequest struct {
	// Args is the program and its arguments; Args[0] is looked up on PATH.
	Args []string
	// Dir is the working directory, slash-separated and relative to the
	// root the ExecOps was made for ("" or "." for the root itself). The
	// caller has refused lexical escapes; an implementation refuses a Dir
	// whose symbolic links lead outside the root.
	Dir string
	// Env adds KEY=VALUE entries to the environment, which is otherwise
	// minimal (see DefaultEnv); later entries win.
	Env []string
	// Stdin is the process's standard input; empty means none (/dev/null).
	Stdin []byte
	// Timeout bounds the run; 0 means only ctx bounds it.
	Timeout time.Duration
}

// ExecResult is what a process did.
type ExecResult struct {
	// Output is stdout and stderr interleaved as the process wrote them
	// (both are one pipe). It is bounded: past the implementation's cap
	// (LocalExec.MaxOutput) the middle is dropped and replaced by a marker
	// line saying how many bytes were omitted.
	Output []byte
	// ExitCode is the exit status. A process killed by signal N reports
	// 128+N, as shells do (137 for SIGKILL, 143 for SIGTERM); -1 means the
	// status is unknown.
	ExitCode int
	// TimedOut and Canceled say why a process that did not exit by itself
	// was stopped: Timeout elapsed, or ctx ended (for whatever reason,
	// including its own deadline).
	TimedOut bool
	Canceled bool
}

// ExecOps runs processes. When a run times out or its context ends, the
// whole process group gets SIGTERM, then SIGKILL after a grace period, and
// no process is left behind: what a process leaves running in its group
// when it exits is killed too, so Exec returns when the process exits, not
// when a background process closes the output pipe. (LocalExec cannot
// reach a process that leaves the group on purpose; BubblewrapExec can.)
// A program that cannot be started, a directory outside the root and a
// context that ended before the start are errors; a program that exits
// non-zero or is stopped is not (see ExecResult). Implementations must be
// safe for concurrent use.
type ExecOps interface {
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
}
