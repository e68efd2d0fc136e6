package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// selfExe is this program's executable as the kernel knows it: it can be
// executed even when the file was replaced or deleted since it started.
const selfExe = "/proc/self/exe"

// RunSelf runs this program again as a child process, for a child that
// puts itself under its limits with RestrictSelf before reading any input.
// The child starts in a new session (its own process group, no
// controlling terminal) with only the environment req.Env, standard input
// from req.Stdin and its output captured; it gets SIGKILL if this process
// dies. When ctx ends before the child exits, its whole process group gets
// SIGKILL at once, with no grace: the caller says when by ctx. RunSelf
// returns once the child and its group are gone.
//
// Only descriptors 0, 1 and 2 are passed on purpose; a descriptor this
// program inherited without close-on-exec would be inherited too, which is
// why RestrictSelf closes those. Errors are for a child that could not be
// started; what the child did is in SelfResult.
func RunSelf(ctx context.Context, req SelfRequest) (SelfResult, error) {
	res := SelfResult{ExitCode: -1}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("process: child not started: %w", err)
	}
	cmd, err := selfCommand(req)
	if err != nil {
		return res, err
	}
	defer func() {
		for _, f := range cmd.ExtraFiles {
			f.Close()
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("process: child: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return res, fmt.Errorf("process: child: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return res, fmt.Errorf("process: child: %w", err)
	}
	defer outR.Close()
	defer errR.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	exited, _, err := startLocked(cmd, groupStopper{}, nil) // no hook to finish
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		return res, fmt.Errorf("process: cannot start a child of this program: %w", err)
	}
	pid := cmd.Process.Pid

	stdout, stderr := newCapBuffer(req.MaxOutput), newCapBuffer(req.MaxOutput)
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(stdout, outR) })
	copies.Go(func() { _, _ = io.Copy(stderr, errR) })
	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		_, _ = inW.Write(req.Stdin) // EPIPE when the child stops reading
		inW.Close()
	}()

	select {
	case <-exited:
	case <-ctx.Done():
		res.Killed = !closed(exited)
		if res.Killed {
			killGroup(pid, exited)
		}
	}
	sweepGroup(pid)
	untrack(pid) // before reaping, while pid cannot be reused
	werr := reap(cmd)

	_ = outR.SetReadDeadline(time.Now().Add(drainWait))
	_ = errR.SetReadDeadline(time.Now().Add(drainWait))
	copies.Wait()
	_ = inW.SetWriteDeadline(time.Now())
	<-stdinDone

	res.Stdout, res.Stderr = stdout.Bytes(), stderr.Bytes()
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = exitCode(ps)
		res.CPUTime = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return res, fmt.Errorf("process: wait for the child: %w", werr)
	}
	return res, nil
}

// cpuKillCode reports whether code is the status of a process the kernel
// stopped for its CPU time: SIGKILL at the hard limit, SIGXCPU at the soft
// one.
func cpuKillCode(code int) bool {
	return code == 128+int(unix.SIGKILL) || code == 128+int(unix.SIGXCPU)
}

