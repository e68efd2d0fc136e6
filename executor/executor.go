package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/telemetry"
	"github.com/agentsh/agentsh/workpath"
)

// Executor runs calls against a Registry through hooks and middleware.
type Executor struct {
	reg     *core.Registry
	session *core.Session

	mu   sync.Mutex               // serializes changes to pipe and exts
	pipe atomic.Pointer[pipeline] // what a starting call uses
	exts []core.Extension

	mode        atomic.Int32
	perms       atomic.Int32 // Permissions
	approver    atomic.Pointer[approverBox]
	approved    sync.Map // tool name → struct{}: approved for the session
	concurrency atomic.Int64
	validate    atomic.Bool
	nextID      atomic.Uint64

	onStart []func(*core.Call)
	onEnd   []func(*core.Call, *core.Result)

	offloadMu    sync.Mutex
	artifactTool *core.Tool // the artifact_read this executor registered

	workdir    atomic.Pointer[workpath.Dir] // see WithWorkDir
	workdirSet atomic.Bool                  // by WithWorkDir, SetWorkDir or an extension
	secrets    atomic.Pointer[[]string]     // see SetSecretFiles
	sandboxing atomic.Pointer[Sandboxing]   // see SetSandboxing
	journal    Journal                      // see WithJournal; nil records nothing
	tracer     *telemetry.Tracer            // see WithTracing; nil traces nothing
}

// pipeline is an immutable snapshot of the hooks and middleware.
type pipeline struct {
	beforeTool   []core.BeforeHook // with Tools: stage 1, after Tool.Before
	beforeGlobal []core.BeforeHook
	afterGlobal  []core.AfterHook
	afterTool    []core.AfterHook // with Tools: stage 5, after Tool.After
	middleware   []core.Middleware
	offload      *offloader
	chain        core.Handler // middleware around execute, built once
}

// Option configures an Executor. The zero configuration is serial mode, a
// pool of DefaultConcurrency, no argument validation and no offload.
type Option func(*Executor)

// WithValidateArguments validates arguments against the tool's schema
// before it runs; violations fail the call with invalid_arguments.
func WithValidateArguments(on bool) Option { return func(e *Executor) { e.validate.Store(on) } }

// WithExecutionMode sets the default mode of ExecuteAll.
func WithExecutionMode(m Mode) Option { return func(e *Executor) { e.mode.Store(int32(m)) } }

// WithConcurrency bounds the parallel pool of ExecuteAll; 0 means
// DefaultConcurrency.
func WithConcurrency(n int) Option { return func(e *Executor) { e.concurrency.Store(int64(n)) } }

// WithSession shares s with every call (Call.Session).
func WithSession(s *core.Session) Option { return func(e *Executor) { e.session = s } }

// WithOnStart adds a callback run when a call starts, before any hook.
func WithOnStart(fn func(call *core.Call)) Option {
	return func(e *Executor) { e.onStart = append(e.onStart, fn) }
}

// WithOnEnd adds a callback run when a call has finished, after the after
// hooks, with its final result.
func WithOnEnd(fn func(call *core.Call, res *core.Result)) Option {
	return func(e *Executor) { e.onEnd = append(e.onEnd, fn) }
}

// WithBeforeHooks, WithAfterHooks and WithMiddleware register hooks and
// middleware at construction; a malformed one panics (see AddBefore).
func WithBeforeHooks(hs ...core.BeforeHook) Option {
	return func(e *Executor) { must(e.AddBefore(hs...)) }
}

// WithAfterHooks registers after hooks; see WithBeforeHooks.
func WithAfterHooks(hs ...core.AfterHook) Option {
	return func(e *Executor) { must(e.AddAfter(hs...)) }
}

// WithMiddleware registers middleware; see WithBeforeHooks.
func WithMiddleware(ms ...core.Middleware) Option {
	return func(e *Executor) { must(e.Use(ms...)) }
}

// WithArtifactOffload moves successful outputs longer than threshold bytes
// into store; the model gets a reference, the size and a preview, and the
// artifact_read tool (registered by New) pages through the rest.
// A tool named artifact_read that is already registered makes New panic.
func WithArtifactOffload(store core.ArtifactStore, threshold int) Option {
	return func(e *Executor) { must(e.SetArtifactOffload(store, threshold)) }
}

