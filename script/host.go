package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

var emptyArgs = json.RawMessage(`{}`)

// Func is a script function as the host sees it.
type Func interface {
	// Name identifies the function in hook names and messages.
	Name() string
	// Call runs the function under ctx. Arguments are JSON shapes, host
	// objects (*CallInfo, *ResultInfo, *Next), RawJSON (a script tool's
	// arguments, which the binding decodes with DecodeAs), *Shared values
	// or a SharedList (the agent's messages). The result is nil, a JSON
	// shape, or a host object: Verdict, *ResultInfo,
	// core.DualToolOutput, core.SilentResult.
	Call(ctx context.Context, args ...any) (any, error)
}

// Host implements the script API on an executor. Scripts of any language
// loaded into one Host share its registry, hooks and settings.
type Host struct {
	exec  *executor.Executor
	store core.ArtifactStore

	outMu sync.Mutex
	out   io.Writer

	cfgMu     sync.Mutex
	threshold int // artifact offload threshold; 0 is off
	settings  map[string]Setting
	builtins  map[string]Builtin
	modules   map[string]Module
	events    []Event

	ask AskFunc // SetAsk

	replaceTools bool              // SetReplaceTools
	replaceNote  func(name string) // SetReplaceTools

	declared func(name string) (core.Tool, bool) // SetDeclarations
}

// NewHost returns a host for exec that prints to out. Artifacts offloaded
// through config(offload=N) go to an in-memory store unless SetArtifactStore
// chooses another.
func NewHost(exec *executor.Executor, out io.Writer) *Host {
	if out == nil {
		out = io.Discard
	}
	h := &Host{exec: exec, out: out, store: executor.NewMemoryStore(), settings: map[string]Setting{}}
	h.addCoreSettings()
	h.events = []Event{h.approveEvent()}
	return h
}

// Executor returns the host's executor.
func (h *Host) Executor() *executor.Executor { return h.exec }

// SetArtifactStore sets where config(offload=N) keeps artifacts.
func (h *Host) SetArtifactStore(s core.ArtifactStore) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	h.store = s
}

// Print writes one line of script output. Lines from concurrent calls never
// interleave.
func (h *Host) Print(msg string) {
	h.outMu.Lock()
	defer h.outMu.Unlock()
	io.WriteString(h.out, msg+"\n")
}

// ToolSpec is a tool definition from a script.
type ToolSpec struct {
	Name            string
	Description     string
	Parameters      any // a JSON shape (object) or nil
	Fn              Func
	ConcurrencySafe *bool
	Idempotent      bool
	// ReadOnly declares that the tool changes nothing, so a model's calls
	// of it run when no policy decides (see executor.Permissions).
	ReadOnly bool
	Replace  bool
	// Effects declares what the tool does with its arguments, by argument
	// name (see core.Tool.Effects): "read", "write", "delete", "dir",
	// "shell", "code" (or "code:LANGUAGE"), "url" or "patch".
	Effects map[string]string
	// Preview, when set, is called with the decoded arguments and returns
	// what a call would change, as text (see core.Tool.Preview).
	Preview Func
}

// parseEffects reads the effects = {...} declaration of a script tool:
// argument name to kind, sorted by argument name.
func parseEffects(m map[string]string) ([]core.ArgEffect, error) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]core.ArgEffect, 0, len(m))
	for _, arg := range names {
		kind, lang, _ := strings.Cut(m[arg], ":")
		if lang != "" && kind != string(core.ArgCode) {
			return nil, fmt.Errorf("effects: %q got %q; only code takes a language (\"code:python3\")", arg, m[arg])
		}
		out = append(out, core.ArgEffect{Arg: arg, Kind: core.ArgKind(kind), Language: lang})
	}
	return out, nil
}

// DefineTool registers a script tool. The function receives the decoded
// arguments object and returns the output.
func (h *Host) DefineTool(spec ToolSpec) error {
	t, err := h.scriptTool(spec)
	if err != nil {
		return err
	}
	if spec.Replace {
		return h.exec.Registry().ReplaceTools(t)
	}
	if done, err := h.defineReplacing(t); done {
		return err
	}
	return h.exec.Registry().RegisterTools(t)
}

