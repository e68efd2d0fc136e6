package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// Verdict is what allow(...), ask(...), deny(...) and rewrite(args)
// return. A before hook returns one to decide a call (core.Verdict, with
// new arguments when Rewrites); deny(...) also rejects from middleware and
// lifecycle hooks, and an approver (on("approve", fn)) answers with
// allow(...) or deny(...).
type Verdict struct {
	Verdict core.Verdict
	Reason  string
	// Args, when not "", is the JSON object that replaces the call's
	// arguments. (Text keeps a Verdict comparable: deny("a") == deny("a").)
	Args string
	// Always, from an approver's allow(always = True), approves the tool
	// for the rest of the session.
	Always bool
	// Sandbox, from allow(..., sandbox = "read-only") or ask(...,
	// sandbox = "off") in a before hook, is where the call's commands run
	// (core.VerdictError.Sandbox); "" leaves it to the call's default.
	Sandbox core.Sandbox
}

// maker is the builtin that makes v: allow, ask, deny, or rewrite for no
// opinion.
func (v Verdict) maker() string {
	if v.Verdict == core.VerdictNone {
		return "rewrite"
	}
	return v.Verdict.String()
}

func (v Verdict) TypeName() string { return "verdict" }
func (v Verdict) AttrNames() []string {
	return []string{"always", "args", "reason", "sandbox", "verdict"}
}

// Attr returns verdict (none, allow, ask or deny), reason, args (None
// unless it rewrites) and always.
func (v Verdict) Attr(name string) (any, bool, error) {
	switch name {
	case "verdict":
		return v.Verdict.String(), true, nil
	case "reason":
		return v.Reason, true, nil
	case "args":
		if v.Args == "" {
			return nil, true, nil
		}
		args, err := DecodeJSON([]byte(v.Args))
		return args, true, err
	case "always":
		return v.Always, true, nil
	case "sandbox":
		if v.Sandbox == core.SandboxUnset {
			return nil, true, nil
		}
		return string(v.Sandbox), true, nil
	}
	return nil, false, nil
}

// String renders the verdict as the call that made it: deny("why"),
// allow(), rewrite({...}), ask("why", args = {...}).
func (v Verdict) String() string {
	var parts []string
	if v.Verdict == core.VerdictNone {
		parts = append(parts, v.Args)
	} else {
		if v.Reason != "" || v.Verdict != core.VerdictAllow {
			parts = append(parts, quoteString(v.Reason))
		}
		if v.Args != "" {
			parts = append(parts, "args = "+v.Args)
		}
	}
	if v.Sandbox != core.SandboxUnset {
		parts = append(parts, "sandbox = "+quoteString(string(v.Sandbox)))
	}
	if v.Always {
		parts = append(parts, "always = True")
	}
	return v.maker() + "(" + strings.Join(parts, ", ") + ")"
}

// bounded is v with its reason cut to MaxErrorBytes, as every message
// that reaches a result is.
func (v Verdict) bounded() Verdict {
	v.Reason = cut(v.Reason, MaxErrorBytes, "reason", "")
	return v
}

// verdictParams are the parameters of allow, ask and deny.
func verdictParams(reasonOptional bool) []Param {
	return []Param{{Name: "reason", Kind: String, Optional: reasonOptional, Default: ""},
		{Name: "args", Kind: Dict, Optional: true}}
}

// sandboxParam is allow's and ask's sandbox = "read-only"|"workspace"|"off".
var sandboxParam = Param{Name: "sandbox", Kind: String, Optional: true}

// newVerdict is the Fn of allow, deny and rewrite (and of ask in a
// before hook).
func newVerdict(v core.Verdict) func(context.Context, Args) (any, error) {
	return func(_ context.Context, a Args) (any, error) {
		out := Verdict{Verdict: v}
		out.Reason, _ = a["reason"].(string)
		if p, ok := a["prompt"].(string); ok { // ask's first parameter
			out.Reason = p
		}
		if args, ok := a["args"].(map[string]any); ok {
			raw, err := encodeJSON(args, "args")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", out.maker(), err)
			}
			out.Args = string(raw)
		}
		if always, _ := a["always"].(bool); always {
			out.Always = true
		}
		if s, ok := a["sandbox"].(string); ok {
			p, err := core.ParseSandbox(s)
			if err != nil {
				return nil, fmt.Errorf("%s: sandbox: %v", out.maker(), err)
			}
			out.Sandbox = p
		}
		if v == core.VerdictAsk && out.Reason == "" {
			return nil, fmt.Errorf(`ask: reason is empty; say why the call needs approval, as in ask("it writes outside the project")`)
		}
		return out, nil
	}
}

// beforeHookKey marks a context as that of a before hook's function, for
// ask (see inBeforeHook).
type beforeHookKey struct{}

// inBeforeHook reports whether ctx is that of a before hook's function,
// where ask(reason) is the verdict; a tool, middleware or after hook
// running beneath the hook (through invoke_tool) is not in it.
func inBeforeHook(ctx context.Context) bool {
	in, _ := ctx.Value(beforeHookKey{}).(bool)
	return in
}

