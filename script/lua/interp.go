package lua

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsh/agentsh/script"
	lua "github.com/yuin/gopher-lua"
)

// errClosed is the error of using an interpreter after Close.
var errClosed = errors.New("the Lua interpreter is closed")

// Options configures an Interp; see script.Options. MaxSteps bounds the
// Lua instructions of each top-level run and of each call into a Lua
// function; 0 means DefaultMaxSteps.
type Options = script.Options

func init() {
	script.RegisterLanguage(script.Language{
		Name:         "lua",
		Extensions:   []string{".lua"},
		New:          func(h *script.Host, opts script.Options) script.Interp { return New(h, opts) },
		RunSandboxed: RunSandboxed,
	})
}

var _ script.Interp = (*Interp)(nil)

// Stack limits of every Lua thread: frames of the call stack, and slots of
// the value stack (which grows in steps up to its maximum).
const (
	callStackSize   = 256
	registrySize    = 1024
	registryMaxSize = 256 * 1024
	// registryGrowStep is how many slots the value stack grows by at a
	// time; gopher-lua's default of 32 makes filling it quadratic (a single
	// unpack of a large table ran for seconds, deaf to its context).
	registryGrowStep = 4096
)

// maxIdleThreads bounds the threads kept for reuse.
const maxIdleThreads = 16

// Interp runs Lua against a script.Host. It is safe for concurrent use:
// see the package documentation for how calls share it.
type Interp struct {
	host *script.Host
	opts Options

	// gil is held while Lua code runs on any thread of the main state.
	gil chan struct{}
	// epoch counts the times Lua code that may change what functions
	// reach (upvalues, globals, tables) started to run on the main state;
	// replicas compare it with the epoch of their copies.
	epoch atomic.Uint64

	state                                     // the main state; its main thread never runs code itself
	idle             []*lua.LState            // threads of the main state kept for reuse
	metatables                                // shared by every state: sealed, so never written
	states           atomic.Pointer[[]*state] // the replicas' states
	pool             replicaPool
	verdicts         map[*lua.LFunction]*verdict  // whether a function may run on a replica; under gil
	protos           sync.Map                     // *lua.FunctionProto -> *protoInfo
	pristine         map[*lua.LTable][]lua.LValue // the predeclared tables as installed
	mainOnly         map[lua.LValue]string        // predeclared functions that run only on the main state
	predeclaredValue map[lua.LValue]bool          // functions and host values installed by New

	modules map[string]*module // require()d files, by absolute path
	repl    *lua.LTable        // REPL and Exec globals, created on first use
	closed  atomic.Bool
}

type module struct {
	value   lua.LValue
	loading bool
}

// New returns an interpreter for host.
func New(host *script.Host, opts Options) *Interp {
	in := &Interp{host: host, opts: opts, gil: make(chan struct{}, 1), modules: map[string]*module{},
		verdicts: map[*lua.LFunction]*verdict{}}
	in.states.Store(&[]*state{})
	in.initMetatables()
	in.initState(&in.state)
	in.notePredeclared()
	in.pool.init(in)
	return in
}

// argTable is Lua's arg: arg[0] is the script, arg[1] the first argument.
func (in *Interp) argTable(L *lua.LState) *lua.LTable {
	t := L.CreateTable(len(in.opts.Argv), 1)
	for i, a := range in.opts.Argv {
		t.RawSetInt(i, lua.LString(a))
	}
	return t
}

var stateOptions = lua.Options{
	SkipOpenLibs:     true,
	CallStackSize:    callStackSize,
	RegistrySize:     registrySize,
	RegistryMaxSize:  registryMaxSize,
	RegistryGrowStep: registryGrowStep,
}

// Host returns the interpreter's host.
func (in *Interp) Host() *script.Host { return in.host }

// Close releases the Lua states. Afterwards registered functions fail with
// an error, and nothing runs. It always returns nil.
func (in *Interp) Close() error {
	in.lock()
	defer in.release()
	if in.closed.Load() {
		return nil
	}
	in.closed.Store(true)
	for _, t := range in.idle {
		t.Close()
	}
	in.idle = nil
	in.main.Close()
	in.pool.close()
	return nil
}

// acquire takes the interpreter lock, or gives up when ctx ends first.
// The Lua code that runs next may change what functions reach: the epoch
// moves on.
func (in *Interp) acquire(ctx context.Context) error {
	if err := in.acquireQuiet(ctx); err != nil {
		return err
	}
	in.epoch.Add(1)
	return nil
}