// scriptTool builds the core.Tool of a script tool definition.
func (h *Host) scriptTool(spec ToolSpec) (core.Tool, error) {
	var params json.RawMessage
	if spec.Parameters != nil {
		raw, err := EncodeJSON(spec.Parameters)
		if err != nil {
			return core.Tool{}, fmt.Errorf("parameters: %w", err)
		}
		params = raw
	}
	effects, err := parseEffects(spec.Effects)
	if err != nil {
		return core.Tool{}, err
	}
	fn := spec.Fn
	t := core.Tool{
		Name: spec.Name, Description: spec.Description, Parameters: params,
		ConcurrencySafe: spec.ConcurrencySafe, Idempotent: spec.Idempotent, ReadOnly: spec.ReadOnly, Effects: effects,
		Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			// The binding decodes the arguments straight into its own
			// values: the text is the pipeline's, checked to be an object.
			out, err := fn.Call(LeaveBeforeHook(ctx), RawJSON{Text: raw, Root: "args"})
			if err != nil {
				if _, derr := decodeJSON(raw, "args"); derr != nil {
					// Arguments with no script form (too deep, a number
					// beyond a float64) never reached the function: the
					// error is theirs, in the decoder's words, whatever
					// the binding added to it.
					return nil, derr
				}
				return nil, boundError(err)
			}
			v, err := toolOutput(out)
			if err != nil {
				return nil, boundError(err)
			}
			return h.boundOutput(v), nil
		},
	}
	if pv := spec.Preview; pv != nil {
		t.Preview = func(ctx context.Context, raw json.RawMessage) (string, error) {
			out, err := pv.Call(LeaveBeforeHook(ctx), RawJSON{Text: raw, Root: "args"})
			if err != nil {
				return "", boundError(err)
			}
			switch o := out.(type) {
			case nil:
				return "", nil
			case string:
				return o, nil
			}
			return "", fmt.Errorf("the preview of %s returned %s, want a string (or None)", spec.Name, describe(out))
		}
	}
	return t, nil
}

// toolOutput maps what a script function returned into a ToolFunc output.
func toolOutput(v any) (any, error) {
	switch o := v.(type) {
	case nil:
		return "", nil
	case string, core.DualToolOutput, core.SilentResult:
		return o, nil
	case Dual:
		return core.DualToolOutput(o), nil
	case Silent:
		return core.SilentResult(o), nil
	case *ResultInfo:
		return resultOutput(o.R)
	case Verdict:
		if o.Verdict == core.VerdictDeny {
			return nil, fmt.Errorf("%s is for hooks and middleware; a tool reports failure by raising an error", o)
		}
		return nil, fmt.Errorf("%s(...) is for before hooks; a tool returns its output", o.maker())
	}
	raw, err := EncodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("tool output: %w", err)
	}
	return json.RawMessage(raw), nil
}

// resultOutput passes another call's result on as this tool's output.
func resultOutput(r *core.Result) (any, error) {
	if r.Err != nil {
		return nil, r.Err
	}
	switch {
	case len(r.Blocks) > 0:
		return core.BlockOutput{Text: r.ForLLM, Blocks: r.Blocks}, nil
	case r.Silent:
		return core.SilentResult{ForLLM: r.ForLLM}, nil
	case r.ForUser != "":
		return core.DualToolOutput{ForLLM: r.ForLLM, ForUser: r.ForUser}, nil
	}
	return r.ForLLM, nil
}

// Named returns fn under another name, for hook names and messages; an
// empty name leaves fn as it is. A Func that is a Renamer renames itself,
// so that its own messages use the name too.
func Named(fn Func, name string) Func {
	if name == "" {
		return fn
	}
	if r, ok := fn.(Renamer); ok {
		return r.Rename(name)
	}
	return named{fn, name}
}

// Renamer is a Func that can take another name (see Named).
type Renamer interface {
	Func
	Rename(name string) Func
}

type named struct {
	Func
	name string
}

func (n named) Name() string { return n.name }

