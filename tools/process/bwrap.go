package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// BubblewrapExec runs processes inside Bubblewrap (bwrap): the whole file
// system read-only, the root directory writable at its own path, a private
// /tmp and /run (empty tmpfs, discarded after the run), a minimal /dev, a
// /proc of its own with /proc/sys read-only, no network (only a loopback
// interface of its own), its own PID and IPC namespaces, and no
// capabilities (--cap-drop ALL, which matters when agentsh runs as root:
// a root process that kept its capabilities could remount / read-write),
// and a seccomp filter that refuses to make setuid or setgid files or
// device nodes, which the writable root would keep on the host, unix
// sockets, through which a process could reach a host service that no
// read-only mount keeps it from connecting to, and the kernel keyrings,
// which are the user's inside as out (see nosetid_linux.go).
// HOME is read-only unless it is under the root.
//
// Timeout, cancellation, output capture and exit codes work as for
// LocalExec. bwrap runs in a new session (no controlling terminal, which is
// what its --new-session guards against) and in its own process group; on
// timeout or cancellation the processes inside get SIGTERM and, Grace
// later, the sandbox's init is killed, which makes the kernel kill every
// process in the sandbox, including those that left the process group. A
// run never leaves processes behind: the PID namespace ends with the
// command.
//
// The environment is BaseEnv (DefaultEnv when nil) with TMPDIR=/tmp, then
// ExecRequest.Env. A program that bwrap cannot execute inside the sandbox
// (after agentsh found it on PATH outside) shows as bwrap's message in the
// output and exit code 1.
type BubblewrapExec struct {
	// Grace is the time between SIGTERM and SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// MaxOutput is the number of output bytes kept (head and tail halves);
	// 0 means DefaultMaxOutput.
	MaxOutput int
	// BaseEnv is the environment ExecRequest.Env is added to (later
	// entries win); nil means DefaultEnv().
	BaseEnv []string

	root   string
	bwrap  string // path of the bwrap program
	filter []byte // the seccomp filter (see nosetid_linux.go)
	// bridge is the filter for runs with the network bridge, which lets
	// unix sockets be made (bridgeFilter).
	bridge []byte
}

var _ ExecOps = (*BubblewrapExec)(nil)

// NewBubblewrapExec returns a BubblewrapExec for directories below root,
// after checking that bwrap is installed and can create a sandbox here (it
// runs `true` in one). root must exist and must not be /.
func NewBubblewrapExec(root string) (*BubblewrapExec, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("process: bubblewrap runs only on Linux, not %s", runtime.GOOS)
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, errors.New("process: bwrap (Bubblewrap) is not installed or not on PATH; install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)")
	}
	realRoot, _, err := resolveDir(root, ".")
	if err != nil {
		return nil, err
	}
	if realRoot == "/" {
		return nil, errors.New("process: bubblewrap with working directory / would leave the whole file system writable")
	}
	filter, err := sandboxFilter()
	if err != nil {
		return nil, err
	}
	bridge, err := bridgeFilter()
	if err != nil {
		return nil, err
	}
	b := &BubblewrapExec{root: root, bwrap: path, filter: filter, bridge: bridge}
	if err := b.probe(); err != nil {
		return nil, err
	}
	return b, nil
}

// probe runs `true` in a sandbox like Exec's.
func (b *BubblewrapExec) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.Exec(ctx, ExecRequest{Args: []string{"true"}, Timeout: 20 * time.Second})
	if err != nil {
		return fmt.Errorf("process: bwrap cannot create a sandbox here: %w", err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		msg := strings.TrimSpace(string(res.Output))
		if msg == "" {
			msg = fmt.Sprintf("exit code %d", res.ExitCode)
		}
		return fmt.Errorf("process: bwrap cannot create a sandbox here: %s (bwrap needs unprivileged user namespaces, e.g. sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0, or to run as root or setuid; inside a container, the container must allow it)", msg)
	}
	return nil
}

// Exec runs req in a new sandbox.
func (b *BubblewrapExec) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	p, err := prepare(b.root, req, b.BaseEnv, []string{"TMPDIR=/tmp"})
	if err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	filter, err := filterPipe(b.filter)
	if err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	defer filter.Close()
	args := append(bwrapArgs(p.root, p.dir), req.Args...)
	cmd := &exec.Cmd{
		Path: b.bwrap,
		Args: args,
		// bwrap changes directory itself (--chdir); it starts in the root.
		Dir:         p.root,
		Env:         p.env,
		ExtraFiles:  []*os.File{filter}, // descriptor 3: --seccomp 3
		SysProcAttr: sysProcAttr(),
	}
	return run(ctx, cmd, req, runConfig{grace: b.Grace, maxOutput: b.MaxOutput}, sandboxStopper{})
}

