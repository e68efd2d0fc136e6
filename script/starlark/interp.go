package starlark

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/agentsh/agentsh/script"
	star "go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// DefaultMaxSteps is the step budget of a top-level run and of each call
// into a script function when Options.MaxSteps is 0.
const DefaultMaxSteps = 100_000_000

// Options configures an Interp; see script.Options. MaxSteps 0 means
// DefaultMaxSteps.
type Options = script.Options

func init() {
	script.RegisterLanguage(script.Language{
		Name:         "starlark",
		Aliases:      []string{"star"},
		Extensions:   []string{".star"},
		New:          func(h *script.Host, opts script.Options) script.Interp { return New(h, opts) },
		RunSandboxed: RunSandboxed,
	})
}

var _ script.Interp = (*Interp)(nil)

// fileOptions is the agentsh dialect: a shell, not a build language.
var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// Interp runs Starlark against a script.Host.
type Interp struct {
	host        *script.Host
	opts        Options
	predeclared star.StringDict

	loadMu  sync.Mutex
	modules map[string]*module // by absolute path

	hooks threadHooks

	globals star.StringDict // REPL and Exec globals, created on first use
	froze   frozenFlag      // a registration froze globals (see explainFrozen)
}

type module struct {
	globals star.StringDict
	err     error
	loading bool
}

// New returns an interpreter for host.
func New(host *script.Host, opts Options) *Interp {
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	in := &Interp{host: host, opts: opts, modules: map[string]*module{}}
	in.hooks = threadHooks{print: in.print, load: in.load, onMaxSteps: in.onMaxSteps}
	in.predeclared = in.builtins()
	return in
}

// Host returns the interpreter's host.
func (in *Interp) Host() *script.Host { return in.host }

const (
	ctxKey  = "agentsh.ctx"
	dirKey  = "agentsh.dir"
	fileKey = "agentsh.file"
)

// newThread returns a thread for one run or call: its context, step
// budget, print sink, loader and clock. The returned stop function must be
// called when the thread is done.
func (in *Interp) newThread(ctx context.Context, name, dir string) (*star.Thread, func() bool) {
	t := &star.Thread{Name: name, Print: in.hooks.print, Load: in.hooks.load, OnMaxSteps: in.hooks.onMaxSteps}
	t.SetLocal(ctxKey, script.WithClock(ctx, in.opts.Now))
	if dir == "." {
		t.SetLocal(dirKey, dotDir) // the directory of every call: boxed once
	} else {
		t.SetLocal(dirKey, dir)
	}
	t.SetLocal(interpKey, in)
	t.SetMaxExecutionSteps(in.opts.MaxSteps)
	if ctx.Done() == nil {
		return t, neverStopped // nothing can cancel the thread
	}
	stop := context.AfterFunc(ctx, func() { t.Cancel(cancelReason(ctx)) })
	return t, stop
}

func neverStopped() bool { return false }

var dotDir any = "."

// threadHooks are the functions every thread of an interpreter calls,
// bound to it once: a call into a script function makes a thread, and
// binding each anew would cost the call an allocation.
type threadHooks struct {
	print      func(*star.Thread, string)
	load       func(*star.Thread, string) (star.StringDict, error)
	onMaxSteps func(*star.Thread)
}

func (in *Interp) print(_ *star.Thread, msg string) { in.host.Print(msg) }

func (in *Interp) onMaxSteps(t *star.Thread) {
	t.Cancel((&script.StepBudgetError{Max: in.opts.MaxSteps}).Error())
}

func cancelReason(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timed out"
	}
	return "canceled"
}

// threadContext returns the context of the call a thread runs for.
func threadContext(t *star.Thread) context.Context {
	if ctx, ok := t.Local(ctxKey).(context.Context); ok {
		return ctx
	}
	return context.Background()
}

// ExecFile runs the file at path (a .star script) as a top-level program
// and returns its globals.
func (in *Interp) ExecFile(ctx context.Context, path string) (star.StringDict, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return in.ExecSource(ctx, path, src)
}

// ExecSource runs src as the file filename (which names it in errors and
// anchors relative load() paths).
func (in *Interp) ExecSource(ctx context.Context, filename string, src []byte) (star.StringDict, error) {
	dir := "."
	if filename != "" && filename[0] != '<' {
		dir = filepath.Dir(filename)
	}
	if filename != "" && filename[0] != '<' {
		// While it runs, the entry file counts as loading, so a load()
		// cycle back to it is caught instead of running it twice.
		if abs, err := filepath.Abs(filename); err == nil {
			in.loadMu.Lock()
			if _, busy := in.modules[abs]; !busy {
				in.modules[abs] = &module{loading: true}
				defer func() {
					in.loadMu.Lock()
					delete(in.modules, abs)
					in.loadMu.Unlock()
				}()
			}
			in.loadMu.Unlock()
		}
	}
	t, stop := in.newThread(ctx, filename, dir)
	defer stop()
	g, err := star.ExecFileOptions(fileOptions, t, filename, src, in.predeclared)
	return g, in.runError(ctx, err)
}

// runError classifies a top-level error: a cancelled run reports the
// context's error alongside the script position.
func (in *Interp) runError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	return script.Interrupted(ctx, wrapError(in.explainFrozen(err)))
}