// Before registers fn as a before hook: global when tools is empty,
// tool-specific otherwise. fn(call) returns None (no opinion), allow(...),
// ask(...), deny(...) or rewrite(args) (see beforeVerdict); an error, or
// anything else returned, denies the call as the hook's failure
// (core.HookFailure). fn runs in a before hook's context, where
// ask(reason) is the verdict.
func (h *Host) Before(fn Func, tools []string) error {
	name := fn.Name()
	return h.exec.AddBefore(core.BeforeHook{Name: name, Tools: tools, Source: sourceOf(fn),
		Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
			out, err := fn.Call(enterBeforeHook(ctx), newCallInfo(call))
			if err != nil {
				return nil, core.HookFailed(boundError(err))
			}
			args, err := beforeVerdict(name, out)
			var v *core.VerdictError
			if err != nil && !errors.As(err, &v) {
				err = core.HookFailed(err)
			}
			return args, err
		}})
}

// After registers fn(call, result) as an after hook. Its return value is
// ignored; an error marks the call failed.
func (h *Host) After(fn Func, tools []string) error {
	return h.exec.AddAfter(core.AfterHook{Name: fn.Name(), Tools: tools, Source: sourceOf(fn),
		Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
			ci := newCallInfo(call)
			_, err := fn.Call(LeaveBeforeHook(ctx), ci, &ResultInfo{R: res})
			return boundError(err)
		}})
}

// Middleware registers fn(call, next) as middleware. next(call) runs the
// rest of the chain and returns its result; fn returns that result, any
// tool output (a new successful result), or deny(reason). An error fails
// the call, and so does returning None (a forgotten "return next(call)"
// must not turn a failure into a success).
func (h *Host) Middleware(fn Func, tools []string) error {
	name := fn.Name()
	return h.exec.Use(core.Middleware{Name: name, Tools: tools, Source: sourceOf(fn),
		Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
			ctx = LeaveBeforeHook(ctx)
			ci := newCallInfo(call)
			out, err := fn.Call(ctx, ci, &Next{call: call, next: next})
			if err != nil {
				return errorResult(ctx, call, name, boundError(err))
			}
			switch o := out.(type) {
			case nil:
				return errorResult(ctx, call, name, fmt.Errorf("middleware %s returned None; return next(call), a result or an output", name))
			case *ResultInfo:
				return o.R
			case Verdict:
				if o.Verdict != core.VerdictDeny {
					return errorResult(ctx, call, name, fmt.Errorf("middleware %s returned %s; %s(...) is for before hooks, middleware rejects with deny(reason)", name, o, o.maker()))
				}
				o = o.bounded()
				return &core.Result{Err: &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: name,
					Message: fmt.Sprintf("rejected by %q: %s", name, o.Reason), Err: core.Deny(o.Reason)}}
			}
			res := &core.Result{CallID: call.ID, Tool: call.Name}
			v, err := toolOutput(out)
			if err == nil {
				err = res.SetOutput(h.boundOutput(v))
			}
			if err != nil {
				return errorResult(ctx, call, name, err)
			}
			return res
		}})
}

// UseMiddleware registers a built-in middleware (timeout, retry) value.
func (h *Host) UseMiddleware(m core.Middleware, tools []string) error {
	m.Tools = tools
	return h.exec.Use(m)
}

func errorResult(ctx context.Context, call *core.Call, hook string, err error) *core.Result {
	kind := core.KindFailed
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		kind = core.KindTimeout
	case ctx.Err() != nil:
		kind = core.KindCanceled
	}
	return &core.Result{CallID: call.ID, Tool: call.Name, Err: &core.Error{Kind: kind, Tool: call.Name, CallID: call.ID,
		Hook: hook, Message: err.Error(), Err: err}}
}

// RawArgs turns script arguments (a JSON shape, or a string of raw JSON)
// into the call's JSON text. Whether it is an object is the pipeline's
// business: it refuses anything else with invalid_arguments.
func RawArgs(args any) (json.RawMessage, error) { return rawArgs(args, "") }