// acquireQuiet takes the lock for code that changes nothing a replica
// copies: reading the main state, or a function whose verdict allows it
// to run on a replica.
func (in *Interp) acquireQuiet(ctx context.Context) error {
	select {
	case in.gil <- struct{}{}:
		return nil
	default:
	}
	select {
	case in.gil <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the Lua interpreter: %w", ctx.Err())
	}
}

func (in *Interp) lock() {
	in.gil <- struct{}{}
	in.epoch.Add(1)
}
func (in *Interp) release() { <-in.gil }

// unlocked runs fn, which waits in the host (and may run script code on
// this or other goroutines), without the lock of L's state. Lua code
// running on this thread is suspended meanwhile; on the main state the
// lock is taken back before it resumes, and on a replica the copies are
// brought up to date with what the main state changed meanwhile.
func (in *Interp) unlocked(L *lua.LState, fn func()) {
	if st := in.stateOf(L); st.replica != nil {
		fn()
		if err := st.replica.catchUp(); err != nil {
			L.RaiseError("%v", err)
		}
		return
	}
	in.release()
	// The lock is taken back even when fn raises a Lua error (a panic
	// that unwinds to the pcall below), which expects it held.
	defer func() {
		if b, ok := callContext(L).(*budget); ok && b.quiet {
			in.gil <- struct{}{}
		} else {
			in.lock()
		}
	}()
	fn()
}

// thread returns an idle thread (or a new one) bound to ctx. Call it with
// the lock held; give the thread back with putThread.
func (in *Interp) thread(ctx context.Context) *lua.LState {
	var L *lua.LState
	if n := len(in.idle); n > 0 {
		L, in.idle = in.idle[n-1], in.idle[:n-1]
	} else {
		var cancel context.CancelFunc
		L, cancel = in.main.NewThread()
		if cancel != nil {
			cancel()
		}
	}
	L.SetContext(withBudget(script.WithClock(ctx, in.opts.Now), in.maxSteps()))
	return L
}

func (in *Interp) putThread(L *lua.LState) {
	L.RemoveContext()
	if in.broken[L] {
		delete(in.broken, L)
		L.Close()
		return
	}
	L.SetTop(0)
	if len(in.idle) < maxIdleThreads && !in.closed.Load() {
		in.idle = append(in.idle, L)
		return
	}
	L.Close()
}

// Globals are the globals of one executed file.
type Globals struct{ env *lua.LTable }

// newEnv returns a fresh global environment: its own names, falling back
// to the predeclared ones.
func (in *Interp) newEnv(L *lua.LState) *lua.LTable {
	env := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", in.stateOf(L).predeclared)
	env.Metatable = mt
	env.RawSetString("_G", env)
	return env
}

// ExecFile runs the .lua file at path as a top-level program.
func (in *Interp) ExecFile(ctx context.Context, path string) (*Globals, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return in.ExecSource(ctx, path, src)
}

// ExecSource runs src as the file filename, which names it in errors and
// anchors require().
func (in *Interp) ExecSource(ctx context.Context, filename string, src []byte) (*Globals, error) {
	if err := in.acquire(ctx); err != nil {
		return nil, err
	}
	defer in.release()
	if in.closed.Load() {
		return nil, errClosed
	}
	if filename != "" && filename[0] != '<' {
		// While it runs, the entry file counts as being required, so a
		// require cycle back to it is caught instead of running it twice.
		if abs, err := filepath.Abs(filename); err == nil && in.modules[abs] == nil {
			in.modules[abs] = &module{loading: true}
			defer delete(in.modules, abs)
		}
	}
	L := in.thread(ctx)
	defer in.putThread(L)
	env := in.newEnv(L)
	if _, err := in.runChunk(ctx, L, filename, skipShebang(src), env, 0); err != nil {
		return nil, err
	}
	return &Globals{env: env}, nil
}

// skipShebang blanks a first line starting with #, as the lua command
// does, so that a script can start with #!/usr/bin/env agentsh. The line
// break stays, and with it the line numbers.
func skipShebang(src []byte) []byte {
	if len(src) == 0 || src[0] != '#' {
		return src
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		return src[i:]
	}
	return nil
}