// filterPipe returns the read end of a pipe that holds filter and is
// closed for writing, for bwrap to read the seccomp filter from.
func filterPipe(filter []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("process: seccomp filter: %w", err)
	}
	_, err = w.Write(filter) // far smaller than a pipe's buffer
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("process: seccomp filter: %w", err)
	}
	return r, nil
}

// bwrapArgs is the bwrap command line up to the program to run for
// BubblewrapExec: a plan with nothing to protect, hide or reach, so the
// root writable and the rest as planArgs makes it.
func bwrapArgs(root, dir string) []string {
	return planArgs(&plan{profile: ProfileWorkspace, prepared: prepared{root: root, dir: dir}})
}

// sandboxStopper stops a bwrap run. Signalling bwrap itself would end the
// sandbox at once (its child, the sandbox's init, dies with it, and the
// kernel kills the rest), so SIGTERM goes to the processes below the
// sandbox's init only, and SIGKILL to the init, which takes every process
// in the PID namespace with it; bwrap then exits by itself.
type sandboxStopper struct{}

func (sandboxStopper) terminate(pid int) {
	for _, p := range descendants(pid) {
		if p.ppid != pid { // not the sandbox's init
			signalProc(p.pid, false)
		}
	}
}

func (sandboxStopper) kill(pid int) {
	killed := false
	for _, p := range descendants(pid) {
		if p.ppid == pid {
			signalProc(p.pid, true)
			killed = true
		}
	}
	if !killed { // bwrap has not made the sandbox yet
		signalGroup(pid, true)
	}
}

// bwrapConfiner is the Bubblewrap backend of a Sandbox.
type bwrapConfiner struct{ b *BubblewrapExec }

func newBwrapConfiner(root string) (confiner, error) {
	b, err := NewBubblewrapExec(root)
	if err != nil {
		return nil, err
	}
	return bwrapConfiner{b}, nil
}

func (bwrapConfiner) name() string { return "bwrap" }

func (c bwrapConfiner) run(ctx context.Context, pl *plan, req ExecRequest, cfg runConfig) (ExecResult, error) {
	if pl.proxy != nil && !bridgeReady.Load() {
		return ExecResult{ExitCode: -1}, ErrNotInitialized
	}
	rules := c.b.filter
	if pl.proxy != nil {
		rules = c.b.bridge
	}
	filter, err := filterPipe(rules)
	if err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	defer filter.Close()
	env := dedupEnv(append(pl.env, "TMPDIR=/tmp"))
	cmd := &exec.Cmd{
		Path:        c.b.bwrap,
		Args:        append(planArgs(pl), req.Args...),
		Dir:         pl.root,
		Env:         env,
		ExtraFiles:  []*os.File{filter}, // descriptor 3: --seccomp 3
		SysProcAttr: sysProcAttr(),
	}
	return run(ctx, cmd, req, cfg, sandboxStopper{})
}

// planArgs is the bwrap command line of a plan up to the program to run.
// Later mounts go on top of earlier ones: the home directory's tmpfs
// before the root when the root lies in it (and after when it lies in
// the root), the protected entries and secrets last.
func planArgs(pl *plan) []string {
	args := []string{"bwrap",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--ro-bind", "/proc/sys", "/proc/sys",
		"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
		"--tmpfs", "/tmp",
		"--tmpfs", "/run",
	}
	homeInRoot := pl.home != "" && within(pl.root, pl.home)
	if pl.home != "" && !homeInRoot {
		args = append(args, "--tmpfs", pl.home)
	}
	if pl.profile == ProfileWorkspace {
		args = append(args, "--bind", pl.root, pl.root)
	} else {
		args = append(args, "--ro-bind", pl.root, pl.root)
	}
	if homeInRoot {
		args = append(args, "--tmpfs", pl.home, "--remount-ro", pl.home)
	}
	for _, p := range pl.readOnly {
		args = append(args, "--ro-bind", p, p)
	}
	for _, h := range pl.hidden {
		if h.dir {
			args = append(args, "--tmpfs", h.path, "--remount-ro", h.path)
		} else {
			args = append(args, "--ro-bind", "/dev/null", h.path)
		}
	}
	args = append(args,
		"--unshare-net",
		"--unshare-pid",
		"--unshare-ipc",
		"--unshare-uts",
		"--die-with-parent",
		// Not --new-session: bwrap already runs in a session of its own
		// without a terminal (sysProcAttr), and --new-session would put
		// the sandbox's init in another one, out of the process group
		// that run sweeps, so a process inside could outlive the call
		// until the init's parent-death signal arrives.
		"--cap-drop", "ALL",
		"--seccomp", "3",
		"--chdir", pl.dir,
		"--",
	)
	return withBridge(pl, args) // a proxy: see bridge_linux.go
}
