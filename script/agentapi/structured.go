package agentapi

import (
	"fmt"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
)

// askSchema turns ask()'s schema = {...} into a run option (nil without
// one). The schema is a JSON Schema given as a dict (a table in Lua) whose
// top-level "type", if any, is "object" ({} accepts any JSON object); a
// schema that does not compile is an error that says why.
func askSchema(schema any) (agent.RunOption, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := core.MarshalJSON(schema)
	if err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	s, err := agent.CompileOutputSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	return agent.WithSchema(s), nil
}

// violationsValue is Reply.Violations as scripts see them:
// [{"pointer", "message"}].
func violationsValue(vs []core.Violation) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = map[string]any{"pointer": v.Pointer, "message": v.Message}
	}
	return out
}