// load implements load("path.star", ...) relative to the loading file.
func (in *Interp) load(t *star.Thread, name string) (star.StringDict, error) {
	if filepath.Ext(name) != ".star" {
		return nil, fmt.Errorf("load %q: only .star files can be loaded (modules such as json are predeclared)", name)
	}
	dir, _ := t.Local(dirKey).(string)
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load %q: %v", name, err)
	}
	in.loadMu.Lock()
	m := in.modules[abs]
	if m != nil {
		in.loadMu.Unlock()
		if m.loading {
			return nil, fmt.Errorf("load %q: cycle in load graph", name)
		}
		return m.globals, m.err
	}
	m = &module{loading: true}
	in.modules[abs] = m
	in.loadMu.Unlock()

	src, err := os.ReadFile(path)
	if err != nil {
		m.err = fmt.Errorf("load %q: %w", name, err)
	} else {
		ctx := threadContext(t)
		lt, stop := in.newThread(ctx, path, filepath.Dir(path))
		g, err := star.ExecFileOptions(fileOptions, lt, path, src, in.predeclared)
		stop()
		if err != nil {
			m.err = wrapError(err)
		} else {
			g.Freeze()
			m.globals = g
		}
	}
	in.loadMu.Lock()
	m.loading = false
	if m.err != nil {
		delete(in.modules, abs) // a fixed file can be loaded again
	}
	in.loadMu.Unlock()
	return m.globals, m.err
}

// scriptFunc is a registered Starlark callable, frozen, callable from any
// goroutine.
type scriptFunc struct {
	in   *Interp
	fn   star.Callable
	name string
}

var (
	_ script.Func    = (*scriptFunc)(nil)
	_ script.Sourcer = (*scriptFunc)(nil)
)

// register freezes fn and what it sees, and wraps it for the host.
func (in *Interp) register(fn star.Callable) *scriptFunc {
	fn.Freeze()
	if f, ok := fn.(*star.Function); ok {
		f.Globals().Freeze()
	}
	return &scriptFunc{in: in, fn: fn, name: funcName(fn)}
}

func (f *scriptFunc) Name() string { return f.name }

// Source is where the function was defined, file:line; "" for a builtin.
func (f *scriptFunc) Source() string {
	if fn, ok := f.fn.(*star.Function); ok {
		pos := fn.Position()
		return fmt.Sprintf("%s:%d", pos.Filename(), pos.Line)
	}
	return ""
}

// Call runs the function on a fresh thread under ctx.
func (f *scriptFunc) Call(ctx context.Context, args ...any) (any, error) {
	t, stop := f.in.newThread(ctx, f.name, ".")
	defer stop()
	sargs := make(star.Tuple, len(args))
	for i, a := range args {
		v, err := fromGo(a)
		if err != nil {
			return nil, fmt.Errorf("%s: argument: %w", f.name, err)
		}
		sargs[i] = v
	}
	v, err := star.Call(t, f.fn, sargs, nil)
	if err != nil {
		err = f.in.explainFrozen(explainShared(err, args))
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), wrapError(err))
		}
		return nil, wrapError(err)
	}
	out, err := toGo(v, "return value")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	return out, nil
}

// LoadFile runs the file at path and adds its globals to the REPL globals
// (agentsh run, --load, :load).
func (in *Interp) LoadFile(ctx context.Context, path string) error {
	g, err := in.ExecFile(ctx, path)
	in.Define(g)
	return err
}

// Run runs src as the program filename and adds its globals to the REPL
// globals (a program piped to agentsh).
func (in *Interp) Run(ctx context.Context, filename string, src []byte) error {
	g, err := in.ExecSource(ctx, filename, src)
	in.Define(g)
	return err
}

// Eval runs src against the REPL globals and returns the value of a sole
// expression as str() shows it; "" for None and for statements.
func (in *Interp) Eval(ctx context.Context, filename string, src []byte) (string, error) {
	f, err := replOptions.Parse(filename, src, 0)
	if err != nil {
		return "", wrapError(err)
	}
	v, err := in.runChunk(ctx, f)
	if err != nil || v == nil || v == star.None {
		return "", err
	}
	return v.String(), nil
}

// Functions returns the global functions that code run by the interpreter
// defined or loaded, sorted.
func (in *Interp) Functions() []string {
	var names []string
	for name, v := range in.replGlobals() {
		if _, ok := v.(star.Callable); ok && !in.isPredeclared(name, v) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// isPredeclared reports whether v is the predeclared value of name.
func (in *Interp) isPredeclared(name string, v star.Value) (same bool) {
	p, ok := in.predeclared[name]
	if !ok {
		return false
	}
	defer func() { _ = recover() }() // an incomparable value is not p
	return p == v
}

// CallGlobal calls the global function name with no arguments, as Call
// does.
func (in *Interp) CallGlobal(ctx context.Context, name string) error {
	fn, ok := in.replGlobals()[name]
	if !ok {
		return fmt.Errorf("%s is not defined", name)
	}
	_, err := in.Call(ctx, fn)
	return err
}

// Close does nothing: a Starlark interpreter holds nothing to release.
func (in *Interp) Close() error { return nil }