// enterBeforeHook marks ctx as a before hook's.
func enterBeforeHook(ctx context.Context) context.Context {
	return context.WithValue(ctx, beforeHookKey{}, true)
}

// LeaveBeforeHook returns ctx without the mark of a before hook, for
// calling a script function that is not a before hook (a tool, a
// middleware, a lifecycle hook, a scripted model) under the context of a
// call that may have come from one. The host does this for what it runs;
// a Go program that calls a script function itself does it too.
func LeaveBeforeHook(ctx context.Context) context.Context {
	if !inBeforeHook(ctx) {
		return ctx
	}
	return context.WithValue(ctx, beforeHookKey{}, false)
}

// AskFunc asks the model and returns the reply as scripts see it: what
// ask(prompt) does outside a before hook.
type AskFunc func(ctx context.Context, req AskRequest) (any, error)

// AskRequest is what ask(prompt, max_turns = N, stream = B, schema = {...})
// asks outside a before hook.
type AskRequest struct {
	Prompt string
	// MaxTurns 0 is the agent's bound.
	MaxTurns int
	// Stream false keeps the reply's text off the transcript.
	Stream bool
	// Schema, when not nil, is the JSON schema (a JSON shape) the final
	// answer must validate against.
	Schema any
}

// SetAsk sets what ask(prompt) does outside before hooks (the agent sets
// it); nil leaves ask there an error that says no model is set up.
func (h *Host) SetAsk(f AskFunc) {
	h.cfgMu.Lock()
	defer h.cfgMu.Unlock()
	h.ask = f
}

// apiAsk is ask: the verdict in a before hook, the model elsewhere.
func (h *Host) apiAsk(ctx context.Context, a Args) (any, error) {
	_, turns := a["max_turns"]
	_, schema := a["schema"]
	stream := a["stream"].(bool)
	if inBeforeHook(ctx) {
		if turns || schema || !stream {
			return nil, fmt.Errorf("ask: max_turns, stream and schema are for asking the model; in a before hook ask(reason, args = {...}) is the verdict")
		}
		return newVerdict(core.VerdictAsk)(ctx, a)
	}
	if _, ok := a["args"]; ok {
		return nil, fmt.Errorf("ask: args is for the ask verdict, which a before hook returns; outside one, ask(prompt) asks the model")
	}
	if _, ok := a["sandbox"]; ok {
		return nil, fmt.Errorf("ask: sandbox is for the ask verdict, which a before hook returns; outside one, ask(prompt) asks the model")
	}
	h.cfgMu.Lock()
	ask := h.ask
	h.cfgMu.Unlock()
	if ask == nil {
		return nil, fmt.Errorf("ask: %w; outside a before hook ask(prompt) asks the model (set one with model(fn) or provider(spec)), inside one ask(reason) asks for approval", ErrNoModel)
	}
	n, _ := a["max_turns"].(int)
	if turns && n < 1 {
		return nil, fmt.Errorf("ask: max_turns got %d, want 1 or more (leave it out for the default)", n)
	}
	return ask(ctx, AskRequest{Prompt: a["prompt"].(string), MaxTurns: n, Stream: stream, Schema: a["schema"]})
}

// Verdicts from a hook function's return value.

// beforeReturns lists what a before hook may return, for messages.
const beforeReturns = "None, allow(reason?), ask(reason), deny(reason) or rewrite(args); allow, ask and deny take args = {...} to rewrite too"

// beforeVerdict maps what a before hook returned to a BeforeFunc's
// result: the rewritten arguments (or nil) and the verdict as core's
// error.
func beforeVerdict(name string, out any) ([]byte, error) {
	switch o := out.(type) {
	case nil:
		return nil, nil
	case Verdict:
		o = o.bounded()
		if o.Always {
			return nil, fmt.Errorf("before hook %s returned %s; always = True is for approvers (on(\"approve\", fn)), a hook's allow holds for one call", name, o)
		}
		var raw []byte
		if o.Args != "" {
			raw = []byte(o.Args)
		}
		switch o.Verdict {
		case core.VerdictAllow, core.VerdictAsk:
			return raw, &core.VerdictError{Verdict: o.Verdict, Reason: o.Reason, Sandbox: o.Sandbox}
		case core.VerdictDeny:
			return raw, core.Deny(o.Reason)
		}
		return raw, nil
	}
	return nil, fmt.Errorf("before hook %s returned %s; want %s", name, describe(out), beforeReturns)
}

// Sourcer is a Func that knows where it was defined: file:line, for the
// Source of hooks and the decision records that name them.
type Sourcer interface {
	Source() string
}

// sourceOf is where fn was defined, or "" when it does not say.
func sourceOf(fn Func) string {
	if n, ok := fn.(named); ok {
		fn = n.Func
	}
	if s, ok := fn.(Sourcer); ok {
		return s.Source()
	}
	return ""
}
