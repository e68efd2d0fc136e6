package process

import (
	"strconv"
	"strings"
	"time"
)

// Defaults of Limits.
const (
	// DefaultMemory is Limits.Memory when it is 0.
	DefaultMemory = 256 << 20
	// DefaultCPU is Limits.CPU when it is 0.
	DefaultCPU = 60 * time.Second
	// DefaultOpenFiles is Limits.OpenFiles when it is 0.
	DefaultOpenFiles = 64
)

// Limits are the kernel limits of a child process that runs this program
// again (RunSelf), which puts itself under them with RestrictSelf before it
// reads any input. The zero value is the defaults.
//
// Memory is an address-space limit (RLIMIT_AS), not a memory cgroup:
// setrlimit needs no privilege and no delegated cgroup tree, works the same
// inside containers and Bubblewrap, and is inherited by nothing because the
// child starts nothing. A Go program reserves about a gigabyte of address
// space at start-up that costs no memory, so the limit is counted from what
// the process has when RestrictSelf runs: Memory is what it may add.
type Limits struct {
	// Memory is how much address space the process may add, in bytes;
	// 0 means DefaultMemory. Three quarters of it is the Go runtime's soft
	// memory limit, so that the collector works harder before the hard
	// limit is reached, and a quarter of it bounds a goroutine's stack.
	Memory int64
	// CPU is the CPU time (user and system) after which the kernel kills
	// the process (RLIMIT_CPU, rounded up to whole seconds); 0 means
	// DefaultCPU. A deadline is the parent's job: CPU time is the backstop
	// for a parent that cannot act (stopped, or stuck).
	CPU time.Duration
	// FileSize is the largest file the process may write (RLIMIT_FSIZE),
	// in bytes; 0 means none: a write that would grow a file fails.
	FileSize int64
	// OpenFiles bounds the process's descriptors (RLIMIT_NOFILE); 0 means
	// DefaultOpenFiles.
	OpenFiles int
}

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.FileSize < 0 {
		l.FileSize = 0
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	return l
}

// cpuSeconds is l.CPU rounded up to whole seconds, as RLIMIT_CPU counts.
func (l Limits) cpuSeconds() uint64 {
	l = l.withDefaults()
	return uint64((l.CPU + time.Second - 1) / time.Second)
}

// MaxStack is the largest goroutine stack RestrictSelf allows, in bytes: a
// quarter of Memory, so that a stack that doubles to grow past it is
// refused as a stack overflow before the old and new copies together
// exhaust the address space.
func (l Limits) MaxStack() int64 { return l.withDefaults().Memory / 4 }

// SelfRequest is one run of this program as a child process (RunSelf).
type SelfRequest struct {
	// Args follow the program name: the child sees os.Args as
	// [os.Args[0], Args...]. The child tells from them that it is one.
	Args []string
	// Env is the child's whole environment; nothing is inherited.
	Env []string
	// Stdin is the child's standard input, closed after the last byte.
	Stdin []byte
	// MaxOutput is how many bytes of standard output, and of standard
	// error, are kept (the first and the last halves, as for LocalExec);
	// 0 means DefaultMaxOutput.
	MaxOutput int
	// Sandbox, when set, runs the child inside Bubblewrap with the mounts
	// and namespaces of Sandbox.Exec, this program bound read-only into it
	// and the root directory as its working directory. Otherwise the child
	// runs in /.
	Sandbox *BubblewrapExec
}

// SelfResult is what a child started by RunSelf did.
type SelfResult struct {
	// Stdout and Stderr are what the child wrote, each bounded by
	// SelfRequest.MaxOutput.
	Stdout, Stderr []byte
	// ExitCode is the exit status: 128+N when the child was killed by
	// signal N (Bubblewrap reports the same for its child), -1 if unknown.
	ExitCode int
	// Killed says that ctx ended before the child exited, and RunSelf
	// killed its process group.
	Killed bool
	// CPUTime is the user and system time the child used.
	CPUTime time.Duration
}

// LimitError says that a child process was stopped by one of its Limits.
type LimitError struct {
	// Resource is what ran out: "memory", "stack" or "cpu time".
	Resource string
	// Limit is the limit, for a person ("256 MiB", "3s").
	Limit string
	// Hint, when set, says what the user can do; it ends the message.
	Hint string
}

func (e *LimitError) Error() string {
	msg := "exceeded the " + e.Resource + " limit (" + e.Limit + ")"
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Exceeded returns a *LimitError when res shows that the child, a Go
// program under l, died of one of l's limits: the Go runtime's fatal
// out-of-memory or stack-overflow error, or the kernel's SIGKILL (or
// SIGXCPU) once the CPU time reached l.CPU. Otherwise it returns nil. A
// child that RunSelf killed (res.Killed) did not die of a limit.
func (l Limits) Exceeded(res SelfResult) error {
	if res.Killed || res.ExitCode == 0 {
		return nil
	}
	l = l.withDefaults()
	stderr := string(res.Stderr)
	switch {
	case strings.Contains(stderr, "fatal error: stack overflow"):
		return &LimitError{Resource: "stack", Limit: FormatBytes(l.MaxStack())}
	case strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"),
		strings.Contains(stderr, "failed to create new OS thread"),
		// A program built with -race reports a refused mapping of its
		// heap as a collision, and one of its shadow memory in its own
		// words.
		strings.Contains(stderr, "too many address space collisions"),
		strings.Contains(stderr, "ThreadSanitizer failed to allocate"):
		return &LimitError{Resource: "memory", Limit: FormatBytes(l.Memory)}
	}
	cpu := time.Duration(l.cpuSeconds()) * time.Second
	// Rusage and the kernel's CPU timer count the same clock; the slack
	// covers rounding in the conversion to user and system time.
	if cpuKillCode(res.ExitCode) && res.CPUTime >= cpu-50*time.Millisecond {
		return &LimitError{Resource: "cpu time", Limit: cpu.String()}
	}
	return nil
}

// FormatBytes writes n as a person reads it: whole MiB or KiB when it is
// one, bytes otherwise.
func FormatBytes(n int64) string {
	switch {
	case n != 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n != 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n == 1:
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