// killGroup sends SIGKILL to the process group pgid until its leader has
// exited.
func killGroup(pgid int, exited <-chan struct{}) {
	for {
		signalGroup(pgid, true)
		t := time.NewTimer(killWait)
		select {
		case <-exited:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// selfCommand is the command that runs this program with req's arguments:
// directly, or inside Bubblewrap with the executable bound read-only at a
// path of its own (the real path may be hidden, under /tmp, or gone).
func selfCommand(req SelfRequest) (*exec.Cmd, error) {
	argv0 := "agentsh"
	if len(os.Args) > 0 && os.Args[0] != "" {
		argv0 = os.Args[0]
	}
	env := append([]string{}, req.Env...) // never nil: nil would inherit
	if req.Sandbox == nil {
		return &exec.Cmd{
			Path:        selfExe,
			Args:        append([]string{argv0}, req.Args...),
			Env:         env,
			Dir:         "/",
			SysProcAttr: sysProcAttr(),
		}, nil
	}
	b := req.Sandbox
	root, _, err := resolveDir(b.root, ".")
	if err != nil {
		return nil, err
	}
	args := bwrapArgs(root, root)
	if len(args) == 0 || args[len(args)-1] != "--" {
		return nil, errors.New("process: the bubblewrap command line does not end with --")
	}
	dest := selfMountPoint(root)
	args = append(args[:len(args)-1:len(args)-1],
		"--ro-bind", "/proc/"+strconv.Itoa(os.Getpid())+"/exe", dest,
		"--", dest)
	filter, err := filterPipe(b.filter)
	if err != nil {
		return nil, err
	}
	return &exec.Cmd{
		Path:        b.bwrap,
		Args:        append(args, req.Args...),
		Env:         env,
		Dir:         root,
		ExtraFiles:  []*os.File{filter}, // descriptor 3: --seccomp 3
		SysProcAttr: sysProcAttr(),
	}, nil
}

// selfMountPoint is where the executable appears inside the sandbox: on
// one of the sandbox's own temporary file systems, never inside root,
// whose directories are the real ones.
func selfMountPoint(root string) string {
	for _, p := range []string{"/tmp/.agentsh-self", "/run/.agentsh-self"} {
		if !within(root, p) {
			return p
		}
	}
	return "/dev/.agentsh-self"
}

// RestrictSelf puts the calling process under l, for good (an
// unprivileged process cannot raise a hard limit again). A child started
// by RunSelf calls it first, before it reads any input. It
//
//   - closes every descriptor above 2 that is not close-on-exec: those are
//     inherited, since Go opens its own descriptors close-on-exec;
//   - sets RLIMIT_AS to the address space in use plus l.Memory, and
//     RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE and RLIMIT_CORE (to 0), soft
//     and hard alike;
//   - sets the Go soft memory limit and maximum stack (see Limits);
//   - sets no_new_privs, so that nothing it could execute gains privileges.
func RestrictSelf(l Limits) error {
	l = l.withDefaults()
	if err := closeInherited(); err != nil {
		return err
	}
	used, err := addressSpace()
	if err != nil {
		return err
	}
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"address space", unix.RLIMIT_AS, used + uint64(l.Memory)},
		{"cpu time", unix.RLIMIT_CPU, l.cpuSeconds()},
		{"file size", unix.RLIMIT_FSIZE, uint64(l.FileSize)},
		{"open files", unix.RLIMIT_NOFILE, uint64(l.OpenFiles)},
		{"core size", unix.RLIMIT_CORE, 0},
	}
	for _, lim := range limits {
		if err := unix.Setrlimit(lim.resource, &unix.Rlimit{Cur: lim.value, Max: lim.value}); err != nil {
			return fmt.Errorf("process: set the %s limit to %d: %w", lim.name, lim.value, err)
		}
	}
	debug.SetMemoryLimit(l.Memory / 4 * 3)
	debug.SetMaxStack(int(l.MaxStack()))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("process: set no_new_privs: %w", err)
	}
	return nil
}

// closeInherited closes the descriptors above 2 that are not close-on-exec.
func closeInherited() error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("process: list descriptors: %w", err)
	}
	names, err := d.Readdirnames(-1)
	self := int(d.Fd())
	d.Close()
	if err != nil {
		return fmt.Errorf("process: list descriptors: %w", err)
	}
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // gone, or this program's own
		}
		if err := unix.Close(fd); err != nil && err != unix.EBADF {
			return fmt.Errorf("process: close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// addressSpace is the process's address space in use (VmSize), in bytes.
func addressSpace() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("process: read the address space size: %w", err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			f := bytes.Fields(v)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseUint(string(f[0]), 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, errors.New("process: /proc/self/status has no VmSize line")
}
