//go:build amd64 || arm64

package process

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockConfiner is the Landlock and seccomp backend of a Sandbox, for
// where Bubblewrap is missing or cannot start (containers, limits on
// user namespaces). It makes no namespaces. A run confines one locked OS
// thread of agentsh for good and forks the command from it, which
// inherits what the thread carries (see startLocked):
//
//   - no_new_privs, and no capabilities at all (bounding set, ambient,
//     effective, permitted, inheritable), though agentsh may run as root;
//   - a Landlock domain with the rules of llRules, TCP connections only
//     to the proxy's port (none without an allow list), no TCP binds,
//     and signals and abstract unix sockets scoped to the domain: a
//     command cannot signal or trace a process outside its run;
//   - the sandbox's seccomp filter and confineRules: no setuid files or
//     devices, no leaving the process group, no sockets other than TCP
//     (none without an allow list), no TIOCSTI, no ptrace, mount,
//     namespaces, keyrings, BPF, perf, kexec, modules, reboot or swap.
//
// The command leads a process group of its own (see groupCookie), which
// is stopped as a whole (groupStopper); when it has exited, every other
// process of its Landlock domain is killed (sweepDomain). It runs with
// TMPDIR and HOME in a temporary directory of its own, removed after the
// run.
type landlockConfiner struct {
	fsRights uint64 // every file system right the kernel knows
	net      uint64 // every network right the kernel knows
}

// llMinABI is the Landlock ABI the backend needs: TCP rules came with 4,
// scopes for signals and abstract unix sockets with 6 (Linux 6.12).
const llMinABI = 6

func newLandlockConfiner() (confiner, error) {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, unix.ENOSYS):
		return nil, errors.New("this kernel has no Landlock; Linux 6.12 or later built with CONFIG_SECURITY_LANDLOCK has it (or install bubblewrap)")
	case errors.Is(err, unix.EOPNOTSUPP):
		return nil, errors.New("Landlock is built into this kernel but not enabled; add landlock to the lsm= boot parameter (or install bubblewrap)")
	case err != nil:
		return nil, fmt.Errorf("cannot read the Landlock ABI version: %w", err)
	case abi < llMinABI:
		return nil, fmt.Errorf("this kernel has Landlock ABI %d, and the sandbox needs ABI %d (Linux 6.12) or later for its network rules and signal scopes; upgrade the kernel, or install bubblewrap", abi, llMinABI)
	}
	c := &landlockConfiner{fsRights: llFSRights(abi), net: ll.AccessNetBindTCP | ll.AccessNetConnectTCP}
	if abi >= 10 {
		c.net |= ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP
	}
	// os/exec checks once whether pidfds work; settle that on this
	// thread, not on a confined one where the check could fail and turn
	// pidfds off for the whole program.
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	if err := c.probe(); err != nil {
		return nil, err
	}
	return c, nil
}

func (*landlockConfiner) name() string { return "landlock" }

// probe confines a throwaway thread as a run would.
func (c *landlockConfiner) probe() error {
	ruleset, err := c.ruleset(nil, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ruleset)
	filter, err := landlockFilter(false, 1)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		_, err := confineThread(ruleset, filter)
		errc <- err
	}()
	if err := <-errc; err != nil {
		return err
	}
	return checkGroupCookie()
}

