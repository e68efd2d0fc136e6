package agentapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/script/agentapi"
)

// TestSpawnArguments: spawn() checks its arguments and says what is
// wrong; a spawn refused by the agent (an unknown tool) is an error too.
func TestSpawnArguments(t *testing.T) {
	e := newEnv(t, agentapi.Config{Provider: fixed("ok")})
	ctx := context.Background()
	wantErr(t, "tools not a list", e.execStar(ctx, `spawn("x", tools = "read")`), "spawn: tools must be a list of strings")
	wantErr(t, "tools of numbers", e.execStar(ctx, `spawn("x", tools = [1])`), "spawn: tools[0] must be a string")
	wantErr(t, "negative max_turns", e.execStar(ctx, `spawn("x", max_turns = -1)`), "spawn: max_turns got -1, want 1 or more")
	wantErr(t, "unknown tool", e.execLua(ctx, `spawn("x", {tools = {"nope"}})`), `spawn: agent main has no tool "nope" to give a subagent; its tools are task`)
	// tools = [] gives the child no tool at all; its reply names it.
	e.runStar(`r = spawn("x", tools = [])
print(r.text, r.agent, r.parent_agent, r.stop, r.turns)`)
	wantLines(t, e.lines(), "ok main/1 main final 1")
}

// TestSpawnFromAChildsTool: spawn() called by a tool that a subagent's
// model called starts a child of that subagent, whose denials reach both
// replies; the model's task tool and spawn() count toward the same depth.
func TestSpawnFromAChildsTool(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
def deeper(args):
    r = spawn("leaf", tools = ["secret"])
    return r.agent + " said " + r.text + " with " + str(len(r.denials)) + " denial"
tool(name = "deeper", fn = deeper, read_only = True)
tool(name = "secret", fn = lambda args: "the secret")
before(lambda call: deny("not for " + call.agent) if call.parent_agent != "" else None, tools = ["secret"])

def m(messages, tools):
    prompt = messages[0]["content"]
    last = messages[-1]
    if last["role"] != "user":
        return prompt + " got " + " | ".join([r["content"] for r in messages[2:]])
    if prompt == "top":
        return {"tool_calls": [{"name": "task", "args": {"prompt": "mid"}}]}
    if prompt == "mid":
        return {"tool_calls": [{"name": "deeper", "args": {}}]}
    return {"tool_calls": [{"name": "secret", "args": {}}]}
model(m)
r = ask("top")
print(r.text)
for d in r.denials:
    print(d["agent"], d["tool"], d["reason"])
`)
	wantLines(t, e.lines(),
		"top got mid got main/1/1 said leaf got error (rejected): rejected by \"lambda@test.star:7:8\": not for main/1/1 with 1 denial",
		`main/1/1 secret rejected by "lambda@test.star:7:8": not for main/1/1`)
}

// TestConfigSubagents: config(subagents = {...}) reads and sets the
// bounds on subagents, for the task tool and spawn() alike, in both
// languages; a spawn refused by a bound says which bounds are in force.
func TestConfigSubagents(t *testing.T) {
	star := `
s = config()["subagents"]
print(s["depth"], s["per_run"], s["concurrent"])
config(subagents = {"per_run": 1, "depth": 1})
s = config()["subagents"]
print(s["depth"], s["per_run"], s["concurrent"])

def deeper(args):
    return spawn("leaf").text
tool(name = "deeper", fn = deeper, read_only = True)

def m(messages, tools):
    prompt, last = messages[0]["content"], messages[-1]
    if last["role"] != "user":
        return prompt + " got " + " | ".join([r["content"] for r in messages[2:]])
    if prompt == "top":
        return {"tool_calls": [{"name": "task", "args": {"prompt": "mid"}}, {"name": "task", "args": {"prompt": "other"}}]}
    if prompt == "mid":
        return {"tool_calls": [{"name": "deeper", "args": {}}]}
    return "unreachable"
model(m)
print(ask("top").text)
config(subagents = {"depth": None})
config(subagents = config()["subagents"])
s = config()["subagents"]
print(s["depth"], s["per_run"], s["concurrent"])
`
	lua := `
local s = config().subagents
print(s.depth, s.per_run, s.concurrent)
config{subagents = {per_run = 1, depth = 1}}
s = config().subagents
print(s.depth, s.per_run, s.concurrent)

tool{name = "deeper", read_only = true, fn = function(args) return spawn("leaf").text end}

model(function(messages, tools)
  local prompt, last = messages[1].content, messages[#messages]
  if last.role ~= "user" then
    local got = {}
    for i = 3, #messages do got[#got + 1] = messages[i].content end
    return prompt .. " got " .. table.concat(got, " | ")
  end
  if prompt == "top" then
    return {tool_calls = {{name = "task", args = {prompt = "mid"}}, {name = "task", args = {prompt = "other"}}}}
  end
  if prompt == "mid" then return {tool_calls = {{name = "deeper", args = {}}}} end
  return "unreachable"
end)
print(ask("top").text)
config{subagents = {depth = 0}}
config{subagents = config().subagents}
s = config().subagents
print(s.depth, s.per_run, s.concurrent)
`
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			src := star
			if lang == "lua" {
				src = lua
			}
			e.run(lang, src)
			where := "test.star:9:17"
			if lang == "lua" {
				where = "test.lua:8"
			}
			// The first task's child, at depth 1, the limit, has no task
			// tool, and the spawn of the tool it calls is refused; the second
			// task is past per_run.
			wantLines(t, e.lines(),
				row(lang, "3", "8", "4"),
				row(lang, "1", "1", "4"),
				"top got mid got error (failed): "+where+": spawn: subagent limit: agent main/1 is 1 deep, the limit (1): it cannot start a subagent; do this part of the work itself"+
					` (the limits in force: config(subagents = {"depth": 1, "per_run": 1, "concurrent": 4}))`+
					" | error (failed): task: subagent limit: this run of agent main has started 1 subagent, its subagents' included, the limit (1); finish with the answers it has, or split the work differently",
				row(lang, "3", "1", "4"))
			if got := e.sess.Agent().SubagentLimits(); got.MaxDepth != 3 || got.PerRun != 1 {
				t.Errorf("the agent's limits %+v", got)
			}
		})
	}
}

func TestConfigSubagentsErrors(t *testing.T) {
	for _, tc := range []struct{ name, star, lua, want string }{
		{"not a dict", `3`, `3`, `subagents: got 3, want a dict such as {"depth": 3, "per_run": 8, "concurrent": 4}`},
		{"unknown key", `{"max_depth": 2}`, `{max_depth = 2}`, `subagents: unknown key "max_depth"; the keys are depth, per_run and concurrent`},
		{"negative", `{"depth": -1}`, `{depth = -1}`, `subagents: depth: got -1, want a whole number from 1 to 32 (0 or None: the default)`},
		{"too deep", `{"depth": 33}`, `{depth = 33}`, `subagents: depth: got 33, want a whole number from 1 to 32`},
		{"too wide", `{"concurrent": 1000}`, `{concurrent = 1000}`, `subagents: concurrent: got 1000, want a whole number from 1 to 256`},
		{"float", `{"per_run": 1.5}`, `{per_run = 1.5}`, `subagents: per_run: got 1.5, want a whole number from 1 to 10000`},
		{"string", `{"per_run": "many"}`, `{per_run = "many"}`, `subagents: per_run: got "many"`},
	} {
		for _, lang := range langs {
			t.Run(tc.name+"/"+lang, func(t *testing.T) {
				e := newEnv(t, agentapi.Config{})
				var err error
				if lang == "lua" {
					bad := tc.lua
					if strings.HasPrefix(bad, "{") { // with good keys beside the bad one
						bad = "{depth = 2, concurrent = 3, per_run = 5, " + strings.TrimPrefix(bad, "{")
					}
					err = e.execLua(context.Background(), "config{subagents = {per_run = 2}}\nconfig{subagents = "+bad+"}")
				} else {
					err = e.execStar(context.Background(), "config(subagents = {\"per_run\": 2})\nconfig(subagents = "+tc.star+")")
				}
				wantErr(t, "config", err, tc.want)
				// A bad value changes nothing, not even the good keys beside it.
				if l := e.sess.Agent().SubagentLimits(); l != (agent.SubagentLimits{MaxDepth: 3, PerRun: 2, Concurrent: 4}) {
					t.Errorf("limits %+v after a bad update", l)
				}
			})
		}
	}
}
