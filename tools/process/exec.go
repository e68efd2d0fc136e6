package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Defaults of LocalExec and BubblewrapExec.
const (
	// DefaultGrace is how long a stopped process group has between SIGTERM
	// and SIGKILL.
	DefaultGrace = 2 * time.Second
	// DefaultMaxOutput is how many bytes of output a run keeps: the first
	// half and the last half, with the middle dropped. A runaway `yes` costs
	// at most this much memory per run.
	DefaultMaxOutput = 4 << 20
	// DefaultPath is PATH when the process environment has none.
	DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

const (
	// killWait bounds the wait for a process group leader after SIGKILL
	// before the whole group is sent SIGKILL again (only a process stuck in
	// the kernel takes that long).
	killWait = 5 * time.Second
	// drainWait bounds the wait for the end of output once every process of
	// the group is gone: a process that left the group (setsid) may still
	// hold the pipe.
	drainWait = time.Second
	// sweepWait bounds the wait for the group's last processes to die after
	// the final SIGKILL.
	sweepWait = 2 * time.Second
)

// inheritedEnv are the variables DefaultEnv takes from the process
// environment, besides LC_*.
var inheritedEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
}

// DefaultEnv is the environment a process starts from when BaseEnv is nil:
// PATH (DefaultPath when unset), HOME, USER, LOGNAME, SHELL, LANG,
// LANGUAGE, LC_*, TZ and TMPDIR taken from agentsh's own environment, plus
// TERM=dumb. Nothing else is inherited, in particular not the API keys and
// tokens agentsh itself may hold; pass what a command needs in BaseEnv or
// ExecRequest.Env.
func DefaultEnv() []string {
	var env []string
	hasPath := false
	for _, kv := range os.Environ() {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !(inheritedEnv[k] || strings.HasPrefix(k, "LC_")) {
			continue
		}
		if k == "PATH" {
			hasPath = true
		}
		env = append(env, kv)
	}
	if !hasPath {
		env = append(env, "PATH="+DefaultPath)
	}
	return append(env, "TERM=dumb")
}

// LocalExec runs processes on this machine, in a directory below its root.
//
// Each process starts in a new session, so it has its own process group
// and no controlling terminal (it cannot open agentsh's terminal as
// /dev/tty, and the terminal's Ctrl-C does not reach it; its standard
// input is /dev/null or Stdin). When Timeout elapses or ctx ends, the group gets SIGTERM and,
// Grace later, SIGKILL. When the process itself exits, whatever it left
// running in its group (`cmd &`, `(cmd &)`) is killed with SIGKILL, so a run
// never leaves processes behind and never waits on a background process
// holding its output pipe. A process that leaves the group on purpose
// (setsid, setpgid, a daemon) escapes: LocalExec is not isolation; use
// BubblewrapExec, whose PID namespace ends with the run.
// If agentsh itself dies, the process gets SIGKILL (Pdeathsig), but what it
// started does not.
//
// The fields are read by Exec and must not change while Execs run; the
// zero values mean the defaults.
type LocalExec struct {
	// Grace is the time between SIGTERM and SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// MaxOutput is the number of output bytes kept (head and tail halves);
	// 0 means DefaultMaxOutput.
	MaxOutput int
	// BaseEnv is the environment ExecRequest.Env is added to (later
	// entries win); nil means DefaultEnv().
	BaseEnv []string

	root string
}

var _ ExecOps = (*LocalExec)(nil)

// NewLocalExec returns a LocalExec for directories below root. root is
// checked by each Exec, after resolving its symbolic links.
func NewLocalExec(root string) *LocalExec {
	return &LocalExec{root: root}
}

// Exec runs req. Args[0] is looked up on the PATH of the process's
// environment (relative PATH entries are skipped); a name with a slash is
// relative to Dir.
func (l *LocalExec) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	p, err := prepare(l.root, req, l.BaseEnv, nil)
	if err != nil {
		return ExecResult{ExitCode: -1}, err
	}
	cmd := &exec.Cmd{
		Path:        p.program,
		Args:        req.Args,
		Dir:         p.dir,
		Env:         p.env,
		SysProcAttr: sysProcAttr(),
	}
	return run(ctx, cmd, req, runConfig{grace: l.Grace, maxOutput: l.MaxOutput}, groupStopper{})
}