func must(err error) {
	if err != nil {
		panic("executor: " + err.Error())
	}
}

// New returns an executor for reg. A nil reg gets a new, empty registry.
func New(reg *core.Registry, opts ...Option) *Executor {
	if reg == nil {
		reg = core.NewRegistry()
	}
	e := &Executor{reg: reg}
	e.pipe.Store(e.build(&pipeline{}))
	for _, o := range opts {
		o(e)
	}
	if e.session == nil {
		e.session = core.NewSession("")
	}
	return e
}

// Registry returns the executor's registry.
func (e *Executor) Registry() *core.Registry { return e.reg }

// Session returns the state shared by every call.
func (e *Executor) Session() *core.Session { return e.session }

// Mode returns the default mode of ExecuteAll.
func (e *Executor) Mode() Mode { return Mode(e.mode.Load()) }

// SetMode changes the default mode of ExecuteAll.
func (e *Executor) SetMode(m Mode) { e.mode.Store(int32(m)) }

// Concurrency returns the pool bound; 0 means DefaultConcurrency.
func (e *Executor) Concurrency() int { return int(e.concurrency.Load()) }

// SetConcurrency changes the pool bound; 0 means DefaultConcurrency,
// negative is refused.
func (e *Executor) SetConcurrency(n int) error {
	if n < 0 {
		return fmt.Errorf("set concurrency: got %d, want 0 (the default, %d) or more", n, DefaultConcurrency)
	}
	e.concurrency.Store(int64(n))
	return nil
}

// ValidateArguments reports whether schema validation is on.
func (e *Executor) ValidateArguments() bool { return e.validate.Load() }

// SetValidateArguments turns schema validation on or off.
func (e *Executor) SetValidateArguments(on bool) { e.validate.Store(on) }

// AddBefore registers before hooks. A hook without Tools is global; with
// Tools it is tool-specific. Every hook needs a Func; patterns must be
// well-formed.
func (e *Executor) AddBefore(hooks ...core.BeforeHook) error {
	for _, h := range hooks {
		if err := checkHook("before hook", h.Name, h.Func == nil, h.Tools); err != nil {
			return err
		}
	}
	e.update(func(p *pipeline) {
		for _, h := range hooks {
			if len(h.Tools) > 0 {
				p.beforeTool = append(p.beforeTool, h)
			} else {
				p.beforeGlobal = append(p.beforeGlobal, h)
			}
		}
	})
	return nil
}

// HasAfterHooks reports whether any after hook would run on some call:
// a global or tool-specific one, or a registered tool's own. A program
// that observes calls run elsewhere (another agent's, through its hooks)
// need not send their results when none would.
func (e *Executor) HasAfterHooks() bool {
	p := e.pipe.Load()
	if len(p.afterGlobal) > 0 || len(p.afterTool) > 0 {
		return true
	}
	for _, name := range e.reg.ToolNames() {
		if t := e.reg.GetTool(name); t != nil && len(t.After) > 0 {
			return true
		}
	}
	return false
}

// AddAfter registers after hooks; see AddBefore.
func (e *Executor) AddAfter(hooks ...core.AfterHook) error {
	for _, h := range hooks {
		if err := checkHook("after hook", h.Name, h.Func == nil, h.Tools); err != nil {
			return err
		}
	}
	e.update(func(p *pipeline) {
		for _, h := range hooks {
			if len(h.Tools) > 0 {
				p.afterTool = append(p.afterTool, h)
			} else {
				p.afterGlobal = append(p.afterGlobal, h)
			}
		}
	})
	return nil
}

// Use registers middleware. The first registered is the outermost.
func (e *Executor) Use(mws ...core.Middleware) error {
	for _, m := range mws {
		if err := checkHook("middleware", m.Name, m.Func == nil, m.Tools); err != nil {
			return err
		}
	}
	e.update(func(p *pipeline) { p.middleware = append(p.middleware, mws...) })
	return nil
}