// checkGroupCookie makes sure that a command can make its process group
// as groupCookie has it. A seccomp filter around agentsh can refuse
// that: this backend's own, when agentsh runs inside its sandbox, kills
// the caller. A child of agentsh tries, then runs a program that does
// not exist: it fails to run it if the group was made, and dies before
// that otherwise.
func checkGroupCookie() error {
	cookie, err := groupCookie()
	if err != nil {
		return err
	}
	pid, err := syscall.ForkExec("/proc/self/agentsh-no-such-program", []string{"probe"}, &syscall.ProcAttr{
		Sys: &syscall.SysProcAttr{Setpgid: true, Pgid: int(uint64(cookie) << 32)},
	})
	if err != nil {
		return nil // it got as far as exec
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	return fmt.Errorf("a seccomp filter around agentsh kills a command that makes its own process group (%v): agentsh %w; run it outside, or unconfined (sandbox off)", ws.Signal(), ErrInsideSandbox)
}

func (c *landlockConfiner) run(ctx context.Context, pl *plan, req ExecRequest, cfg runConfig) (ExecResult, error) {
	proxy := ""
	if pl.proxy != nil {
		proxy = pl.proxy.Addr()
	}
	return c.runProxy(ctx, pl, req, cfg, proxy)
}

// runProxy runs req under pl, with TCP connections allowed to the port of
// the proxy at address proxy ("" for no network at all), and the proxy
// variables pointing at it.
func (c *landlockConfiner) runProxy(ctx context.Context, pl *plan, req ExecRequest, cfg runConfig, proxy string) (res ExecResult, err error) {
	fail := ExecResult{ExitCode: -1}
	if err := ctx.Err(); err != nil {
		return fail, fmt.Errorf("process: %s not started: %w", req.Args[0], err)
	}
	port := 0
	if proxy != "" {
		if port, err = proxyPort(proxy); err != nil {
			return fail, err
		}
	}
	cookie, err := groupCookie()
	if err != nil {
		return fail, err
	}
	filter, err := landlockFilter(port != 0, cookie)
	if err != nil {
		return fail, err
	}
	tmp, err := newPrivateTmp()
	if err != nil {
		return fail, err
	}
	defer func() {
		if rerr := removeAll(tmp.dir); rerr != nil {
			res.Output = fmt.Appendf(res.Output, "\nagentsh: the sandbox's temporary directory %s could not be removed: %v\n", tmp.dir, rerr)
		}
	}()
	ruleset, err := c.ruleset(llRules(pl, tmp.dir, c.fsRights, "/"), port)
	if err != nil {
		return fail, fmt.Errorf("process: %w", err)
	}
	defer unix.Close(ruleset)

	cmd := &exec.Cmd{
		Path: pl.program,
		Args: req.Args,
		Dir:  pl.dir,
		Env:  dedupEnv(append(slices.Clip(pl.env), "TMPDIR="+tmp.dir, "HOME="+tmp.home)),
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,
			Pgid:      int(uint64(cookie) << 32),
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if proxy != "" {
		cmd.Env = proxyEnv(cmd.Env, proxy)
	}
	cfg.confine = func() (func(), error) { return confineThread(ruleset, filter) }
	res, err = run(ctx, cmd, req, cfg, groupStopper{})
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == pl.program && errors.Is(pe.Err, fs.ErrPermission) {
		err = fmt.Errorf("%w (the sandbox runs programs from the system and the working directory, not from the home directory or temporary directories; install it there, or run the command outside the sandbox)", err)
	}
	return res, err
}

// ruleset makes a Landlock ruleset of rules, with TCP connections to port
// (none when 0). The caller closes it.
func (c *landlockConfiner) ruleset(rules []llRule, port int) (int, error) {
	attr := ll.RulesetAttr{
		HandledAccessFS:  c.fsRights,
		HandledAccessNet: c.net,
		Scoped:           ll.ScopeSignal | ll.ScopeAbstractUnixSocket,
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, fmt.Errorf("cannot create a Landlock ruleset: %w", err)
	}
	for _, r := range rules {
		if err := addPathRule(fd, r); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	if port > 0 {
		err := ll.LandlockAddNetPortRule(fd, &ll.NetPortAttr{AllowedAccess: ll.AccessNetConnectTCP, Port: uint64(port)}, 0)
		if err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("cannot allow TCP port %d in the Landlock ruleset: %w", port, err)
		}
	}
	return fd, nil
}

// addPathRule adds r to the ruleset, for the file found at its path now:
// none if it is gone or has become a link, file rights only if it is not
// a directory. No link is followed on the way: rule paths are made of
// resolved directories, and a link there is one a command (of another
// run, writing in the working directory meanwhile) put in place of a
// directory, to have this run's rule land outside.
func addPathRule(ruleset int, r llRule) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, r.path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot open %s for a Landlock rule: %w", r.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("cannot look at %s for a Landlock rule: %w", r.path, err)
	}
	access := r.access
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil
	case unix.S_IFDIR:
	default:
		access &= llFileRights
	}
	if access == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("cannot add the Landlock rule for %s: %w", r.path, err)
	}
	return nil
}

// confineThread confines the calling thread, which must be locked and
// never unlocked: no new privileges, no capabilities, the Landlock
// ruleset, the seccomp filter. It returns sweepDomain, for the same
// thread once the command has exited and been reaped.
func confineThread(ruleset int, filter []unix.SockFilter) (sweep func(), err error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("cannot set no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return nil, err
	}
	if err := ll.LandlockRestrictSelf(ruleset, 0); err != nil {
		return nil, fmt.Errorf("cannot enforce the Landlock ruleset: %w", err)
	}
	if err := checkSignalScope(); err != nil {
		return nil, err
	}
	if err := installFilter(filter); err != nil {
		return nil, err
	}
	return sweepDomain, nil
}