// runChunk compiles src, runs it with env as its globals, and returns its
// results (at most nret, or all when nret is lua.MultRet).
func (in *Interp) runChunk(ctx context.Context, L *lua.LState, filename string, src []byte, env *lua.LTable, nret int) ([]lua.LValue, error) {
	fn, err := L.Load(bytes.NewReader(src), filename)
	if err != nil {
		return nil, syntaxError(err)
	}
	fn.Env = env
	top := L.GetTop()
	L.Push(fn)
	if err := in.pcall(L, 0, nret); err != nil {
		return nil, in.runError(ctx, err)
	}
	n := L.GetTop() - top
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out, nil
}

// pcall is L.PCall with the interpreter's error handler: the traceback is
// taken while the failing frames are still there, and bounded, where
// gopher-lua's own would list every tail call of a long loop.
func (in *Interp) pcall(L *lua.LState, nargs, nret int) (err error) {
	st := in.stateOf(L)
	defer func() {
		if r := recover(); r != nil {
			// With the value stack full (a registry overflow), PCall
			// cannot push the handler and panics instead of returning.
			// The thread's stacks are left inconsistent: retire it.
			err = overflowError(r)
			st.broken[L] = true
		}
	}()
	err = L.PCall(nargs, nret, st.onError)
	if err == nil {
		return nil
	}
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.StackTrace == "" {
		ae.StackTrace = st.traces[L]
	}
	delete(st.traces, L)
	return err
}

// runError converts a Lua error, noting the context when it ended the run.
func (in *Interp) runError(ctx context.Context, err error) error {
	return script.Interrupted(ctx, wrapError(err))
}