func checkHook(what, name string, nilFunc bool, tools []string) error {
	if nilFunc {
		return fmt.Errorf("%s %q has no function", what, name)
	}
	if err := core.CheckToolPatterns(tools); err != nil {
		return fmt.Errorf("%s %q: %w", what, name, err)
	}
	return nil
}

// update applies fn to a copy of the pipeline and publishes it.
func (e *Executor) update(fn func(p *pipeline)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	old := e.pipe.Load()
	p := &pipeline{
		beforeTool:   append([]core.BeforeHook(nil), old.beforeTool...),
		beforeGlobal: append([]core.BeforeHook(nil), old.beforeGlobal...),
		afterGlobal:  append([]core.AfterHook(nil), old.afterGlobal...),
		afterTool:    append([]core.AfterHook(nil), old.afterTool...),
		middleware:   append([]core.Middleware(nil), old.middleware...),
		offload:      old.offload,
	}
	fn(p)
	e.pipe.Store(e.build(p))
}

// build composes the middleware chain once, so a call allocates nothing for
// it. Artifact offload is outermost: it sees the final output.
func (e *Executor) build(p *pipeline) *pipeline {
	next := core.Handler(e.execute)
	for i := len(p.middleware) - 1; i >= 0; i-- {
		next = wrap(p.middleware[i], next)
	}
	if p.offload != nil {
		next = p.offload.wrap(next)
	}
	p.chain = next
	return p
}

func wrap(m core.Middleware, next core.Handler) core.Handler {
	return func(ctx context.Context, call *core.Call) (res *core.Result) {
		if !core.MatchTools(m.Tools, call.Name) {
			return next(ctx, call)
		}
		defer func() {
			if v := recover(); v != nil {
				pe := panicError(call, "middleware "+quoteName(m.Name), v)
				pe.Hook = m.Name
				res = &core.Result{CallID: call.ID, Tool: call.Name, Err: pe}
			}
		}()
		res = m.Func(ctx, call, next)
		if res == nil {
			res = &core.Result{Err: &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID, Hook: m.Name,
				Message: fmt.Sprintf("middleware %s returned no result", quoteName(m.Name))}}
		}
		return res
	}
}

// InvokeTool runs one call through the pipeline. The result is never nil;
// err is res.Err, returned separately for convenience.
func (e *Executor) InvokeTool(ctx context.Context, name string, args json.RawMessage) (*core.Result, error) {
	call := core.Call{Name: name, Args: args}
	res := e.invoke(ctx, &call)
	return res, res.Err
}

// Invoke runs call through the pipeline, keeping its ID (assigned when
// empty) and DedupKey. The result is never nil.
func (e *Executor) Invoke(ctx context.Context, call core.Call) *core.Result {
	return e.invoke(ctx, &call)
}

func (e *Executor) newID() string {
	return "call_" + strconv.FormatUint(e.nextID.Add(1), 10)
}

// invoke is the pipeline. call belongs to this goroutine.
func (e *Executor) invoke(ctx context.Context, call *core.Call) *core.Result {
	return e.invokeResolved(ctx, call, e.reg.GetTool(call.Name))
}

