package agentapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script/agentapi"
)

// The agent's side of decisions: ask is the verdict inside before hooks
// and the model elsewhere; a model's calls of tools that are not read-only
// ask, and the reply lists the calls that were refused.

// decisionModels call "write" and then "look" once, and then report what
// the tool messages said.
var decisionModels = map[string]string{
	"star": `
def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "write", "args": {"path": "x"}, "id": "w1"}, {"name": "look", "id": "l1"}]}
    return " | ".join([x["content"] for x in messages if x["role"] == "tool"])
model(m)
tool(name = "write", fn = lambda args: "wrote " + args["path"])
tool(name = "look", fn = lambda args: "looked", read_only = True)
def show(reply):
    print(reply.text)
    for d in reply.denials:
        print("denied %s %s by %s: %s" % (d["call_id"], d["tool"], d["hook"], d["reason"]))
`,
	"lua": `
model(function(messages, tools)
  if messages[#messages].role == "user" then
    return {tool_calls = {{name = "write", args = {path = "x"}, id = "w1"}, {name = "look", id = "l1"}}}
  end
  local parts = {}
  for _, x in ipairs(messages) do
    if x.role == "tool" then parts[#parts + 1] = x.content end
  end
  return table.concat(parts, " | ")
end)
tool{name = "write", fn = function(args) return "wrote " .. args.path end}
tool{name = "look", fn = function(args) return "looked" end, read_only = true}
function show(reply)
  print(reply.text)
  for _, d in ipairs(reply.denials) do
    print(string.format("denied %s %s by %s: %s", d.call_id, d.tool, d.hook, d.reason))
  end
end
`,
}

// TestModelDefault: the model's call of a tool that is not read-only asks
// and, with no approver, is refused and listed in reply.denials; its call
// of a read-only tool runs; a person's call of the same tool runs.
func TestModelDefault(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			if lang == "lua" {
				e.runLua(decisionModels[lang] + `show(ask("go"))
print(invoke_tool("write", {path = "y"}).output)`)
			} else {
				e.runStar(decisionModels[lang] + `show(ask("go"))
print(invoke_tool("write", {"path": "y"}).output)`)
			}
			wantLines(t, e.lines(),
				"error (rejected): needs approval: the model called write, which is not read-only; no approver is set | looked",
				"denied w1 write by default: needs approval: the model called write, which is not read-only; no approver is set",
				"wrote y")
		})
	}
}

// TestModelApprover: on("approve", fn) answers the model's asks; the
// request says who made the call.
func TestModelApprover(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			if lang == "lua" {
				e.runLua(decisionModels[lang] + `on("approve", function(req)
  print("approve? " .. req.tool .. " " .. req.origin .. " " .. req.hook .. " " .. req.call_id)
  return deny("not " .. req.args.path)
end)
show(ask("go"))`)
			} else {
				e.runStar(decisionModels[lang] + `def approve(req):
    print("approve? %s %s %s %s" % (req.tool, req.origin, req.hook, req.call_id))
    return deny("not " + req.args["path"])
on("approve", approve)
show(ask("go"))`)
			}
			wantLines(t, e.lines(),
				"approve? write model default w1",
				"error (rejected): not approved: not x | looked",
				"denied w1 write by approver: not approved: not x")
		})
	}
}

// TestAskInsideAndOutsideBeforeHooks: with a model set up, ask(reason)
// in a before hook (and in a function the hook calls) is the verdict and
// does not reach the model; ask(prompt) from a tool, even one a before
// hook's invoke_tool runs, asks the model.
func TestAskInsideAndOutsideBeforeHooks(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			if lang == "lua" {
				e.runLua(`
local asked = 0
model(function(messages, tools) return "the model heard " .. messages[#messages].content end)
local function verdict(why) return ask(why) end
tool{name = "consult", fn = function(args) return ask("consult " .. args.q, {stream = false}).text end, read_only = true}
tool{name = "guarded", fn = function(args) return "ran" end}
before(function(call)
  if call.name == "guarded" then
    print("hook sees: " .. invoke_tool("consult", {q = "from the hook"}).output)
    return verdict("guarded needs consent")
  end
end)
local r = invoke_tool("guarded")
print(r.error_kind .. ": " .. r.error)
print(invoke_tool("consult", {q = "plain"}).output)
`)
			} else {
				e.runStar(`
model(lambda messages, tools: "the model heard " + messages[-1]["content"])
def verdict(why):
    return ask(why)
tool(name = "consult", fn = lambda args: ask("consult " + args["q"], stream = False).text, read_only = True)
tool(name = "guarded", fn = lambda args: "ran")
def guard(call):
    if call.name == "guarded":
        print("hook sees: " + invoke_tool("consult", {"q": "from the hook"}).output)
        return verdict("guarded needs consent")
before(guard)
r = invoke_tool("guarded")
print(r.error_kind + ": " + r.error)
print(invoke_tool("consult", {"q": "plain"}).output)
`)
			}
			wantLines(t, e.lines(),
				"hook sees: the model heard consult from the hook",
				"rejected: needs approval: guarded needs consent; no approver is set",
				"the model heard consult plain")
		})
	}
}

// TestAskMisuse: ask's parameters belong to one meaning or the other.
func TestAskMisuse(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
model(lambda messages, tools: "hi")
tool(name = "t", fn = lambda args: "ran")
def h(call):
    if call.args.get("turns"):
        return ask("why", max_turns = 2)
    return ask("")
before(h)
print(invoke_tool("t").error)
print(invoke_tool("t", {"turns": True}).error)
`)
	out := strings.Join(e.lines(), "\n")
	wantContains(t, out, `ask: reason is empty; say why the call needs approval`,
		"ask: max_turns, stream and schema are for asking the model; in a before hook ask(reason, args = {...}) is the verdict")
	wantErr(t, "args outside a hook", e.execStar(context.Background(), `ask("hi", args = {})`),
		"ask: args is for the ask verdict, which a before hook returns")
}
