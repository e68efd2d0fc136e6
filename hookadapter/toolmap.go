package hookadapter

import (
	"encoding/json"
	"fmt"
)

// ToolMap maps an agent's tools onto agentsh's, by the agent's tool name.
// A tool that is not listed keeps its name and input.
type ToolMap map[string]ToolMapping

// ToolMapping is one tool's mapping: agentsh's name, and the fields that
// are renamed, agent's name first. Fields not listed keep their names in
// both directions, so a policy sees every field the agent sent (a Claude
// Code Bash call's run_in_background, say) and a rewrite keeps them.
type ToolMapping struct {
	Name   string
	Fields [][2]string
}

// In maps an agent's call onto agentsh's name and arguments.
func (m ToolMap) In(tool string, input json.RawMessage) (string, json.RawMessage, error) {
	t, ok := m[tool]
	if !ok {
		return tool, input, nil
	}
	args, err := rename(input, t.Fields, 0, "tool_input of "+tool)
	return t.Name, args, err
}

// Out maps agentsh's arguments for the agent's tool back onto the agent's
// field names.
func (m ToolMap) Out(tool string, args json.RawMessage) (json.RawMessage, error) {
	t, ok := m[tool]
	if !ok {
		return args, nil
	}
	return rename(args, t.Fields, 1, "the rewritten arguments of "+tool)
}

// rename renames the fields of an object from pairs[i][from] to
// pairs[i][1-from]. Two fields that would end under one name are an error
// rather than one of them lost.
func rename(raw json.RawMessage, pairs [][2]string, from int, what string) (json.RawMessage, error) {
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
	for k, v := range obj {
		name := k
		if n, ok := to[k]; ok {
			name = n
		}
		if prev, dup := renamed[name]; dup {
			return nil, fmt.Errorf("%s: fields %q and %q both map to %q", what, prev, k, name)
		}
		renamed[name] = k
		out[name] = v
	}
	return json.Marshal(out)
}
