package agentapi_test

import (
	"context"
	"testing"

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
        return prompt + " got " + last["content"]
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
