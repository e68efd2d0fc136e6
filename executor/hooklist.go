package executor

import "github.com/agentsh/agentsh/core"

// BeforeHooks returns the registered before hooks in the order a call
// meets them: the tool-specific ones, then the global ones, each in
// registration order. Tools' own Before hooks are not among them (they
// belong to their tool: see core.Tool). A caller that reports which hooks
// decided a set of calls, and which decided none, lists them here. The
// slice is a copy, safe to keep while hooks are added.
func (e *Executor) BeforeHooks() []core.BeforeHook {
	p := e.pipe.Load()
	hooks := make([]core.BeforeHook, 0, len(p.beforeTool)+len(p.beforeGlobal))
	hooks = append(hooks, p.beforeTool...)
	return append(hooks, p.beforeGlobal...)
}
