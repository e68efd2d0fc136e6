package hookadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentsh/agentsh/core"
)

// ToolMap maps an agent's tools onto agentsh's canonical calls, by the
// agent's tool name. Every tool a pinned agent has is listed (a test
// holds each map to the agent's own list), so that a policy written for
// agentsh's tools guards the agent's: Claude Code's Write is write_file,
// its Monitor is bash, Codex's apply_patch is its file writes. MCP tools
// (mcp__SERVER__TOOL; Gemini CLI's mcp_SERVER_TOOL, see MapCall) keep
// their names. A tool that is not listed is an unknown tool: it may do
// anything (see Run).
type ToolMap map[string]ToolMapping

// ToolMapping is one tool's mapping.
type ToolMapping struct {
	// Name is the canonical tool: one of agentsh's built-in tools, or a
	// tool the agent has and agentsh does not (apply_patch, web_search,
	// the agent's task lists), which the adapter declares with ReadOnly
	// and Effects for the decision (it never runs).
	Name string
	// Fields are the fields renamed, the agent's name first. Fields not
	// listed keep their names both ways, so a policy sees every field the
	// agent sent (a Claude Code Bash call's run_in_background, say) and a
	// rewrite keeps them.
	Fields [][2]string
	// Set adds fixed arguments to the canonical call (the language of a
	// client's code tool).
	Set map[string]any
	// CwdArg names the argument that takes the event's cwd, the directory
	// the agent runs the call in, when the input gives none: a shell
	// tool's workdir.
	CwdArg string
	// Convert, when set, reads the agent's input (after Fields) into the
	// canonical call itself: Codex runs an apply_patch heredoc sent to its
	// shell as a patch.
	Convert func(args map[string]json.RawMessage) (name string, out map[string]json.RawMessage)
	// ReadOnly and Effects declare a canonical tool agentsh has no tool
	// for.
	ReadOnly bool
	Effects  []core.ArgEffect
}

// Canonical is an agent's call as agentsh decides it.
type Canonical struct {
	Tool  string          // the agent's tool name
	Name  string          // the canonical tool
	Args  json.RawMessage // the canonical arguments (before the executor makes their paths canonical)
	Known bool            // the tool is in the map (or an MCP tool)
	// injected are the arguments the mapping added (Set, CwdArg), which
	// go back to the agent only if a policy changed them.
	injected map[string]json.RawMessage
	mapping  ToolMapping
}

