package agentapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/pricing"
	"github.com/agentsh/agentsh/script/agentapi"
)

// pricedScripted is a budget whose table prices scripted models at $1
// input, $2 output, $0.50 cache read and $4 cache write per million.
func pricedScripted(t *testing.T, l agent.Limits) *agent.Budget {
	t.Helper()
	over, err := pricing.Parse("test.json", []byte(`{"models": {"scripted:*": {"input": 1, "output": 2, "cache_read": 0.5, "cache_write": 4}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return agent.NewBudget(l, pricing.Builtin().Merge(over))
}

// TestScriptedModelUsage: a scripted model reports usage; the reply sums
// it, and prices it when the table knows the model.
func TestScriptedModelUsage(t *testing.T) {
	star := `
def m(messages, tools):
    return {"content": "hi", "usage": {"input_tokens": 1000, "output_tokens": 500, "cache_read_tokens": 2000, "cache_write_tokens": 250}}
model(m)
r = ask("one")
r = ask("two")
u = r.usage
print(u["input_tokens"], u["output_tokens"], u["cache_read_tokens"], u["cache_write_tokens"], r.cost)
`
	lua := `
model(function(messages, tools)
  return {content = "hi", usage = {input_tokens = 1000, output_tokens = 500, cache_read_tokens = 2000, cache_write_tokens = 250}}
end)
local r = ask("one")
r = ask("two")
local u = r.usage
print(u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, r.cost)
`
	for _, lang := range langs {
		src := star
		if lang == "lua" {
			src = lua
		}
		t.Run("unpriced/"+lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			e.run(lang, src)
			// Each ask's reply counts its own request.
			wantLines(t, e.lines(), row(lang, "1000", "500", "2000", "250", none(lang)))
			sp := e.sess.Agent().Budget().Spent()
			if sp.Requests != 2 || sp.Tokens() != 7500 || sp.CostKnown {
				t.Errorf("spent %+v", sp)
			}
		})
		t.Run("priced/"+lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{Budget: pricedScripted(t, agent.Limits{})})
			e.run(lang, src)
			// 1000*1 + 500*2 + 2000*0.5 + 250*4 = 4000 per million.
			wantLines(t, e.lines(), row(lang, "1000", "500", "2000", "250", "0.004"))
		})
	}
}

func TestScriptedModelUsageErrors(t *testing.T) {
	for _, tc := range []struct{ name, star, lua, want string }{
		{"unknown key", `{"usage": {"input": 3}}`, `{usage = {input = 3}}`, `model returned usage key "input"; want input_tokens, output_tokens, cache_read_tokens and cache_write_tokens`},
		{"float", `{"usage": {"input_tokens": 1.5}}`, `{usage = {input_tokens = 1.5}}`, `model returned usage input_tokens = 1.5; want a whole number of tokens`},
		{"string", `{"usage": {"output_tokens": "3"}}`, `{usage = {output_tokens = "3"}}`, `model returned usage output_tokens = "3"; want a whole number`},
		{"negative", `{"usage": {"cache_read_tokens": -1}}`, `{usage = {cache_read_tokens = -1}}`, `model returned usage cache_read_tokens = -1; want a whole number of tokens, 0 or more`},
		{"not a dict", `{"usage": 12}`, `{usage = 12}`, `model returned usage 12; want {"input_tokens": N`},
	} {
		for _, lang := range langs {
			t.Run(tc.name+"/"+lang, func(t *testing.T) {
				e := newEnv(t, agentapi.Config{})
				var err error
				if lang == "lua" {
					err = e.execLua(context.Background(), "model(function(messages, tools) return "+tc.lua+" end)\nask(\"hi\")")
				} else {
					err = e.execStar(context.Background(), "model(lambda messages, tools: "+tc.star+")\nask(\"hi\")")
				}
				wantErr(t, "ask", err, "ask: "+tc.want)
			})
		}
	}
}

// TestConfigBudget: config(budget = ...) sets the limits; a call past a
// per-tool limit is refused without running, shows in the denials, and
// stops the ask with stop "budget"; config() reads the limits and what
// was spent.
func TestConfigBudget(t *testing.T) {
	star := `
def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "t", "args": {}}, {"name": "t", "args": {}}, {"name": "u", "args": {}}], "usage": {"input_tokens": 10, "output_tokens": 5}}
    return "done"
model(m)
config(budget = {"tool_calls": 5, "tools": {"t": {"calls": 1}}, "wall": "1h"})
r = ask("go")
print(r.stop, r.tool_calls, len(r.denials), r.denials[0]["hook"], r.denials[0]["call_id"])
print(r.exhausted)
b = config()["budget"]
print(b["tool_calls"], b["tokens"], b["cost"], b["wall"], b["tools"]["t"]["calls"])
s = b["spent"]
print(s["tool_calls"], s["tools"]["t"], s["tools"]["u"], s["requests"], s["tokens"], s["cost"])
config(budget = b)
config(budget = {"tools": {"t": None}, "wall": 0})
b = config()["budget"]
print(b["tool_calls"], b["wall"], len(b["tools"]))
`
	lua := `
model(function(messages, tools)
  if messages[#messages].role == "user" then
    return {tool_calls = {{name = "t", args = {}}, {name = "t", args = {}}, {name = "u", args = {}}}, usage = {input_tokens = 10, output_tokens = 5}}
  end
  return "done"
end)
config{budget = {tool_calls = 5, tools = {t = {calls = 1}}, wall = "1h"}}
local r = ask("go")
print(r.stop, r.tool_calls, #r.denials, r.denials[1].hook, r.denials[1].call_id)
print(r.exhausted)
local b = config().budget
print(b.tool_calls, b.tokens, b.cost, b.wall, b.tools.t.calls)
local s = b.spent
print(s.tool_calls, s.tools.t, s.tools.u, s.requests, s.tokens, s.cost)
config{budget = b}
config{budget = {tools = {t = 0}, wall = 0}}
b = config().budget
local n = 0
for _ in pairs(b.tools) do n = n + 1 end
print(b.tool_calls, b.wall, n)
`
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			var runs, uruns atomic.Int64
			e.goTool("t", func(context.Context, json.RawMessage) (any, error) { runs.Add(1); return "ok", nil })
			e.goTool("u", func(context.Context, json.RawMessage) (any, error) { uruns.Add(1); return "ok", nil })
			src, nothing := star, none(lang)
			if lang == "lua" {
				src = lua
			}
			e.run(lang, src)
			if runs.Load() != 1 || uruns.Load() != 1 {
				t.Errorf("t ran %d times, u %d; want 1 and 1", runs.Load(), uruns.Load())
			}
			wantLines(t, e.lines(),
				row(lang, "budget", "3", "1", "budget", "call_1_2"),
				`budget exhausted: 1 t call of 1 made; raise it with config(budget = {"tools": {"t": {"calls": N}}})`,
				row(lang, "5", nothing, nothing, "1h0m0s", "1"),
				row(lang, "2", "1", "1", "1", "15", nothing),
				row(lang, "5", nothing, "0"))
		})
	}
}

func TestConfigBudgetErrors(t *testing.T) {
	for _, tc := range []struct{ name, star, lua, want string }{
		{"not a dict", `"lots"`, `"lots"`, `budget: got "lots", want a dict`},
		{"unknown key", `{"tool_call": 3}`, `{tool_call = 3}`, `budget: unknown key "tool_call"; the keys are tool_calls, tokens, cost, wall and tools`},
		{"negative", `{"tool_calls": -1}`, `{tool_calls = -1}`, `budget: tool_calls: got -1, want a whole number`},
		{"float count", `{"tokens": 2.5}`, `{tokens = 2.5}`, `budget: tokens: got 2.5, want a whole number`},
		{"string count", `{"tokens": "many"}`, `{tokens = "many"}`, `budget: tokens: got "many"`},
		{"cost", `{"cost": -0.5}`, `{cost = -0.5}`, `budget: cost: got -0.5, want US dollars`},
		{"cost string", `{"cost": "$1"}`, `{cost = "$1"}`, `budget: cost: got "$1", want US dollars`},
		{"wall", `{"wall": "soon"}`, `{wall = "soon"}`, `budget: wall: got "soon", want a duration such as "10m"`},
		{"wall number", `{"wall": 600}`, `{wall = 600}`, `budget: wall: got 600, want a duration`},
		{"tools", `{"tools": ["bash"]}`, `{tools = {"bash"}}`, `budget: tools: got ["bash"], want {"TOOL": {"calls": N}}`},
		{"tool entry", `{"tools": {"bash": 3}}`, `{tools = {bash = 3}}`, `budget: tools.bash: got 3, want {"calls": N}`},
		{"tool key", `{"tools": {"bash": {"cals": 3}}}`, `{tools = {bash = {cals = 3}}}`, `budget: tools.bash: unknown key "cals"; the key is calls`},
		{"tool calls", `{"tools": {"bash": {"calls": 1.5}}}`, `{tools = {bash = {calls = 1.5}}}`, `budget: tools.bash.calls: got 1.5`},
		{"huge", `{"tool_calls": 2251799813685248}`, `{tool_calls = 2251799813685248}`, `budget: tool_calls: got 2251799813685248, want a whole number from 0 (no limit) to 1125899906842624`},
	} {
		for _, lang := range langs {
			t.Run(tc.name+"/"+lang, func(t *testing.T) {
				e := newEnv(t, agentapi.Config{})
				var err error
				if lang == "lua" {
					err = e.execLua(context.Background(), "config{budget = {tool_calls = 7}}\nconfig{budget = "+tc.lua+"}")
				} else {
					err = e.execStar(context.Background(), "config(budget = {\"tool_calls\": 7})\nconfig(budget = "+tc.star+")")
				}
				wantErr(t, "config", err, tc.want)
				// A bad value changes nothing.
				if l := e.sess.Agent().Budget().Limits(); l.ToolCalls != 7 || l.Tokens != 0 || len(l.Tools) != 0 {
					t.Errorf("limits %+v after a bad update", l)
				}
			})
		}
	}
}

// TestConfigBudgetSharedWithConfig: the budget a host is given (the
// CLI's flags) is the one config() changes.
func TestConfigBudgetSharedWithConfig(t *testing.T) {
	b := agent.NewBudget(agent.Limits{ToolCalls: 3, Tokens: 100}, nil)
	e := newEnv(t, agentapi.Config{Budget: b})
	e.runStar(`config(budget = {"tokens": 500})` + "\n" + `print(config()["budget"]["tool_calls"])`)
	wantLines(t, e.lines(), "3")
	if l := b.Limits(); l.ToolCalls != 3 || l.Tokens != 500 {
		t.Errorf("limits %+v", l)
	}
	if e.sess.Agent().Budget() != b {
		t.Error("the agent does not draw on the given budget")
	}
}

// row is one print() line of values: Starlark separates them by spaces,
// Lua by tabs.
func row(lang string, vals ...string) string {
	if lang == "lua" {
		return strings.Join(vals, "\t")
	}
	return strings.Join(vals, " ")
}

// none is how print() shows a missing value: None, or Lua's null (a
// dict's None value).
func none(lang string) string {
	if lang == "lua" {
		return "null"
	}
	return "None"
}

// TestBuiltinPrices: a provider the built-in table knows is priced by
// default, by its name (KIND:MODEL), a dated snapshot included.
func TestBuiltinPrices(t *testing.T) {
	for _, name := range []string{"anthropic:claude-sonnet-4-5", "anthropic:claude-sonnet-4-5-20250929"} {
		p := provider.Func{Label: name, Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
			return provider.Response{Content: "hi", Usage: provider.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 100_000}}, nil
		}}
		e := newEnv(t, agentapi.Config{Provider: p})
		e.runStar(`print(ask("hi").cost)`)
		// $3 input, $15 output, $0.30 cache read, $3.75 cache write.
		wantLines(t, e.lines(), "5.175")
	}
}
