package script

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/agentsh/agentsh/core"
)

// CallInfo is what a hook or middleware sees of a call: .id .name .args
// (the canonical arguments, decoded, see Arguments) .raw (the arguments as
// the caller sent them, JSON text) .origin (person, model, mcp or hook)
// .workdir (the absolute working directory its paths are relative to)
// .effects (what it will do, see EffectsValue) .agent .parent_agent (the
// agent whose run made the call and its parent, see core.Call.Agent; ""
// when none did). It belongs to the goroutine of its call.
type CallInfo struct {
	ID   string
	Name string
	// ArgsJSON is the canonical arguments' JSON text; Raw what was sent.
	ArgsJSON, Raw string
	Origin        core.Origin
	Sandbox       core.Sandbox
	WorkDir       string
	Effects       *core.Effects
	// Agent and ParentAgent are the call's core.Call.Agent and
	// ParentAgent.
	Agent, ParentAgent string

	args    map[string]any // decoded on first use: most hooks never look
	argsErr error
}

func newCallInfo(call *core.Call) *CallInfo {
	raw := call.RawArgs
	if raw == nil {
		raw = call.Args
	}
	return &CallInfo{ID: call.ID, Name: call.Name, ArgsJSON: string(call.Args), Raw: string(raw), Origin: call.Origin,
		Sandbox: call.Sandbox, WorkDir: call.WorkDir, Effects: call.Effects, Agent: call.Agent, ParentAgent: call.ParentAgent}
}

// Arguments returns the decoded arguments object. Arguments that were never
// a valid object (seen by after hooks) decode as an empty one. A valid
// object that has no script form (nested deeper than MaxDepth, or with a
// number beyond a float64) is an error: a policy must not see {} where the
// tool will see arguments.
func (c *CallInfo) Arguments() (map[string]any, error) {
	if c.args == nil && c.argsErr == nil {
		c.args = map[string]any{}
		raw := c.object()
		if v, ok := scanJSON[any](raw, Shapes{}); ok {
			c.args = v.(map[string]any)
		} else if raw != nil && json.Valid(raw) {
			v, err := decodeValid(raw, "args")
			if err != nil {
				c.args, c.argsErr = nil, fmt.Errorf("call %s: %w", c.Name, err)
			} else {
				c.args = v.(map[string]any)
			}
		}
	}
	return c.args, c.argsErr
}

// object is the call's JSON text when it starts as an object, else nil;
// it shares the memory of Raw and must not be changed.
func (c *CallInfo) object() []byte {
	raw := bytes.TrimSpace(unsafe.Slice(unsafe.StringData(c.ArgsJSON), len(c.ArgsJSON)))
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return raw
}

// ArgumentsAs is c.Arguments() made of b's values (see DecodeAs): the
// same value, or the same error, decoded straight from the call's JSON
// text when no script has decoded it yet.
func ArgumentsAs[V any](c *CallInfo, b Builder[V]) (V, error) {
	if c.args == nil && c.argsErr == nil {
		if v, ok := scanJSON(c.object(), b); ok {
			return v, nil
		}
	}
	var zero V
	args, err := c.Arguments() // {} for text that is no object, or the error
	if err != nil {
		return zero, err
	}
	w := NewWalk("args")
	defer w.Done()
	return build(w, args, b)
}

var (
	_ Object   = (*CallInfo)(nil)
	_ Object   = (*ResultInfo)(nil)
	_ Object   = Verdict{}
	_ Object   = Dual{}
	_ Object   = Silent{}
	_ Object   = BuiltinMiddleware{}
	_ Callable = (*Next)(nil)
	_ Truther  = (*ResultInfo)(nil)
)

func (c *CallInfo) TypeName() string { return "call" }
func (c *CallInfo) AttrNames() []string {
	return []string{"agent", "args", "effects", "id", "name", "origin", "parent_agent", "raw", "sandbox", "workdir"}
}

// Attr returns id, name, raw, origin, workdir, effects (see EffectsValue),
// agent, parent_agent, or args (decoded, see Arguments).
func (c *CallInfo) Attr(name string) (any, bool, error) {
	switch name {
	case "origin":
		return c.Origin.String(), true, nil
	case "workdir":
		return c.WorkDir, true, nil
	case "sandbox":
		if c.Sandbox == core.SandboxUnset {
			return nil, true, nil
		}
		return string(c.Sandbox), true, nil
	case "effects":
		return EffectsValue(c.Effects), true, nil
	case "agent":
		return c.Agent, true, nil
	case "parent_agent":
		return c.ParentAgent, true, nil
	case "id":
		return c.ID, true, nil
	case "name":
		return c.Name, true, nil
	case "raw":
		return c.Raw, true, nil
	case "args":
		args, err := c.Arguments()
		return args, true, err
	}
	return nil, false, nil
}

