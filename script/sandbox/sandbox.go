// Package sandbox runs run_code's Starlark and Lua snippets in a child
// process under kernel limits, so that a snippet can neither take its
// parent down nor outlive its deadline: a memory bomb ends the child, not
// the program, and a builtin that runs for minutes is killed at the
// deadline however long its next step would take.
//
// The child is this program itself, run again (the kernel's
// /proc/self/exe). A program opts in by calling Init first thing in main
// (a test binary: in TestMain); Init turns the process into the child when
// it was started as one. cmd/agentsh does this and wires a Sandbox as the
// run_code runners:
//
//	func main() {
//		sandbox.Init()
//		...
//		sb := sandbox.New(sandbox.Config{})
//		cfg := tools.ExtensionConfig{WorkingDir: dir, Runners: map[string]tools.CodeRunner{
//			"starlark": sb.Runner("starlark"), "lua": sb.Runner("lua"),
//		}}
//
// The languages are the registered script languages (script.Language)
// that have a RunSandboxed: a program gets Starlark and Lua by importing
// script/starlark and script/lua, as cmd/agentsh does.
//
// In a program that did not call Init, Run fails with ErrNotInitialized
// and starts nothing. Such a program can still run snippets in its own
// process with starlark.RunSandboxed and lua.RunSandboxed (the same
// interpreters the child runs), without the kernel limits.
//
// # The child
//
// The child starts in a session and process group of its own with an
// environment of GOMAXPROCS=1 (and TZ, when set), standard input, output
// and error only, and gets SIGKILL if the parent dies. Before it reads the
// snippet it closes any inherited descriptor and sets its limits on
// itself (process.RestrictSelf): address space (Config.Memory, default 256
// MiB above what the Go runtime reserves at start-up), CPU time (the
// deadline plus a second, a backstop behind the parent's kill; 60 s for a
// call without a deadline), no file writes, 64 descriptors, no core
// dumps, no_new_privs. The limits come on the command line, the
// snippet on standard input. Then it runs the in-process sandbox
// (starlark.RunSandboxed or lua.RunSandboxed) with the call's deadline and
// writes one reply with the output and the error.
//
// The parent kills the child's process group with SIGKILL at the deadline,
// after a grace of 100 ms in which a snippet that stops at its deadline
// reports its output, and at once when the call is canceled. A child that
// dies of a limit becomes a *process.LimitError ("exceeded the memory
// limit (256 MiB)"); a timeout is an error that wraps
// context.DeadlineExceeded.
//
// With Config.Bubblewrap the child also runs inside Bubblewrap, with the
// mounts and namespaces of the bash tool's sandbox (no network, a
// read-only file system) and this program bound read-only into it.
//
// Output is the in-process runner's, byte for byte; like it, the child
// keeps at most 1 Mi characters of output (first and last halves around a
// marker when a single print was longer).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/process"
)

// runner returns the in-process runner of the language name: the
// RunSandboxed of a registered script language.
func runner(name string) (func(ctx context.Context, code string, maxSteps uint64) (string, error), bool) {
	l, ok := script.LookupLanguage(name)
	if !ok || l.RunSandboxed == nil || l.Name != name {
		return nil, false
	}
	return l.RunSandboxed, true
}

// Languages returns the languages a Sandbox runs, sorted: the registered
// script languages that have a sandboxed runner, by name.
func Languages() []string {
	var names []string
	for _, l := range script.Languages() {
		if l.RunSandboxed != nil {
			names = append(names, l.Name)
		}
	}
	return names
}

// KillGrace is how long after the deadline the parent waits for a child
// that stopped at its deadline to report, before it kills the child.
const KillGrace = 100 * time.Millisecond

// Bounds of what a child sends back.
const (
	// maxOutputChars bounds a snippet's output, as the in-process
	// runners do (their bound is on bytes, checked before each print).
	maxOutputChars = 1 << 20
	// maxMessageChars bounds an error message.
	maxMessageChars = 64 << 10
	// maxReply is what the parent keeps of the child's standard output: a
	// whole reply, at most 4 bytes per character, and its header.
	maxReply = 4*(maxOutputChars+maxMessageChars) + 256
	// maxStderr is what the parent keeps of the child's standard error,
	// where the Go runtime reports a fatal error.
	maxStderr = 64 << 10
)

// ErrNotInitialized is the error of Run in a program that did not call
// Init.
var ErrNotInitialized = errors.New("sandbox: this program cannot run snippets in a child process because it did not call sandbox.Init() first thing in main (or TestMain); call it there, or run snippets in-process with starlark.RunSandboxed or lua.RunSandboxed, without kernel limits")

// initialized is set by Init in a parent.
var initialized atomic.Bool

