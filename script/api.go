package script

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// The script API, declared once. Every language shows these names with
// these parameters; a binding only converts values and follows its
// calling convention (see Builtin).

// hookParams are the parameters of before, after and middleware.
var hookParams = func(fn Kind) []Param {
	return []Param{{Name: "fn", Kind: fn}, {Name: "tools", Kind: Tools, Optional: true}, {Name: "name", Kind: String, Optional: true}}
}

// API returns the script API of h: the core names and the builtins a Go
// program added, sorted by name. An added builtin replaces a core name it
// shares.
func (h *Host) API() []Builtin {
	byName := map[string]Builtin{}
	for _, b := range h.coreAPI() {
		byName[b.Name] = b
	}
	for _, b := range h.Builtins() {
		byName[b.Name] = b
	}
	out := make([]Builtin, 0, len(byName))
	for _, b := range byName {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// coreAPI declares the core names over h.
func (h *Host) coreAPI() []Builtin {
	return []Builtin{
		{Name: "tool", Doc: "Registers a tool the model and scripts can call.", Table: true,
			Params: []Param{{Name: "name", Kind: String}, {Name: "fn", Kind: Function},
				{Name: "description", Kind: String, Optional: true}, {Name: "parameters", Kind: Dict, Optional: true},
				{Name: "concurrency_safe", Kind: OptBool, Optional: true}, {Name: "idempotent", Kind: Bool, Optional: true, Default: false},
				{Name: "replace", Kind: Bool, Optional: true, Default: false},
				// read_only = True lets a model's calls run without asking.
				{Name: "read_only", Kind: Bool, Optional: true, Default: false},
				// effects = {"path": "write", ...} declares what the tool
				// does with its arguments (see core.Tool.Effects).
				{Name: "effects", Kind: Dict, Optional: true},
				// preview = fn(args) returns what a call would change, as
				// text for the approval prompt.
				{Name: "preview", Kind: Function, Optional: true}},
			Fn: h.apiTool},
		{Name: "before", Doc: "Adds a hook fn(call) that runs before calls and returns None, allow(...), ask(...), deny(...) or rewrite(args).",
			Params: hookParams(Function), Fn: h.apiHook("before", h.Before)},
		{Name: "after", Doc: "Adds a hook fn(call, result) that runs after calls; result.decisions is the call's decision trail.",
			Params: hookParams(Function), Fn: h.apiHook("after", h.After)},
		{Name: "middleware", Doc: "Wraps calls in fn(call, next), or in timeout(...) or retry(...).",
			Params: hookParams(Any), Fn: h.apiMiddleware},
		{Name: "allow", Doc: "A verdict: the call runs unless another before hook asks or denies; args = {...} rewrites too; sandbox = \"read-only\"|\"workspace\"|\"off\" says where its commands run (a wider one than the call's asks to leave the sandbox). An approver's allow(always = True) approves the tool for the session.",
			Params: append(verdictParams(true), sandboxParam, Param{Name: "always", Kind: Bool, Optional: true, Default: false}),
			Fn:     newVerdict(core.VerdictAllow)},
		{Name: "ask", Doc: "In a before hook, ask(reason, args = {...}, sandbox = ...) is the verdict: the call runs only if the approver consents (sandbox as for allow). Elsewhere ask(prompt, max_turns = N, stream = False, schema = {...}) asks the model and returns its reply.",
			Params: []Param{{Name: "prompt", Kind: String}, {Name: "args", Kind: Dict, Optional: true}, sandboxParam,
				{Name: "max_turns", Kind: Int, Optional: true},
				// stream = False keeps the reply's text off the transcript.
				{Name: "stream", Kind: Bool, Optional: true, Default: true},
				// schema = {...}: the final answer must be JSON valid
				// against it; the reply carries it decoded as .data.
				{Name: "schema", Kind: Dict, Optional: true}},
			Fn: h.apiAsk},
		{Name: "deny", Doc: "A verdict: the call does not run (from a before hook, middleware, a lifecycle hook or an approver); args = {...} is accepted as for allow and ask, but a denied call keeps its arguments.",
			Params: verdictParams(false), Fn: newVerdict(core.VerdictDeny)},
		{Name: "rewrite", Doc: "Replaces the call's arguments, from a before hook, with no opinion on the call.",
			Params: []Param{{Name: "args", Kind: Dict}}, Fn: newVerdict(core.VerdictNone)},
		{Name: "decide", Doc: "How the policies would decide a call, without running it: a ruling with .outcome (allow, ask or deny), .reason, .hook, .source, .args, .decisions; true when it would run.",
			Params: decideParams, Fn: h.apiDecide},
		{Name: "on", Doc: "Runs fn at an event: \"approve\" makes fn(request) the approver of calls that ask; with an agent, its lifecycle events (session_start, user_prompt, ...).",
			Params: []Param{{Name: "event", Kind: String}, {Name: "fn", Kind: Function}}, Fn: h.apiOn},
		{Name: "invoke_tool", Doc: "Runs one call through the pipeline and returns its result.",
			Params: []Param{{Name: "name", Kind: String}, {Name: "args", Kind: CallArgs, Optional: true},
				{Name: "dedup_key", Kind: String, Optional: true, Default: ""}},
			Fn: h.apiInvokeTool},
		{Name: "invoke_all", Doc: "Runs a batch of calls and returns their results in call order.",
			Params: []Param{{Name: "calls", Kind: Calls}, {Name: "mode", Kind: String, Optional: true, Default: ""},
				{Name: "concurrency", Kind: Int, Optional: true}},
			Fn: h.apiInvokeAll},
		{Name: "tool_names", Doc: "Lists the registered tools, sorted.",
			Fn: func(context.Context, Args) (any, error) { return h.ToolNames(), nil }},
		{Name: "get_tool", Doc: "Describes a tool, or returns None.",
			Params: []Param{{Name: "name", Kind: String}},
			Fn: func(_ context.Context, a Args) (any, error) {
				if t := h.GetTool(a["name"].(string)); t != nil {
					return t, nil
				}
				return nil, nil
			}},
		{Name: "unregister_tool", Doc: "Removes a tool.",
			Params: []Param{{Name: "name", Kind: String}},
			Fn:     func(_ context.Context, a Args) (any, error) { return nil, h.UnregisterTool(a["name"].(string)) }},
		{Name: "config", Doc: "Changes settings by name and returns all of them.", Keywords: true,
			Fn: func(_ context.Context, a Args) (any, error) {
				cur, err := h.Config(a)
				if err != nil {
					return nil, fmt.Errorf("config: %w", err)
				}
				return cur, nil
			}},
		{Name: "dual", Doc: "A tool output with one text for the model and another for the person.",
			Params: []Param{{Name: "for_llm", Kind: String}, {Name: "for_user", Kind: String}},
			Fn: func(_ context.Context, a Args) (any, error) {
				return Dual{ForLLM: a["for_llm"].(string), ForUser: a["for_user"].(string)}, nil
			}},
		{Name: "silent", Doc: "A tool output for the model only.",
			Params: []Param{{Name: "for_llm", Kind: String}},
			Fn:     func(_ context.Context, a Args) (any, error) { return Silent{ForLLM: a["for_llm"].(string)}, nil }},
		{Name: "timeout", Doc: "Middleware that fails calls running longer than duration.",
			Params: []Param{{Name: "duration", Kind: Duration}},
			Fn: func(_ context.Context, a Args) (any, error) {
				m, err := Timeout(a["duration"].(time.Duration))
				return BuiltinMiddleware{M: m}, err
			}},
		{Name: "retry", Doc: "Middleware that runs failed idempotent calls again.",
			Params: []Param{{Name: "attempts", Kind: Int, Optional: true, Default: 3},
				{Name: "backoff", Kind: Duration, Optional: true, Default: time.Duration(-1)}},
			Fn: func(_ context.Context, a Args) (any, error) {
				m, err := Retry(a["attempts"].(int), a["backoff"].(time.Duration))
				return BuiltinMiddleware{M: m}, err
			}},
		{Name: "exit", Doc: "Ends the run; agentsh exits with code (0 to 255, default 0).",
			Params: []Param{{Name: "code", Kind: Int, Optional: true, Default: 0}}, Fn: apiExit},
		{Name: "help", Doc: "Prints a name's parameters and one-line doc (help(\"tool\"), help(\"json.encode\")); help() lists the names.",
			Params: []Param{{Name: "name", Kind: String, Optional: true, Default: ""}}, Fn: h.apiHelp},
	}
}

func (h *Host) apiTool(_ context.Context, a Args) (any, error) {
	spec := ToolSpec{Name: a["name"].(string),
		Idempotent: a["idempotent"].(bool), Replace: a["replace"].(bool), ReadOnly: a["read_only"].(bool)}
	// A tool's function is known by the tool's name.
	spec.Fn = Named(a["fn"].(Func), spec.Name)
	spec.Description, _ = a["description"].(string)
	if p, ok := a["parameters"]; ok {
		spec.Parameters = p
	}
	spec.ConcurrencySafe, _ = a["concurrency_safe"].(*bool)
	if m, ok := a["effects"].(map[string]any); ok {
		spec.Effects = map[string]string{}
		for arg, v := range m {
			kind, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("tool %q: effects[%q] got %s, want a kind: read, write, delete, dir, shell, code, url or patch", spec.Name, arg, describe(v))
			}
			spec.Effects[arg] = kind
		}
	}
	if p, ok := a["preview"].(Func); ok {
		spec.Preview = Named(p, spec.Name+" preview")
	}
	if err := h.DefineTool(spec); err != nil {
		var dup *core.DuplicateToolError
		if errors.As(err, &dup) {
			return nil, fmt.Errorf("tool %q is already registered; pass replace = True (replace = true in Lua) to replace it, or unregister_tool(%q) first", spec.Name, spec.Name)
		}
		return nil, fmt.Errorf("tool %q: %w", spec.Name, err)
	}
	return nil, nil
}

func (h *Host) apiHook(fname string, add func(Func, []string) error) func(context.Context, Args) (any, error) {
	return func(_ context.Context, a Args) (any, error) {
		tools, _ := a["tools"].([]string)
		name, _ := a["name"].(string)
		return nil, add(Named(a["fn"].(Func), name), tools)
	}
}

func (h *Host) apiMiddleware(_ context.Context, a Args) (any, error) {
	tools, _ := a["tools"].([]string)
	name, _ := a["name"].(string)
	switch m := a["fn"].(type) {
	case Func:
		return nil, h.Middleware(Named(m, name), tools)
	case BuiltinMiddleware:
		if name != "" {
			m.M.Name = name
		}
		return nil, h.UseMiddleware(m.M, tools)
	}
	return nil, fmt.Errorf("middleware: fn got %s, want a function(call, next) or timeout(...)/retry(...)", describe(a["fn"]))
}

func (h *Host) apiInvokeTool(ctx context.Context, a Args) (any, error) {
	name := a["name"].(string)
	res, err := h.InvokeTool(ctx, name, a["args"], a["dedup_key"].(string))
	if err != nil {
		return nil, fmt.Errorf("invoke_tool %s: %w", name, err)
	}
	return res, nil
}

func (h *Host) apiInvokeAll(ctx context.Context, a Args) (any, error) {
	n := -1 // the configured bound
	if c, ok := a["concurrency"].(int); ok {
		if c < 0 {
			return nil, fmt.Errorf("invoke_all: concurrency got %d, want 0 (the default, %d at a time) or more", c, executor.DefaultConcurrency)
		}
		n = c
	}
	results, err := h.InvokeAll(ctx, a["calls"].([]CallSpec), a["mode"].(string), n)
	if err != nil {
		return nil, fmt.Errorf("invoke_all: %w", err)
	}
	out := make([]any, len(results))
	for i, r := range results {
		out[i] = r
	}
	return out, nil
}