// invokeResolved runs call with the tool it resolved to (nil: unknown).
func (e *Executor) invokeResolved(ctx context.Context, call *core.Call, tool *core.Tool) *core.Result {
	start := time.Now()
	p := e.pipe.Load()
	ctx, stream := core.TakeOutputStream(ctx)
	if call.ID == "" {
		call.ID = e.newID()
	}
	call.Tool = tool
	call.ClearDecisions()
	sc := scopeOf(ctx)
	call.Session = e.session
	if sc.session != nil {
		call.Session = sc.session
	}
	if call.Origin == core.OriginUnset {
		call.Origin = sc.origin
		if call.Origin == core.OriginUnset {
			call.Origin = core.OriginPerson
		}
	}
	if call.Origin != sc.origin && (sc.origin != core.OriginUnset || call.Origin != core.OriginPerson) {
		// Calls nested in this one inherit its origin.
		inner := sc
		inner.origin = call.Origin
		ctx = withScope(ctx, inner)
	}
	ctx = withAgent(ctx, call)
	var span trace.Span
	if e.tracer != nil && !sc.deciding {
		ctx, span = e.tracer.StartTool(ctx, call)
	}
	call.RawArgs = call.Args
	args, err := core.NormalizeArgs(call.Args)
	var canonErr *core.Error
	if err == nil {
		call.Args = args
		canonErr = e.makeCanonical(call)
	}
	if !sc.deciding {
		for _, fn := range e.onStart {
			fn(call)
		}
	}

	var res *core.Result
	switch {
	case err != nil:
		res = &core.Result{Err: &core.Error{Kind: core.KindInvalidArguments, Tool: call.Name, CallID: call.ID,
			Message: fmt.Sprintf("invalid arguments for %s: %v", call.Name, err), Err: err}}
	case canonErr != nil:
		res = &core.Result{Err: canonErr}
	case ctx.Err() != nil:
		res = &core.Result{Err: contextError(ctx, call, nil)}
	default:
		if res, _ = e.runBefore(ctx, p, call, !sc.deciding, start); res == nil {
			if sc.deciding {
				res = e.rejected(call, "", "not run: "+call.Name+" was called while the policies were only being evaluated, which runs no tool", nil)
			} else {
				res = p.chain(e.streamContext(ctx, p, call, stream), call)
			}
		}
	}
	res.CallID, res.Tool = call.ID, call.Name
	res.Agent, res.ParentAgent = call.Agent, call.ParentAgent
	res.Decisions = call.Decisions()
	res.Duration = time.Since(start)
	if sc.deciding {
		// Evaluating only: no after hook (an audit) sees a call that
		// never ran.
		return res
	}
	res.Duration = e.runAfter(ctx, p, call, res, start, res.Duration)
	for _, fn := range e.onEnd {
		fn(call, res)
	}
	if span != nil {
		e.tracer.EndTool(span, call, res)
	}
	return res
}

// runAfter runs stages 4 and 5. After hooks must see every call, so a
// caller's cancelled context is not passed on to them (it would stop a
// script hook before it records anything); its values still are.
//
// Each hook's duration runs from the end of the one before (from now, the
// time since start, for the first): one monotonic clock reading per hook.
// It returns the time since start when the last ended.
func (e *Executor) runAfter(ctx context.Context, p *pipeline, call *core.Call, res *core.Result, start time.Time, now time.Duration) time.Duration {
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	for _, h := range p.afterGlobal {
		now = e.after(ctx, call, res, hookName{name: h.Name}, h.Source, h.Func, start, now)
	}
	if t := call.Tool; t != nil {
		for i, fn := range t.After {
			now = e.after(ctx, call, res, hookName{tool: t.Name, index: i + 1, stage: "after"}, "", fn, start, now)
		}
	}
	for _, h := range p.afterTool {
		if core.MatchTools(h.Tools, call.Name) {
			now = e.after(ctx, call, res, hookName{name: h.Name}, h.Source, h.Func, start, now)
		}
	}
	return now
}

// after runs one after hook. Its failure marks a successful call failed. A
// call that had already failed keeps its kind, and the hook's failure is
// added to the message, so an audit that breaks is never silent.
func (e *Executor) after(ctx context.Context, call *core.Call, res *core.Result, hook hookName, source string, fn core.AfterFunc, start time.Time, from time.Duration) (end time.Duration) {
	d := core.Decision{Stage: core.StageAfter, Hook: hook.bare(), Source: source}
	defer func() {
		if v := recover(); v != nil {
			pe := panicError(call, "after hook "+hook.String(), v)
			pe.Hook = d.Hook
			d.Reason = pe.Message
			addFailure(res, pe)
		}
		end = time.Since(start)
		d.Duration = end - from
		res.Decisions = append(res.Decisions, d)
	}()
	if err := fn(ctx, call, res); err != nil {
		d.Reason = fmt.Sprintf("failed: %v", err)
		addFailure(res, &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID, Hook: d.Hook,
			Message: fmt.Sprintf("after hook %s failed: %v", hook, err), Err: err})
	}
	return end // set by the deferred function
}