// Init makes this program a possible sandbox child. When the process was
// started as a child by a Sandbox, Init runs the snippet it was sent and
// exits the process: it never returns. Otherwise it returns at once, and
// Run works in this process from then on. Call it first thing in main,
// before flags are parsed or standard input is read; a test binary whose
// tests run snippets calls it first thing in TestMain. Package
// initialisers run in the child as in any process, before Init.
func Init() {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		os.Exit(childMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	initialized.Store(true)
}

// Config configures a Sandbox. The zero value is usable.
type Config struct {
	// MaxSteps bounds a Starlark snippet's execution steps; 0 means
	// starlark.DefaultMaxSteps.
	MaxSteps uint64
	// Memory bounds a child's memory (see process.Limits.Memory), in
	// bytes; 0 means process.DefaultMemory (256 MiB). SetMemory changes
	// it.
	Memory int64
	// MemoryHint, when set, ends the error of a child that exceeded the
	// memory or stack limit (a quarter of the memory limit): what a user
	// does to raise the limit, given in bytes. cmd/agentsh names its
	// config() key.
	MemoryHint func(limit int64) string
	// Bubblewrap, when set, runs each child inside its sandbox.
	Bubblewrap *process.BubblewrapExec
}

// Sandbox runs snippets in child processes. It is safe for concurrent use;
// every Run has a child of its own.
type Sandbox struct {
	cfg    Config
	memory atomic.Int64
}

// New returns a Sandbox for cfg.
func New(cfg Config) *Sandbox {
	s := &Sandbox{cfg: cfg}
	s.SetMemory(cfg.Memory)
	return s
}

// SetMemory changes the memory limit of the children started from now on;
// 0 means process.DefaultMemory.
func (s *Sandbox) SetMemory(bytes int64) {
	if bytes <= 0 {
		bytes = process.DefaultMemory
	}
	s.memory.Store(bytes)
}

// Memory is the memory limit of new children, in bytes.
func (s *Sandbox) Memory() int64 { return s.memory.Load() }

// Runner returns a function that runs lang's snippets with Run, the shape
// of a tools.CodeRunner.
func (s *Sandbox) Runner(lang string) func(ctx context.Context, code string) (string, error) {
	return func(ctx context.Context, code string) (string, error) { return s.Run(ctx, lang, code) }
}

// Run runs code, a snippet of lang ("starlark" or "lua"), in a child
// process until it ends or ctx does, and returns what it printed with the
// snippet's error, if any. The output and error text are those of the
// in-process runner. A snippet stopped at ctx's deadline returns an error
// that wraps context.DeadlineExceeded, with the output it printed when it
// stopped by itself; one stopped by the kernel returns a
// *process.LimitError; when ctx is canceled, the child is killed and the
// error wraps ctx's.
func (s *Sandbox) Run(ctx context.Context, lang, code string) (string, error) {
	if _, ok := runner(lang); !ok {
		return "", fmt.Errorf("sandbox: unknown language %q; want one of %s", lang, strings.Join(Languages(), ", "))
	}
	if !initialized.Load() {
		return "", ErrNotInitialized
	}
	if err := ctx.Err(); err != nil {
		return "", stopped(ctx)
	}
	req := request{lang: lang, maxSteps: s.cfg.MaxSteps, limits: process.Limits{Memory: s.Memory()}}
	if dl, ok := ctx.Deadline(); ok {
		req.timeout = time.Until(dl)
		if req.timeout <= 0 {
			return "", stopped(ctx)
		}
		// The kernel's CPU limit is a backstop behind the parent's kill.
		req.limits.CPU = req.timeout + KillGrace + time.Second
	}
	kctx, cancel := killContext(ctx, KillGrace)
	defer cancel()
	res, err := process.RunSelf(kctx, process.SelfRequest{
		Args:      req.args(),
		Env:       childEnv(),
		Stdin:     []byte(code),
		MaxOutput: maxReply,
		Sandbox:   s.cfg.Bubblewrap,
	})
	if err != nil {
		return "", fmt.Errorf("%s sandbox: %w", lang, err)
	}
	if r, ok := parseReply(res.Stdout); ok {
		return r.result()
	}
	if res.Killed {
		return "", stopped(ctx)
	}
	if err := req.limits.Exceeded(res); err != nil {
		var le *process.LimitError
		if errors.As(err, &le) && le.Resource != "cpu time" && s.cfg.MemoryHint != nil {
			le.Hint = s.cfg.MemoryHint(req.limits.Memory)
		}
		return "", err
	}
	return "", crashed(lang, res)
}

// killContext returns a context that ends grace after ctx's deadline, or
// with ctx when ctx is canceled before its deadline.
func killContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	kctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl.Add(grace))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return kctx, func() { stop(); cancel() }
}

// stopped is the error of a run that ctx ended.
func stopped(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out; the sandbox process was killed: %w", context.DeadlineExceeded)
	}
	return fmt.Errorf("canceled; the sandbox process was killed: %w", ctx.Err())
}

// crashed is the error of a child that ended without a reply, not of a
// limit.
func crashed(lang string, res process.SelfResult) error {
	msg := strings.TrimSpace(string(res.Stderr))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = "no message"
	}
	return fmt.Errorf("the %s sandbox process ended with exit code %d without a reply: %s", lang, res.ExitCode, msg)
}

// childEnv is a child's whole environment. One P is enough for a
// single-threaded interpreter, keeps CPU time close to wall time and
// makes start-up cheaper; TZ keeps time.now() what it is in the parent.
func childEnv() []string {
	env := []string{"GOMAXPROCS=1"}
	if tz, ok := os.LookupEnv("TZ"); ok {
		env = append(env, "TZ="+tz)
	}
	if raceEnv != "" {
		env = append(env, raceEnv)
	}
	return env
}
