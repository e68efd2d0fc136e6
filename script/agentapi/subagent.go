package agentapi

import (
	"context"
	"fmt"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/script"
)

// installSubagentAPI registers the task tool (unless Config.NoTask) and
// adds spawn(prompt, tools = [...], max_turns = N) to the script API.
func (s *Session) installSubagentAPI(h *script.Host) error {
	if !s.cfg.NoTask {
		if err := h.Executor().Registry().RegisterTools(s.agent.TaskTool()); err != nil {
			return fmt.Errorf("agent: the task tool: %w (give the script's tool another name, or replace = True)", err)
		}
	}
	h.AddBuiltin(script.Builtin{Name: "spawn",
		Doc: "Runs prompt in a subagent (a conversation of its own, with the same model, policies and approvals, on tools = [...] of the agent's tools) and returns its reply, as ask() does; reply.agent is the subagent's id.",
		Params: []script.Param{{Name: "prompt", Kind: script.String}, {Name: "tools", Optional: true},
			{Name: "max_turns", Kind: script.Int, Optional: true}},
		Fn: s.builtinSpawn})
	return nil
}

// builtinSpawn is spawn(prompt, tools = [...], max_turns = N). Called
// from a tool or hook that runs under a subagent, it spawns a child of
// that subagent (see agent.Agent.Spawn).
func (s *Session) builtinSpawn(ctx context.Context, args script.Args) (any, error) {
	prompt, err := args.String("spawn", "prompt")
	if err != nil {
		return nil, err
	}
	var opts agent.SubagentOptions
	if args["tools"] != nil {
		if opts.Tools, err = stringList(args["tools"], "spawn", "tools"); err != nil {
			return nil, err
		}
		if opts.Tools == nil {
			opts.Tools = []string{} // tools = []: none at all
		}
	}
	if opts.MaxTurns, err = args.Int("spawn", "max_turns", 0); err != nil {
		return nil, err
	}
	if opts.MaxTurns < 0 {
		return nil, fmt.Errorf("spawn: max_turns got %d, want 1 or more", opts.MaxTurns)
	}
	reply, err := s.agent.Spawn(ctx, prompt, opts)
	if err != nil {
		return nil, fmt.Errorf("spawn: %w", err)
	}
	return replyValue(reply), nil
}