// groupCookie returns a run's cookie, for the command to make its own
// process group. A filter cannot tell the setpgid that os/exec makes in
// the child between fork and exec (SysProcAttr.Setpgid) from one the
// command makes later, but the call can carry the difference: the
// kernel reads setpgid's arguments as pid_t, the low 32 bits of each
// register, while the filter sees all 64 bits, and os/exec passes
// SysProcAttr.Pgid whole. With Pgid = cookie<<32 the kernel reads 0 (a
// new group, led by the caller), and the filter lets through only that
// call with the run's random cookie. A call with another value in the
// high half is a guess, and kills the process that made it: guessing
// costs a process per try, about 2^31 of them. Whatever leaves the group
// all the same dies with the rest of the run's Landlock domain.
//
// The command stays in agentsh's session, but cannot reach its
// terminal: /dev/tty is not granted, the standard streams are pipes,
// and /proc/PID/fd of processes outside the run is out of reach.
func groupCookie() (uint32, error) {
	var b [4]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("process: %w", err)
		}
		if c := binary.LittleEndian.Uint32(b[:]); c != 0 && c != 0xffffffff {
			return c, nil
		}
	}
}

// checkSignalScope makes sure that the calling thread cannot signal
// processes outside its Landlock domain, which sweepDomain relies on:
// init and agentsh's parent must be out of its reach.
func checkSignalScope() error {
	self := os.Getpid()
	for _, pid := range []int{1, os.Getppid()} {
		if pid > 0 && pid != self && unix.Kill(pid, 0) == nil {
			return fmt.Errorf("the Landlock signal scope does not hold here: a confined thread can signal process %d", pid)
		}
	}
	return nil
}

// sweepDomain kills the processes of the calling thread's Landlock
// domain, a run's, once its command has exited and been reaped, and
// waits (at most sweepWait) until none is left alive. kill(-1) sends to
// every process the caller may signal but itself (agentsh) and init, and
// the domain's signal scope (checkSignalScope) limits that to the
// processes of the run, including any that left its process group.
func sweepDomain() {
	deadline := time.Now().Add(sweepWait)
	for {
		_ = unix.Kill(-1, unix.SIGKILL)
		if !domainAlive() || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// domainAlive reports whether a process of the calling thread's domain
// is alive (not a zombie, whose end is not ours to wait for). kill(-1)
// cannot tell: it succeeds whenever any other process exists. A probe
// (signal 0) of each pid can, and costs far less than reading each
// process's state.
func domainAlive() bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self || unix.Kill(pid, 0) != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + n + "/stat"); err == nil {
			if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X' {
				return true
			}
		}
	}
	return false
}

// dropCapabilities empties the calling thread's capability sets. The
// bounding set needs CAP_SETPCAP to shrink; without it (not root) the
// thread has no capabilities to lose, and no_new_privs keeps exec from
// granting any.
func dropCapabilities() error {
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL || err == unix.EPERM { // past the last one; not ours to drop
			break
		}
		if err != nil {
			return fmt.Errorf("cannot drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("cannot drop capabilities: %w", err)
	}
	return nil
}

// privateTmp is a run's own temporary directory, TMPDIR, and the empty
// directory home in it, HOME.
type privateTmp struct{ dir, home string }

func newPrivateTmp() (privateTmp, error) {
	dir, err := os.MkdirTemp("", "agentsh-sandbox-")
	if err != nil {
		return privateTmp{}, fmt.Errorf("process: the sandbox's temporary directory: %w (set TMPDIR to a writable directory)", err)
	}
	// The rules are made by path, without following a last link.
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		t := privateTmp{dir: real, home: filepath.Join(real, "home")}
		if err = os.Mkdir(t.home, 0o700); err == nil {
			return t, nil
		}
	}
	_ = os.RemoveAll(dir)
	return privateTmp{}, fmt.Errorf("process: the sandbox's temporary directory: %w (set TMPDIR to a writable directory)", err)
}

// removeAll removes dir, whose directories a command may have left
// without the permissions removal needs.
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700) // before WalkDir reads it
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// proxyPort is the port of the proxy's address, the one TCP port a
// command may connect to.
func proxyPort(addr string) (int, error) {
	_, port, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n <= 0 || n > 65535 {
		return 0, fmt.Errorf("process: the network proxy's address %q has no port", addr)
	}
	return n, nil
}