// addFailure records an after hook's failure in res.
func addFailure(res *core.Result, failure *core.Error) {
	if res.Err == nil {
		res.Err = failure
		return
	}
	if e, ok := res.Err.(*core.Error); ok {
		c := *e
		c.Message = c.Error() + "; also, " + failure.Message
		res.Err = &c
		return
	}
	res.Err = &core.Error{Kind: core.KindOf(res.Err), Tool: failure.Tool, CallID: failure.CallID,
		Message: res.Err.Error() + "; also, " + failure.Message, Err: res.Err}
}

// execute is the innermost step, the only place that calls Tool.Func.
func (e *Executor) execute(ctx context.Context, call *core.Call) *core.Result {
	res := &core.Result{CallID: call.ID, Tool: call.Name}
	t := call.Tool
	if t == nil {
		res.Err = &core.Error{Kind: core.KindUnknownTool, Tool: call.Name, CallID: call.ID,
			Message: unknownToolMessage(call.Name, e.reg.ToolNames())}
		return res
	}
	if e.validate.Load() && !e.validateArgs(call, res) {
		return res
	}
	if ctx.Err() != nil {
		res.Err = contextError(ctx, call, nil)
		return res
	}
	if p := e.secrets.Load(); p != nil && len(*p) > 0 {
		ctx = core.WithSecretFiles(ctx, *p)
	}
	if t.Sandboxed {
		ctx = core.WithSandbox(ctx, call.Sandbox)
	}
	if e.journal != nil {
		return e.journal.Execute(ctx, call, func(ctx context.Context) *core.Result {
			res := &core.Result{CallID: call.ID, Tool: call.Name}
			callFunc(ctx, t, call, res)
			return res
		})
	}
	callFunc(ctx, t, call, res)
	return res
}

// validateArgs checks the final arguments against the tool's schema and
// records the step; on violations it sets res.Err.
func (e *Executor) validateArgs(call *core.Call, res *core.Result) bool {
	start := time.Now()
	vs := call.Tool.Schema().Validate(call.Args)
	d := core.Decision{Stage: core.StageValidation, Hook: "schema"}
	if len(vs) > 0 {
		res.Err = invalidArguments(call, vs)
		d.Verdict, d.Reason = core.VerdictDeny, res.Err.Error()
	}
	d.Duration = time.Since(start)
	call.Record(d)
	return len(vs) == 0
}

// callFunc runs the tool and maps its output into res, both under recover:
// the output's own methods (MarshalJSON, ToolBlocks, String) are tool code.
func callFunc(ctx context.Context, t *core.Tool, call *core.Call, res *core.Result) {
	defer func() {
		if v := recover(); v != nil {
			*res = core.Result{CallID: call.ID, Tool: call.Name, Err: panicError(call, "tool "+quoteName(t.Name), v)}
		}
	}()
	out, err := t.Func(ctx, call.Args)
	switch {
	case err == nil:
		if err := res.SetOutput(out); err != nil {
			res.Err = &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID,
				Message: fmt.Sprintf("%s: %v", call.Name, err), Err: err}
		}
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		res.Err = contextError(ctx, call, err)
	default:
		res.Err = &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID, Message: err.Error(), Err: err}
	}
	if err != nil {
		failureData(res, err)
	}
}

// failureData keeps the data a failure carries: a command's exit code and
// output. Data that cannot be encoded is dropped; the failure stands. (A
// function of its own, so that a call that succeeds does not allocate the
// target of errors.As.)
func failureData(res *core.Result, err error) {
	var dc core.DataCarrier
	if errors.As(err, &dc) {
		_ = res.SetData(dc.ToolData())
	}
}

// hookName names a hook in messages without formatting on the hot path.
type hookName struct {
	name  string // a registered hook's name
	tool  string // or the tool whose own hook it is
	index int
	stage string
}

// String is the name for messages: quoted, or the tool's own hook.
func (h hookName) String() string {
	if h.tool != "" {
		return fmt.Sprintf("%s's %s hook #%d", h.tool, h.stage, h.index)
	}
	return quoteName(h.name)
}

// bare is the name for core.Error.Hook: as registered, unquoted.
func (h hookName) bare() string {
	if h.tool != "" {
		return fmt.Sprintf("%s %s hook %d", h.tool, h.stage, h.index)
	}
	return h.name
}