// String renders the call for transcripts: call(id="...", name="...",
// args={...}).
func (c *CallInfo) String() string { return c.Spell(CallSpelling) }

// Spell renders the call in sp; the arguments stay canonical JSON.
func (c *CallInfo) Spell(sp Spelling) string {
	args, err := c.Arguments()
	if err != nil {
		return sp.record("call", "id", quoteString(c.ID), "name", quoteString(c.Name), "raw", quoteString(shorten(c.ArgsJSON, 256)))
	}
	return sp.record("call", "id", quoteString(c.ID), "name", quoteString(c.Name), "args", Quote(args))
}

// ResultInfo is what a script sees of a result.
type ResultInfo struct {
	R *core.Result
}

// Fields returns the result's script-visible fields as JSON shapes, keyed
// by the names scripts use: ok, output, for_user, silent, error,
// error_kind, blocks, artifact, data, call_id, tool, decisions (see
// DecisionsValue).
func (r *ResultInfo) Fields() map[string]any {
	return map[string]any{
		"ok": r.R.OK(), "output": r.R.ForLLM, "for_user": r.R.Display(), "silent": r.R.Silent,
		"error": r.Error(), "error_kind": r.Kind(), "blocks": r.Blocks(), "artifact": r.Artifact(),
		"data": r.R.Data, "call_id": r.R.CallID, "tool": r.R.Tool, "decisions": DecisionsValue(r.R.Decisions),
	}
}

// FieldNames lists the fields of Fields in sorted order.
var FieldNames = []string{"artifact", "blocks", "call_id", "data", "decisions", "error", "error_kind", "for_user", "ok", "output", "silent", "tool"}

// Field returns one field by its script name.
func (r *ResultInfo) Field(name string) (any, bool) {
	switch name {
	case "ok":
		return r.R.OK(), true
	case "output":
		return r.R.ForLLM, true
	case "for_user":
		return r.R.Display(), true
	case "silent":
		return r.R.Silent, true
	case "error":
		return r.Error(), true
	case "error_kind":
		return r.Kind(), true
	case "blocks":
		return r.Blocks(), true
	case "artifact":
		return r.Artifact(), true
	case "data":
		return r.R.Data, true
	case "call_id":
		return r.R.CallID, true
	case "tool":
		return r.R.Tool, true
	case "decisions":
		return DecisionsValue(r.R.Decisions), true
	}
	return nil, false
}

func (r *ResultInfo) TypeName() string    { return "result" }
func (r *ResultInfo) AttrNames() []string { return FieldNames }

// Attr returns one of the fields of Fields.
func (r *ResultInfo) Attr(name string) (any, bool, error) {
	v, ok := r.Field(name)
	return v, ok, nil
}

// Truth is whether the call succeeded: `if r:` in Starlark.
func (r *ResultInfo) Truth() bool { return r.R.OK() }

// Error is the error message, or nil on success.
func (r *ResultInfo) Error() any {
	if r.R.Err == nil {
		return nil
	}
	return r.R.Err.Error()
}

// Kind is the error kind, or nil on success.
func (r *ResultInfo) Kind() any {
	if r.R.Err == nil {
		return nil
	}
	return string(r.R.Kind())
}

// Blocks describes the blocks without their bytes: type, mime_type, size
// and text when present.
func (r *ResultInfo) Blocks() []any {
	out := make([]any, 0, len(r.R.Blocks))
	for _, b := range r.R.Blocks {
		m := map[string]any{"type": b.Type, "mime_type": b.MIMEType, "size": int64(len(b.Data))}
		if b.Text != "" {
			m["text"] = b.Text
		}
		out = append(out, m)
	}
	return out
}

// Artifact is {"id", "size"} for an offloaded result, else nil.
func (r *ResultInfo) Artifact() any {
	if r.R.Artifact == nil {
		return nil
	}
	return map[string]any{"id": r.R.Artifact.ID, "size": r.R.Artifact.Size}
}

// String is a deterministic one-line rendering for transcripts:
// result(ok=True, output="...").
func (r *ResultInfo) String() string { return r.Spell(CallSpelling) }

// Spell renders the result in sp.
func (r *ResultInfo) Spell(sp Spelling) string {
	if !r.R.OK() {
		return sp.record("result", "ok", sp.False, "error_kind", quoteString(string(r.R.Kind())), "error", quoteString(r.R.Err.Error()))
	}
	fields := []string{"ok", sp.True, "output", quoteString(r.R.ForLLM)}
	if r.R.ForUser != "" {
		fields = append(fields, "for_user", quoteString(r.R.ForUser))
	}
	if r.R.Silent {
		fields = append(fields, "silent", sp.True)
	}
	return sp.record("result", fields...)
}

