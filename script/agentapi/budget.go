package agentapi

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/pricing"
	"github.com/agentsh/agentsh/script"
)

// Budgets in scripts: config(budget = {"tool_calls": N, "tokens": N,
// "cost": USD, "wall": "10m", "tools": {"bash": {"calls": N}}}) sets the
// limits of the session's budget (the one --max-tool-calls, --max-tokens,
// --max-cost and --max-wall set; the agent's subagents draw on it too).
// The keys given replace those limits and leave the others; 0 or None
// removes a limit; under "tools", each tool named gets its limit (0 or
// None removes it). Reading config()["budget"] gives the limits, None
// where there is none, and "spent": {"tool_calls", "tools", "requests",
// "tokens", "usage", "cost"} (cost None when a request had no price). A
// "spent" key given back to config is ignored, so what config() returns
// may be set again.

// installBudgetAPI adds this part's names to the script API.
func (s *Session) installBudgetAPI(h *script.Host) error {
	b := s.agent.Budget()
	h.AddSetting("budget", script.Setting{
		Get:   func() any { return budgetValue(b) },
		Check: func(v any) error { _, err := budgetUpdate(b.Limits(), v); return err },
		Set: func(v any) {
			l, err := budgetUpdate(b.Limits(), v)
			if err == nil { // checked by Check
				b.SetLimits(l)
			}
		},
	})
	return nil
}

// budgetValue is config()["budget"].
func budgetValue(b *agent.Budget) map[string]any {
	l, sp := b.Limits(), b.Spent()
	count := func(n int) any {
		if n <= 0 {
			return nil
		}
		return int64(n)
	}
	v := map[string]any{"tool_calls": count(l.ToolCalls), "tokens": count(l.Tokens), "cost": nil, "wall": nil}
	if l.Cost > 0 {
		v["cost"] = l.Cost
	}
	if l.Wall > 0 {
		v["wall"] = l.Wall.String()
	}
	tools := map[string]any{}
	for name, tl := range l.Tools {
		if tl.Calls > 0 {
			tools[name] = map[string]any{"calls": int64(tl.Calls)}
		}
	}
	v["tools"] = tools
	spentTools := map[string]any{}
	for name, n := range sp.Tools {
		spentTools[name] = int64(n)
	}
	var cost any
	if sp.CostKnown {
		cost = sp.Cost
	}
	v["spent"] = map[string]any{"tool_calls": int64(sp.ToolCalls), "tools": spentTools, "requests": int64(sp.Requests),
		"tokens": int64(sp.Tokens()), "usage": usageValue(sp.Usage), "cost": cost}
	return v
}

var budgetKeys = []string{"cost", "spent", "tokens", "tool_calls", "tools", "wall"}

// maxBudgetCount bounds a count limit and a scripted model's usage: the
// bound of a recording's usage too.
const maxBudgetCount = provider.MaxTokenCount

// budgetUpdate returns l, a copy the caller owns (Budget.Limits), with
// the limits of v, a config(budget = ...) value, applied; errors name the
// key and the value.
func budgetUpdate(l agent.Limits, v any) (agent.Limits, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if list, isList := v.([]any); isList && len(list) == 0 {
			return l, nil // an empty Lua table
		}
		return l, fmt.Errorf(`got %s, want a dict such as {"tool_calls": 20, "tokens": 200000, "cost": 0.50, "wall": "10m", "tools": {"bash": {"calls": 3}}}`, script.Quote(v))
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		if i := sort.SearchStrings(budgetKeys, k); i == len(budgetKeys) || budgetKeys[i] != k {
			return l, fmt.Errorf("unknown key %q; the keys are tool_calls, tokens, cost, wall and tools", k)
		}
	}
	var err error
	for _, k := range keys {
		val := m[k]
		switch k {
		case "tool_calls":
			l.ToolCalls, err = budgetCount(k, val)
		case "tokens":
			l.Tokens, err = budgetCount(k, val)
		case "cost":
			l.Cost, err = budgetCost(val)
		case "wall":
			l.Wall, err = budgetWall(val)
		case "tools":
			err = budgetTools(&l, val)
		}
		if err != nil {
			return l, err
		}
	}
	return l, nil
}