// require implements require(name): an agentsh module, or name.lua next to
// the requiring file (dots separate directories), run once.
func (in *Interp) require(L *lua.LState) int {
	name := L.CheckString(1)
	if m := in.predeclared.RawGetString(name); stdlibModules[name] && m != lua.LNil {
		L.Push(m)
		return 1
	}
	if name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) || strings.ContainsAny(name, `\`) {
		L.RaiseError("require %q: want a module name such as \"helpers\" or \"lib.strings\" (a .lua file next to the script)", name)
	}
	rel := strings.ReplaceAll(strings.TrimSuffix(name, ".lua"), ".", "/") + ".lua"
	path := filepath.Join(callerDir(L), rel)
	abs, err := filepath.Abs(path)
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	m := in.modules[abs]
	if m != nil {
		if m.loading {
			L.RaiseError("require %q: cycle in require graph", name)
		}
		L.Push(m.value)
		return 1
	}
	src, err := os.ReadFile(path)
	if err != nil {
		L.RaiseError("require %q: %v (modules are json, re, time, state, or .lua files next to the script)", name, err)
	}
	src = skipShebang(src)
	m = &module{loading: true}
	in.modules[abs] = m
	env := in.newEnv(L)
	vals, err := in.runChunk(L.Context(), L, path, src, env, 1)
	if err != nil {
		delete(in.modules, abs) // a fixed file can be required again
		L.RaiseError("require %q: %v", name, err)
	}
	m.loading = false
	m.value = env
	if len(vals) > 0 && vals[0] != lua.LNil {
		m.value = vals[0]
	}
	L.Push(m.value)
	return 1
}

// callerDir is the directory of the Lua function that called the running
// built-in, "." for chunks that are not files.
func callerDir(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return "."
	}
	if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil || dbg.Source == "" || strings.HasPrefix(dbg.Source, "<") {
		return "."
	}
	return filepath.Dir(dbg.Source)
}

// luaFunc is a registered Lua function, callable from any goroutine.
type luaFunc struct {
	in   *Interp
	fn   *lua.LFunction
	name string
	// stranded marks a function made during a call on a replica: its
	// upvalues live there, so it cannot be called once the call is over.
	stranded bool
}

var (
	_ script.Func    = (*luaFunc)(nil)
	_ script.Sourcer = (*luaFunc)(nil)
)

func (f *luaFunc) Name() string { return f.name }

// Source is where the function was defined, file:line; "" for a Go
// function.
func (f *luaFunc) Source() string {
	if p := f.fn.Proto; p != nil {
		return fmt.Sprintf("%s:%d", p.SourceName, p.LineDefined)
	}
	return ""
}

// Call runs the function on a replica when its verdict allows and one is
// free, else on a thread of its own in the main state, holding the
// interpreter lock except while the function waits in the host.
func (f *luaFunc) Call(ctx context.Context, args ...any) (any, error) {
	if f.stranded {
		return nil, fmt.Errorf("%s was made during a call that ran in parallel and cannot be called after it; define it at the top level of the script", f.name)
	}
	if r := f.in.pool.get(); r != nil {
		out, err, ran := r.call(ctx, f.fn, f.name, args)
		f.in.pool.put(r)
		if ran {
			return out, err
		}
	}
	return f.in.callFunction(ctx, f.fn, f.name, args)
}

// callFunction runs fn in the main state. A function that may run on a
// replica runs here without moving the epoch on, and its tables are
// checked afterwards (verdict.go).
func (in *Interp) callFunction(ctx context.Context, fn *lua.LFunction, name string, args []any) (any, error) {
	if err := in.acquireQuiet(ctx); err != nil {
		return nil, err
	}
	defer in.release()
	if in.closed.Load() {
		return nil, errClosed
	}
	v := in.verdictOf(fn)
	if !v.parallel() {
		in.epoch.Add(1)
	}
	L := in.thread(ctx)
	defer in.putThread(L)
	L.Context().(*budget).quiet = v.parallel()
	out, err := in.callOn(ctx, L, fn, name, args)
	if v.parallel() {
		in.checkVerdict(fn, v)
	}
	return out, err
}

// callOn calls fn with args on the thread L and converts its result.
func (in *Interp) callOn(ctx context.Context, L *lua.LState, fn *lua.LFunction, name string, args []any) (any, error) {
	L.Push(fn)
	for _, a := range args {
		lv, err := in.toLua(L, a)
		if err != nil {
			return nil, fmt.Errorf("%s: argument: %w", name, err)
		}
		L.Push(lv)
	}
	if err := in.pcall(L, len(args), 1); err != nil {
		err = renameOuterFrame(wrapError(err), name)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return nil, err
	}
	out, err := in.toGo(L.Get(-1), "return value")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// register wraps a Lua function for the host, naming it after the local or
// global the caller bound it to (or function@file:line).
func (in *Interp) register(L *lua.LState, fn *lua.LFunction, name string) *luaFunc {
	if name == "" {
		name = funcName(L, fn)
	}
	return &luaFunc{in: in, fn: fn, name: name}
}

func funcName(L *lua.LState, fn *lua.LFunction) string {
	if dbg, ok := L.GetStack(1); ok {
		for i := 1; ; i++ {
			name, v := L.GetLocal(dbg, i)
			if name == "" {
				break
			}
			if v == fn && !strings.HasPrefix(name, "(") {
				return name
			}
		}
		// After a for loop gopher-lua can misnumber the locals; find the
		// local that the caller declared on the line fn was defined.
		if caller, err := L.GetInfo("f", dbg, lua.LNil); err == nil {
			if name := localDefinedAt(caller, fn); name != "" {
				return name
			}
		}
	}
	var found string
	if fn.Env != nil {
		fn.Env.ForEach(func(k, v lua.LValue) {
			if s, ok := k.(lua.LString); ok && v == fn && found == "" {
				found = string(s)
			}
		})
	}
	if found != "" {
		return found
	}
	if fn.Proto != nil {
		return fmt.Sprintf("function@%s:%d", fn.Proto.SourceName, fn.Proto.LineDefined)
	}
	return "function"
}

// localDefinedAt names the one local of the caller's function that comes
// into scope on the line where fn is defined (local function NAME, or
// local NAME = function), or "".
func localDefinedAt(caller lua.LValue, fn *lua.LFunction) string {
	c, ok := caller.(*lua.LFunction)
	if !ok || c.Proto == nil || fn.Proto == nil {
		return ""
	}
	p := c.Proto
	found := ""
	line := func(pc int) int {
		if pc < 0 || pc >= len(p.DbgSourcePositions) {
			return -1
		}
		return p.DbgSourcePositions[pc]
	}
	for _, l := range p.DbgLocals {
		if strings.HasPrefix(l.Name, "(") {
			continue
		}
		// The local's StartPc is the instruction after the closure, or
		// (as gopher-lua numbers them) the closure itself.
		if def := fn.Proto.LineDefined; line(l.StartPc) == def || line(l.StartPc-1) == def {
			if found != "" && found != l.Name {
				return "" // two locals on that line: do not guess
			}
			found = l.Name
		}
	}
	return found
}

// Names returns the predeclared names, for completion.
func (in *Interp) Names() []string {
	in.lock()
	defer in.release()
	return tableKeys(in.predeclared)
}