// prepared is an ExecRequest checked against a root.
type prepared struct {
	root    string // the root, absolute, symbolic links resolved
	dir     string // the working directory, likewise, inside root
	env     []string
	program string // Args[0] as found on PATH (or relative to dir)
}

// prepare checks req against root and resolves its directory, environment
// and program. extraEnv goes between the base and the request's Env.
func prepare(root string, req ExecRequest, base, extraEnv []string) (prepared, error) {
	var p prepared
	if len(req.Args) == 0 || req.Args[0] == "" {
		return p, errors.New("process: no program to run (Args is empty)")
	}
	var err error
	if p.root, p.dir, err = resolveDir(root, req.Dir); err != nil {
		return p, err
	}
	if base == nil {
		base = DefaultEnv()
	}
	p.env = make([]string, 0, len(base)+len(extraEnv)+len(req.Env))
	p.env = append(append(append(p.env, base...), extraEnv...), req.Env...)
	for _, kv := range p.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.IndexByte(kv, 0) >= 0 {
			return p, fmt.Errorf("process: environment entry %q is not KEY=VALUE", kv)
		}
	}
	p.env = dedupEnv(p.env)
	if p.program, err = lookPath(req.Args[0], envValue(p.env, "PATH"), p.dir); err != nil {
		return p, err
	}
	return p, nil
}

// resolveDir returns root and root/dir with symbolic links resolved,
// refusing a dir that is missing, not a directory, or outside root.
func resolveDir(root, dir string) (realRoot, realDir string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("process: working directory %s: %w", root, err)
	}
	realRoot, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", fmt.Errorf("process: working directory %s: %w", root, unwrapPathError(err))
	}
	if dir == "" {
		dir = "."
	}
	realDir, err = filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(dir)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("process: directory %q does not exist", dir)
		}
		return "", "", fmt.Errorf("process: directory %q: %w", dir, unwrapPathError(err))
	}
	if !within(realRoot, realDir) {
		return "", "", fmt.Errorf("process: directory %q resolves to %s, outside the working directory %s", dir, realDir, realRoot)
	}
	fi, err := os.Stat(realDir)
	if err != nil {
		return "", "", fmt.Errorf("process: directory %q: %w", dir, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("process: %q is not a directory", dir)
	}
	return realRoot, realDir, nil
}

// within reports whether path is root or below it; both are clean and
// absolute.
func within(root, path string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// dedupEnv keeps the last entry of each key, in the order of first
// appearance.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := env[:0:0]
	seen := make(map[string]bool, len(last))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, env[last[k]])
	}
	return out
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(env[i], "="); k == key {
			return v
		}
	}
	return ""
}

// lookPath finds name on pathList, or relative to dir when name has a
// slash. Relative PATH entries are skipped (what they mean would depend on
// the directory), as os/exec refuses them.
func lookPath(name, pathList, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("process: cannot run %q: %w", name, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathList) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("process: program %q not found on PATH", name)
}

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if fi.Mode()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// runConfig is what LocalExec and BubblewrapExec share.
type runConfig struct {
	grace     time.Duration
	maxOutput int
	// confine, when set, changes the thread the command is started
	// from, for good (see startLocked).
	confine threadConfiner
}

// threadConfiner confines the calling OS thread, so that a process it
// forks inherits the confinement (Landlock, seccomp, capabilities are
// per thread). reaped, when not nil, is called on the same thread once
// the process has exited and been reaped.
type threadConfiner func() (reaped func(), err error)

// stopper stops a running process group whose leader has pid.
type stopper interface {
	// terminate asks politely (SIGTERM).
	terminate(pid int)
	// kill insists (SIGKILL).
	kill(pid int)
}

// groupStopper signals the whole process group.
type groupStopper struct{}

func (groupStopper) terminate(pid int) { signalGroup(pid, false) }
func (groupStopper) kill(pid int)      { signalGroup(pid, true) }

