package hookadapter

import "github.com/agentsh/agentsh/core"

// The kinds of tool the agents share, declared once for the three maps.

// readOnly is a tool of the agent's own that changes nothing and reaches
// nothing outside the agent (task lists, plans, questions to the person,
// tool and resource listings): it keeps its name and runs unless a
// policy says otherwise.
func readOnly(name string) ToolMapping { return ToolMapping{Name: name, ReadOnly: true} }

// acting is a tool of the agent's own that acts beyond the project's
// files (sends a message, schedules a prompt, kills a process): not
// read-only, so a model's call of it asks by default.
func acting(name string) ToolMapping { return ToolMapping{Name: name} }

// webSearch is every agent's web search: a query sent to a search
// service, so not read-only.
var webSearch = ToolMapping{Name: "web_search"}

// subagent is every agent's way to start another agent: read-only, as
// agentsh's own task tool, because each call the subagent makes comes
// through the hooks on its own.
var subagent = ToolMapping{Name: "task", ReadOnly: true}

// applyPatch is a patch in the apply_patch format, applied in workdir,
// decided as the files it writes and deletes.
var applyPatch = ToolMapping{Name: "apply_patch", CwdArg: "workdir", Effects: []core.ArgEffect{
	{Arg: "patch", Kind: core.ArgPatch}, {Arg: "workdir", Kind: core.ArgDir}}}

// code runs program text in language; fields rename the agent's field to
// code.
func code(language string, fields ...[2]string) ToolMapping {
	return ToolMapping{Name: "run_code", Fields: fields, Set: map[string]any{"language": language}}
}
