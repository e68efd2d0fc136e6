package agentapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/script"
)

// Subagent limits in scripts: config(subagents = {"depth": 3, "per_run":
// 8, "concurrent": 4}) bounds how deep subagents nest, how many children
// one run of an agent starts, and how many of one agent's children run at
// once, for the task tool and spawn() alike. The keys given replace those
// bounds and leave the others; 0 or None restores a bound's default.
// Reading config()["subagents"] gives the bounds in force.

// installSubagentAPI registers the task tool (unless Config.NoTask), adds
// spawn(prompt, tools = [...], max_turns = N) to the script API, and the
// subagents setting to config().
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
	a := s.agent
	h.AddSetting("subagents", script.Setting{
		Get:   func() any { return subagentLimitsValue(a.SubagentLimits()) },
		Check: func(v any) error { _, err := subagentLimitsUpdate(a.SubagentLimits(), v); return err },
		Set: func(v any) {
			if l, err := subagentLimitsUpdate(a.SubagentLimits(), v); err == nil { // checked by Check
				a.SetSubagentLimits(l)
			}
		},
	})
	return nil
}

// subagentBound is a key of config(subagents = ...): the bound it sets
// and the largest value it takes (a deeper tree or a wider fan-out than
// these is a runaway, not a plan).
type subagentBound struct {
	key   string
	field func(*agent.SubagentLimits) *int
	most  int
}

var subagentKeys = []subagentBound{
	{"depth", func(l *agent.SubagentLimits) *int { return &l.MaxDepth }, 32},
	{"per_run", func(l *agent.SubagentLimits) *int { return &l.PerRun }, 10000},
	{"concurrent", func(l *agent.SubagentLimits) *int { return &l.Concurrent }, 256},
}

// subagentLimitsValue is config()["subagents"].
func subagentLimitsValue(l agent.SubagentLimits) map[string]any {
	v := make(map[string]any, len(subagentKeys))
	for _, k := range subagentKeys {
		v[k.key] = int64(*k.field(&l))
	}
	return v
}

// subagentLimitsUpdate returns l with the bounds of v, a config(subagents
// = ...) value, applied; errors name the key and the value.
func subagentLimitsUpdate(l agent.SubagentLimits, v any) (agent.SubagentLimits, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if list, isList := v.([]any); isList && len(list) == 0 {
			return l, nil // an empty Lua table
		}
		return l, fmt.Errorf(`got %s, want a dict such as {"depth": 3, "per_run": 8, "concurrent": 4}`, script.Quote(v))
	}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		i := slices.IndexFunc(subagentKeys, func(k subagentBound) bool { return k.key == key })
		if i < 0 {
			return l, fmt.Errorf("unknown key %q; the keys are depth, per_run and concurrent", key)
		}
		k := subagentKeys[i]
		switch n := m[key].(type) {
		case nil:
			*k.field(&l) = 0 // the default
			continue
		case int64:
			if n >= 0 && n <= int64(k.most) {
				*k.field(&l) = int(n)
				continue
			}
		}
		return l, fmt.Errorf("%s: got %s, want a whole number from 1 to %d (0 or None: the default)", key, script.Quote(m[key]), k.most)
	}
	return l, nil
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
	if errors.Is(err, agent.ErrSubagentLimit) {
		l := s.agent.SubagentLimits()
		return nil, fmt.Errorf(`spawn: %w (the limits in force: config(subagents = {"depth": %d, "per_run": %d, "concurrent": %d}))`,
			err, l.MaxDepth, l.PerRun, l.Concurrent)
	}
	if err != nil {
		return nil, fmt.Errorf("spawn: %w", err)
	}
	return replyValue(reply), nil
}