// run starts cmd as the leader of a new process group (cmd.SysProcAttr
// must ask for one), feeds it req.Stdin, captures its output, stops it on
// req.Timeout or ctx, and returns once it and its group are gone.
func run(ctx context.Context, cmd *exec.Cmd, req ExecRequest, cfg runConfig, st stopper) (ExecResult, error) {
	res := ExecResult{ExitCode: -1}
	name := req.Args[0]
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("process: %s not started: %w", name, err)
	}
	grace := cfg.grace
	if grace <= 0 {
		grace = DefaultGrace
	}

	// One pipe for stdout and stderr keeps them in the order written.
	outR, outW, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("process: %s: %w", name, err)
	}
	defer outR.Close()
	cmd.Stdout, cmd.Stderr = outW, outW
	var inR, inW *os.File
	if len(req.Stdin) > 0 {
		if inR, inW, err = os.Pipe(); err != nil {
			outW.Close()
			return res, fmt.Errorf("process: %s: %w", name, err)
		}
		cmd.Stdin = inR
	}

	exited, finish, err := startLocked(cmd, st, cfg.confine)
	outW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		if inW != nil {
			inW.Close()
		}
		return res, fmt.Errorf("process: cannot start %s: %w", name, err)
	}
	pid := cmd.Process.Pid

	buf := newCapBuffer(cfg.maxOutput)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		_, _ = io.Copy(buf, outR)
	}()
	stdinDone := make(chan struct{})
	if inW != nil {
		go func() {
			defer close(stdinDone)
			_, _ = inW.Write(req.Stdin) // EPIPE when the process stops reading
			inW.Close()
		}()
	} else {
		close(stdinDone)
	}

	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-exited:
	case <-timeout:
		res.TimedOut = !closed(exited) // a tie goes to the process
	case <-ctx.Done():
		res.Canceled = !closed(exited)
	}
	if res.TimedOut || res.Canceled {
		stop(pid, exited, grace, st)
	}

	// The leader has exited but is not reaped yet, so its pid, which is
	// the group's id, cannot be reused: whatever is left in the group is
	// ours to kill.
	sweepGroup(pid)
	untrack(pid) // before reaping, while pid cannot be reused
	werr := reap(cmd)
	finish()

	// Every writer in the group is gone; read what is left in the pipe.
	_ = outR.SetReadDeadline(time.Now().Add(drainWait))
	<-readDone
	if inW != nil {
		_ = inW.SetWriteDeadline(time.Now())
	}
	<-stdinDone

	res.Output = buf.Bytes()
	if cmd.ProcessState != nil {
		res.ExitCode = exitCode(cmd.ProcessState)
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return res, fmt.Errorf("process: wait for %s: %w", name, werr)
	}
	return res, nil
}

// startLocked starts cmd and waits for it to exit, without reaping it, on
// one locked OS thread: a parent-death signal (Pdeathsig, bwrap's
// --die-with-parent) is tied to the thread that forked, which must not
// exit while the process runs. The group is tracked for KillAll from the
// moment it exists. exited is closed when it has exited; call finish
// once it has been reaped.
//
// confine, when not nil, confines that thread before the start, and its
// reaped hook runs there when finish is called; finish returns when it
// is done. The thread is never unlocked: the goroutine returns while
// locked, and the Go runtime ends the thread instead of running other
// goroutines on it with its confinement. (While it is locked, the
// runtime makes new threads from a clean one, not from it.)
func startLocked(cmd *exec.Cmd, st stopper, confine threadConfiner) (exited <-chan struct{}, finish func(), err error) {
	started := make(chan error, 1)
	done := make(chan struct{})
	reaped, swept := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(swept)
		lockThread()
		var hook func()
		if confine == nil {
			defer unlockThread()
		} else {
			var err error
			if hook, err = confine(); err != nil {
				started <- err
				return
			}
		}
		err := startTracked(cmd, st)
		started <- err
		if err != nil {
			return
		}
		waitExit(cmd)
		close(done)
		if hook != nil {
			<-reaped
			hook()
		}
	}()
	finish = func() {
		close(reaped)
		<-swept
	}
	return done, finish, <-started
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL after grace, until the leader exits.
func stop(pid int, exited <-chan struct{}, grace time.Duration, st stopper) {
	st.terminate(pid)
	g := time.NewTimer(grace)
	defer g.Stop()
	select {
	case <-exited:
		return
	case <-g.C:
	}
	st.kill(pid)
	k := time.NewTimer(killWait)
	defer k.Stop()
	select {
	case <-exited:
		return
	case <-k.C:
	}
	signalGroup(pid, true)
	<-exited
}