func budgetCount(key string, v any) (int, error) {
	switch n := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if n >= 0 && n <= maxBudgetCount {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("%s: got %s, want a whole number from 0 (no limit) to %d", key, script.Quote(v), maxBudgetCount)
}

func budgetCost(v any) (float64, error) {
	var f float64
	switch n := v.(type) {
	case nil:
		return 0, nil
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, fmt.Errorf("cost: got %s, want US dollars such as 0.50 (0: no limit)", script.Quote(v))
	}
	if !(f >= 0) || f > 1e9 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("cost: got %v, want US dollars from 0 (no limit) to 1000000000", f)
	}
	return f, nil
}

func budgetWall(v any) (time.Duration, error) {
	switch w := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if w == 0 {
			return 0, nil
		}
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(w))
		if err == nil && d >= 0 {
			return d, nil
		}
	}
	return 0, fmt.Errorf(`wall: got %s, want a duration such as "10m" or "1h30m" (0: no limit)`, script.Quote(v))
}

func budgetTools(l *agent.Limits, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		if list, isList := v.([]any); isList && len(list) == 0 {
			return nil
		}
		return fmt.Errorf(`tools: got %s, want {"TOOL": {"calls": N}}`, script.Quote(v))
	}
	names := slices.Sorted(maps.Keys(m))
	for _, name := range names {
		if name == "" {
			return fmt.Errorf(`tools: a tool name is empty; want {"TOOL": {"calls": N}}`)
		}
		var calls int
		switch e := m[name].(type) {
		case nil:
		case int64:
			if e != 0 {
				return fmt.Errorf(`tools.%s: got %d, want {"calls": N} (0 or None: no limit)`, name, e)
			}
		case map[string]any:
			for k := range e {
				if k != "calls" {
					return fmt.Errorf("tools.%s: unknown key %q; the key is calls", name, k)
				}
			}
			n, err := budgetCount("tools."+name+".calls", e["calls"])
			if err != nil {
				return err
			}
			calls = n
		default:
			return fmt.Errorf(`tools.%s: got %s, want {"calls": N}`, name, script.Quote(m[name]))
		}
		if l.Tools == nil {
			l.Tools = map[string]agent.ToolLimit{}
		}
		if calls == 0 {
			delete(l.Tools, name)
		} else {
			l.Tools[name] = agent.ToolLimit{Calls: calls}
		}
	}
	return nil
}

// usageOf reads the "usage" a scripted model returned: {"input_tokens",
// "output_tokens", "cache_read_tokens", "cache_write_tokens"}, each a
// whole number, each optional.
func usageOf(v any) (provider.Usage, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if list, isList := v.([]any); isList && len(list) == 0 {
			return provider.Usage{}, nil
		}
		return provider.Usage{}, fmt.Errorf(`model returned usage %s; want {"input_tokens": N, "output_tokens": N, "cache_read_tokens": N, "cache_write_tokens": N}`, script.Quote(v))
	}
	var u provider.Usage
	fields := map[string]*int{"input_tokens": &u.InputTokens, "output_tokens": &u.OutputTokens,
		"cache_read_tokens": &u.CacheReadTokens, "cache_write_tokens": &u.CacheWriteTokens}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		p, ok := fields[k]
		if !ok {
			return provider.Usage{}, fmt.Errorf("model returned usage key %q; want input_tokens, output_tokens, cache_read_tokens and cache_write_tokens", k)
		}
		n, ok := m[k].(int64)
		if !ok || n < 0 || n > maxBudgetCount {
			return provider.Usage{}, fmt.Errorf("model returned usage %s = %s; want a whole number of tokens, 0 or more", k, script.Quote(m[k]))
		}
		*p = int(n)
	}
	return u, nil
}

// budget is the configured budget, or one without limits priced by the
// built-in table.
func (c Config) budget() *agent.Budget {
	if c.Budget != nil {
		return c.Budget
	}
	return agent.NewBudget(agent.Limits{}, pricing.Builtin())
}