// isMCP reports whether an agent's tool is an MCP server's, named as
// Claude Code and Codex name them (mcp__SERVER__TOOL).
func isMCP(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// mcpNamer is a protocol whose agent names its MCP servers' tools in
// another form than mcp__SERVER__TOOL.
type mcpNamer interface {
	// isMCP reports whether the agent's tool is an MCP server's.
	isMCP(tool string) bool
}

// MapCall maps an agent's call onto agentsh's through p: its tool map
// (see In), and its agent's form of an MCP tool's name, which keeps its
// name and counts as known. It is safe to call concurrently.
func MapCall(p Protocol, tool string, input json.RawMessage, cwd string) (*Canonical, error) {
	c, err := p.Tools().In(tool, input, cwd)
	if err != nil {
		return nil, err
	}
	if n, ok := p.(mcpNamer); ok && !c.Known {
		c.Known = n.isMCP(tool)
	}
	return c, nil
}

// In maps an agent's call onto agentsh's, in cwd (the event's; "" for
// none).
func (m ToolMap) In(tool string, input json.RawMessage, cwd string) (*Canonical, error) {
	c := &Canonical{Tool: tool, Name: tool, Args: input}
	t, ok := m[tool]
	if !ok {
		c.Known = isMCP(tool)
		if _, err := rawObject(input, "tool_input of "+tool); err != nil {
			return nil, err
		}
		return c, nil
	}
	c.Known, c.mapping, c.Name = true, t, t.Name
	obj, err := renameFields(input, t.Fields, 0, "tool_input of "+tool)
	if err != nil {
		return nil, err
	}
	if t.Convert != nil {
		if name, out := t.Convert(obj); name != "" {
			c.Name, obj = name, out
		}
	}
	c.injected = map[string]json.RawMessage{}
	for k, v := range t.Set {
		b, _ := marshal(v)
		obj[k], c.injected[k] = b, b
	}
	if t.CwdArg != "" && cwd != "" {
		if _, given := obj[t.CwdArg]; !given {
			b, _ := marshal(cwd)
			obj[t.CwdArg], c.injected[t.CwdArg] = b, b
		}
	}
	if c.Args, err = marshal(obj); err != nil {
		return nil, err
	}
	return c, nil
}

// errCannotApply says a rewrite cannot go back to the agent.
var errCannotApply = errors.New("cannot apply")

// Out maps the rewritten canonical arguments back onto the agent's tool:
// its field names, paths the agent wants absolute made absolute against
// workdir, and the arguments the mapping added dropped again. before are
// the canonical arguments before any hook rewrote them: an added
// argument that a hook changed, or a call the mapping cannot take back
// (a converted one), is an error wrapping errCannotApply.
func (c *Canonical) Out(args, before json.RawMessage, workdir string, absolute []string) (json.RawMessage, error) {
	t := c.mapping
	if t.Convert != nil && c.Name != t.Name {
		return nil, fmt.Errorf("%w: %s was read as %s", errCannotApply, c.Tool, c.Name)
	}
	obj, err := rawObject(args, "the rewritten arguments of "+c.Tool)
	if err != nil {
		return nil, err
	}
	was, _ := rawObject(before, "the canonical arguments of "+c.Tool)
	for k := range c.injected {
		if got, ok := obj[k]; ok && !sameJSON(got, was[k]) {
			return nil, fmt.Errorf("%w: a policy changed %s to %s, which %s has no field for", errCannotApply, k, got, c.Tool)
		}
		delete(obj, k)
	}
	for _, k := range absolute {
		var p string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &p) == nil && p != "" && !filepath.IsAbs(p) {
			obj[k], _ = marshal(filepath.Join(workdir, filepath.FromSlash(p)))
		}
	}
	b, err := marshal(obj)
	if err != nil {
		return nil, err
	}
	out, err := renameFields(b, t.Fields, 1, "the rewritten arguments of "+c.Tool)
	if err != nil {
		return nil, err
	}
	return marshal(out)
}

// renameFields renames the fields of an object from pairs[i][from] to
// pairs[i][1-from]. Two fields that would end under one name are an
// error rather than one of them lost.
func renameFields(raw json.RawMessage, pairs [][2]string, from int, what string) (map[string]json.RawMessage, error) {
	obj, err := rawObject(raw, what)
	if err != nil {
		return nil, err
	}
	to := map[string]string{}
	for _, p := range pairs {
		to[p[from]] = p[1-from]
	}
	out := make(map[string]json.RawMessage, len(obj))
	renamed := map[string]string{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := k
		if n, ok := to[k]; ok {
			name = n
		}
		if prev, dup := renamed[name]; dup {
			return nil, fmt.Errorf("%s: fields %q and %q both map to %q", what, prev, k, name)
		}
		renamed[name] = k
		out[name] = obj[k]
	}
	return out, nil
}

// declare registers, for the canonical tools of m that exec has no tool
// for, a tool that only declares (ReadOnly, Effects): the agent runs the
// call, agentsh decides it. Names taken already are left alone.
func (m ToolMap) declare(reg *core.Registry, names ...string) error {
	for _, name := range names {
		if reg.GetTool(name) != nil {
			continue
		}
		var t *ToolMapping
		for _, mt := range m {
			if mt.Name == name {
				mt := mt
				t = &mt
				break
			}
		}
		if t == nil {
			continue
		}
		err := reg.RegisterTools(core.Tool{Name: name, ReadOnly: t.ReadOnly, Effects: t.Effects,
			Description: "a tool of the agent's own, declared for its hooks",
			Func: func(context.Context, json.RawMessage) (any, error) {
				return nil, fmt.Errorf("%s is the agent's own tool: the agent runs it, agentsh only decides it", name)
			}})
		var dup *core.DuplicateToolError
		if err != nil && !errors.As(err, &dup) {
			return err
		}
	}
	return nil
}