func quoteString(s string) string {
	b, _ := core.MarshalJSON(s)
	return string(b)
}

// Dual is a tool output with one text for the model and another for the
// person: dual(for_llm, for_user).
type Dual core.DualToolOutput

func (d Dual) TypeName() string    { return "dual" }
func (d Dual) AttrNames() []string { return []string{"for_llm", "for_user"} }
func (d Dual) String() string      { return fmt.Sprintf("dual(%q, %q)", d.ForLLM, d.ForUser) }
func (d Dual) Attr(name string) (any, bool, error) {
	switch name {
	case "for_llm":
		return d.ForLLM, true, nil
	case "for_user":
		return d.ForUser, true, nil
	}
	return nil, false, nil
}

// Silent is a tool output for the model only: silent(for_llm).
type Silent core.SilentResult

func (s Silent) TypeName() string    { return "silent" }
func (s Silent) AttrNames() []string { return []string{"for_llm"} }
func (s Silent) String() string      { return fmt.Sprintf("silent(%q)", s.ForLLM) }
func (s Silent) Attr(name string) (any, bool, error) {
	return s.ForLLM, name == "for_llm", nil
}

// BuiltinMiddleware is a middleware written in Go, from timeout(...) or
// retry(...), for middleware(...).
type BuiltinMiddleware struct{ M core.Middleware }

func (m BuiltinMiddleware) TypeName() string                    { return "middleware" }
func (m BuiltinMiddleware) AttrNames() []string                 { return []string{"name"} }
func (m BuiltinMiddleware) String() string                      { return "<middleware " + m.M.Name + ">" }
func (m BuiltinMiddleware) Attr(name string) (any, bool, error) { return m.M.Name, name == "name", nil }

// Next is the rest of the chain, handed to a script middleware:
// next(call[, args]).
type Next struct {
	call *core.Call
	next core.Handler
}

func (n *Next) TypeName() string                    { return "next" }
func (n *Next) AttrNames() []string                 { return nil }
func (n *Next) Attr(name string) (any, bool, error) { return nil, false, nil }
func (n *Next) String() string                      { return "<next>" }

// nextBuiltin declares next's parameters.
var nextBuiltin = Builtin{Name: "next", Doc: "Runs the rest of the chain, with new arguments when given.",
	Params: []Param{{Name: "call", Kind: Any}, {Name: "args", Kind: Dict, Optional: true}}}

// CallValue is next(call[, args]) from a script.
func (n *Next) CallValue(ctx context.Context, args []any) (any, error) {
	b := nextBuiltin
	b.Fn = func(ctx context.Context, a Args) (any, error) {
		if _, ok := a["call"].(*CallInfo); !ok {
			return nil, fmt.Errorf("next: call got %s, want the call, as in next(call)", describe(a["call"]))
		}
		m, _ := a["args"].(map[string]any)
		res, err := n.Call(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("next: %w", err)
		}
		return res, nil
	}
	return b.Call(ctx, args, nil)
}

// Call runs the rest of the chain. args, when non-nil, replaces the call's
// arguments for what follows.
func (n *Next) Call(ctx context.Context, args map[string]any) (*ResultInfo, error) {
	c := *n.call
	if args != nil {
		raw, err := EncodeJSON(args)
		if err != nil {
			return nil, err
		}
		c.Args = json.RawMessage(raw)
	}
	return &ResultInfo{R: n.next(ctx, &c)}, nil
}

// EffectsValue is a call's effects as a script value: a dict of reads,
// writes, deletes and hosts (lists of strings; paths canonical and bare),
// shell (a list of {command, dir}), code (a list of {language, code}) and
// unknown (True when nothing is known of what the call does). Nil effects
// (a call made outside the executor) are all empty.
func EffectsValue(e *core.Effects) map[string]any {
	if e == nil {
		e = &core.Effects{}
	}
	shell := make([]any, len(e.Shell))
	for i, s := range e.Shell {
		shell[i] = map[string]any{"command": s.Command, "dir": s.Dir}
	}
	code := make([]any, len(e.Code))
	for i, c := range e.Code {
		code[i] = map[string]any{"language": c.Language, "code": c.Code}
	}
	return map[string]any{"reads": stringValues(e.Reads), "writes": stringValues(e.Writes), "deletes": stringValues(e.Deletes),
		"hosts": stringValues(e.Hosts), "shell": shell, "code": code, "unknown": e.Unknown}
}

func stringValues(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