// rawArgs is RawArgs with errors' paths starting at root.
func rawArgs(args any, root string) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case string:
		return json.RawMessage(a), nil
	}
	raw, err := encodeJSON(args, root)
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// InvokeTool runs one call through the pipeline.
func (h *Host) InvokeTool(ctx context.Context, name string, args any, dedupKey string) (*ResultInfo, error) {
	ctx, err := nested(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := rawArgs(args, "args")
	if err != nil {
		return nil, err
	}
	return &ResultInfo{R: boundResult(h.exec.Invoke(ctx, core.Call{Name: name, Args: raw, DedupKey: dedupKey}))}, nil
}

// CallSpec is one call of InvokeAll.
type CallSpec struct {
	Name     string
	Args     any
	DedupKey string
}

// InvokeAll runs a batch. mode "" uses the configured mode; concurrency < 0
// uses the configured bound.
func (h *Host) InvokeAll(ctx context.Context, specs []CallSpec, mode string, concurrency int) ([]*ResultInfo, error) {
	ctx, err := nested(ctx)
	if err != nil {
		return nil, err
	}
	var opts []executor.BatchOption
	if mode != "" {
		m, err := executor.ParseMode(mode)
		if err != nil {
			return nil, err
		}
		opts = append(opts, executor.InMode(m))
	}
	if concurrency >= 0 {
		opts = append(opts, executor.WithLimit(concurrency))
	}
	calls := make([]core.Call, len(specs))
	for i, s := range specs {
		raw, err := rawArgs(s.Args, "args")
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %w", i, s.Name, err)
		}
		calls[i] = core.Call{Name: s.Name, Args: raw, DedupKey: s.DedupKey}
	}
	results := h.exec.ExecuteAll(ctx, calls, opts...)
	out := make([]*ResultInfo, len(results))
	for i, r := range results {
		out[i] = &ResultInfo{R: boundResult(r)}
	}
	return out, nil
}

// ToolNames lists the registered tools, sorted.
func (h *Host) ToolNames() []string { return h.exec.Registry().ToolNames() }

// GetTool describes a tool as {name, description, parameters,
// concurrency_safe, idempotent, read_only, effects (argument name to
// kind)}, or returns nil when there is none.
func (h *Host) GetTool(name string) map[string]any {
	t := h.exec.Registry().GetTool(name)
	if t == nil {
		return nil
	}
	params, _ := DecodeJSON(t.Schema().JSON())
	var safe any
	if t.ConcurrencySafe != nil {
		safe = *t.ConcurrencySafe
	}
	effects := map[string]any{}
	for _, e := range t.Effects {
		kind := string(e.Kind)
		if e.Language != "" {
			kind += ":" + e.Language
		}
		effects[e.Arg] = kind
	}
	return map[string]any{"name": t.Name, "description": t.Description, "parameters": params,
		"concurrency_safe": safe, "idempotent": t.Idempotent, "read_only": t.ReadOnly, "effects": effects}
}

// UnregisterTool removes a tool.
func (h *Host) UnregisterTool(name string) error {
	return h.exec.Registry().UnregisterTools(name)
}

// Timeout returns the timeout middleware for a positive duration.
func Timeout(d time.Duration) (core.Middleware, error) {
	if d <= 0 {
		return core.Middleware{}, fmt.Errorf("timeout: duration got %s, want more than 0, such as \"500ms\" or \"2s\"", d)
	}
	return executor.Timeout(d), nil
}

// Retry returns the retry middleware. backoff < 0 means the default; 0
// retries at once.
func Retry(attempts int, backoff time.Duration) (core.Middleware, error) {
	if attempts < 1 {
		return core.Middleware{}, fmt.Errorf("retry: attempts got %d, want 1 or more (it counts the first execution)", attempts)
	}
	o := executor.RetryOptions{Attempts: attempts}
	switch {
	case backoff == 0:
		o.Backoff = -1
	case backoff > 0:
		o.Backoff = backoff
	}
	return executor.Retry(o), nil
}

// describe names a value's type for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case bool:
		return "a bool"
	case int64:
		return "an int"
	case float64:
		return "a float"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a dict"
	case *ResultInfo:
		return "a result (use its fields, such as r.output)"
	case core.DualToolOutput:
		return "a dual(...) value"
	case core.SilentResult:
		return "a silent(...) value"
	case Dual:
		return "a dual(...) value"
	case Silent:
		return "a silent(...) value"
	case BuiltinMiddleware:
		return "a middleware"
	case Verdict:
		return article(x.maker() + "(...) value")
	case *CallInfo:
		return "a call"
	case Func:
		return "a function"
	case Record:
		return "a record"
	case Object:
		return article(x.TypeName())
	case Builtin:
		return "a function"
	}
	return "a Go " + strings.TrimPrefix(fmt.Sprintf("%T", v), "*")
}

// article puts "a" or "an" before a type name.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}
