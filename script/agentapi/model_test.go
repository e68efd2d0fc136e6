package agentapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script/agentapi"
)

// modelScripts is one conversation written in each language: two tools,
// a scripted model that prints what it receives, a before hook that
// refuses the "secret" tool, and an ask that prints the reply.
var modelScripts = map[string]struct{ tools, model, deny, ask string }{
	"star": {
		tools: `
tool(name = "echo", fn = lambda args: "echo:" + args["text"], description = "Echoes text.", read_only = True,
     parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
tool(name = "secret", fn = lambda args: "the secret", description = "Tells a secret.")
`,
		model: `
def scripted(messages, tools):
    print("tools: " + json.encode(tools))
    for m in messages:
        print(json.encode(m))
    if messages[-1]["role"] == "user":
        return {"tool_calls": [
            {"name": "echo", "args": {"text": "hi"}},
            {"id": "own", "name": "echo", "args": "{\"text\": \"raw\"}"},
            {"name": "secret"},
        ]}
    return "done"

model(scripted)
`,
		deny: `
def no_secrets(call):
    return deny("no secrets for " + call.id)

before(no_secrets, tools = ["secret"])
`,
		ask: `
r = ask("say hi", max_turns = 5)
print("reply: %s %d %d %s" % (r.text, r.turns, r.tool_calls, r.stop))
`,
	},
	"lua": {
		tools: `
tool{name = "echo", fn = function(args) return "echo:" .. args.text end, description = "Echoes text.", read_only = true,
     parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}}}
tool{name = "secret", fn = function(args) return "the secret" end, description = "Tells a secret."}
`,
		model: `
local function scripted(messages, tools)
  print("tools: " .. json.encode(tools))
  for _, m in ipairs(messages) do
    print(json.encode(m))
  end
  if messages[#messages].role == "user" then
    return {tool_calls = {
      {name = "echo", args = {text = "hi"}},
      {id = "own", name = "echo", args = '{"text": "raw"}'},
      {name = "secret"},
    }}
  end
  return "done"
end
model(scripted)
`,
		deny: `
local function no_secrets(call)
  return deny("no secrets for " .. call.id)
end
before(no_secrets, {tools = {"secret"}})
`,
		ask: `
local r = ask("say hi", {max_turns = 5})
print(string.format("reply: %s %d %d %s", r.text, r.turns, r.tool_calls, r.stop))
`,
	},
}

// wantModelTranscript is what the scripted model of modelScripts sees,
// and the reply, in either language.
var wantModelTranscript = []string{
	`tools: [{"description":"Echoes text.","name":"echo","parameters":{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"description":"Tells a secret.","name":"secret","parameters":{"type":"object"}}]`,
	`{"content":"Be brief.","role":"system"}`,
	`{"content":"say hi","role":"user"}`,
	`tools: [{"description":"Echoes text.","name":"echo","parameters":{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"description":"Tells a secret.","name":"secret","parameters":{"type":"object"}}]`,
	`{"content":"Be brief.","role":"system"}`,
	`{"content":"say hi","role":"user"}`,
	`{"content":"","role":"assistant","tool_calls":[{"args":{"text":"hi"},"id":"call_1_1","name":"echo"},{"args":{"text":"raw"},"id":"own","name":"echo"},{"args":{},"id":"call_1_3","name":"secret"}]}`,
	`{"content":"echo:hi","is_error":false,"name":"echo","role":"tool","tool_call_id":"call_1_1"}`,
	`{"content":"echo:raw","is_error":false,"name":"echo","role":"tool","tool_call_id":"own"}`,
	`{"content":"error (rejected): rejected by \"no_secrets\": no secrets for call_1_3","is_error":true,"name":"secret","role":"tool","tool_call_id":"call_1_3"}`,
	`reply: done 2 3 final`,
}

// TestModel: model(fn) in either language receives the system prompt
// first, the user's prompt, the assistant's tool calls (ids filled in
// where the model gave none, args decoded whether the model gave a dict
// or a JSON string) and the tool results, with the tool definitions; the
// calls run through the host's pipeline, where a before hook written in
// the other language refuses one and the model reads why. Both languages
// print the same transcript.
func TestModel(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{SystemPrompt: "Be brief.", NoTask: true})
			s := modelScripts[lang]
			e.run(lang, s.tools+s.model)
			e.run(other(lang), modelScripts[other(lang)].deny)
			e.run(lang, s.ask)
			wantLines(t, e.lines(), wantModelTranscript...)
			wantLines(t, e.eventTypes(),
				"model_request", "model_response",
				"tool_output:echo=echo:hi", "tool_output:echo=echo:raw",
				`tool_error:secret=rejected: rejected by "no_secrets": no secrets for call_1_3`,
				"turn_end",
				"model_request", "text:done", "model_response", "turn_end")
			if got := e.sess.ProviderName(); got != "scripted:scripted" {
				t.Errorf("ProviderName() = %q, want scripted:scripted", got)
			}
			// The conversation keeps the model's own id and its JSON
			// string arguments as given.
			msgs := e.sess.Agent().Messages()
			if len(msgs) != 6 {
				t.Fatalf("%d messages, want 6: %+v", len(msgs), msgs)
			}
			calls := msgs[1].ToolCalls
			if len(calls) != 3 || calls[1].ID != "own" || !json.Valid(calls[1].Args) || !strings.Contains(string(calls[1].Args), `"raw"`) {
				t.Errorf("assistant tool calls = %+v", calls)
			}
			if !msgs[4].IsError || msgs[4].ToolCallID != "call_1_3" {
				t.Errorf("refused call's message = %+v, want is_error for call_1_3", msgs[4])
			}
		})
	}
}

// TestModelWithoutSystemPrompt: with no system prompt the conversation
// starts with the user's message.
func TestModelWithoutSystemPrompt(t *testing.T) {
	e := newEnv(t, agentapi.Config{NoTask: true})
	e.runStar(`
def m(messages, tools):
    print([x["role"] for x in messages], len(tools))
    return {"content": "hello"}
model(m)
print(ask("hi").text)
`)
	e.runLua(`
model(function(messages, tools)
  local roles = {}
  for _, x in ipairs(messages) do roles[#roles + 1] = x.role end
  print(table.concat(roles, ","), #tools)
  return {content = "again"}
end)
print(ask("more").text)
`)
	wantLines(t, e.lines(), `["user"] 0`, "hello", "user,assistant,user\t0", "again")
}

// TestModelReturnErrors: what a scripted model may return is checked, and
// ask() says what was wrong and what is wanted.
func TestModelReturnErrors(t *testing.T) {
	const want = `want the answer text or {"content": ..., "tool_calls": [...]}`
	for _, tc := range []struct{ name, star, lua, want string }{
		{"none", `None`, `nil`, `ask: model returned None; return the answer text or {"content": ..., "tool_calls": [...]}`},
		{"number", `42`, `42`, "ask: model returned 42; " + want},
		{"list", `["a"]`, `{"a"}`, `ask: model returned ["a"]; ` + want},
		{"unknown key", `{"text": "hi"}`, `{text = "hi"}`, `ask: model returned a key "text"; want content, tool_calls and usage`},
		{"tool_calls not a list", `{"tool_calls": "grep"}`, `{tool_calls = "grep"}`, `ask: model returned tool_calls "grep"; want a list`},
		{"call not a dict", `{"tool_calls": ["grep"]}`, `{tool_calls = {"grep"}}`, `ask: model returned tool_calls[0] = "grep"; want {"name": ..., "args": {...}}`},
		{"call without a name", `{"tool_calls": [{"args": {}}]}`, `{tool_calls = {{args = {a = 1}}}}`, "ask: model returned tool_calls[0] without a name"},
		{"second call without a name", `{"tool_calls": [{"name": "x"}, {"name": ""}]}`, `{tool_calls = {{name = "x"}, {name = ""}}}`, "ask: model returned tool_calls[1] without a name"},
		{"name not a string", `{"tool_calls": [{"name": 5}]}`, `{tool_calls = {{name = 5}}}`, "ask: model returned tool_calls[0] with name 5; want the tool's name as a string"},
		{"id not a string", `{"tool_calls": [{"name": "x", "id": 7}]}`, `{tool_calls = {{name = "x", id = 7}}}`, "ask: model returned tool_calls[0] with id 7; want a string, or leave it out"},
		{"content not a string", `{"content": 3}`, `{content = 3}`, "ask: model returned content 3; want a string"},
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
				wantErr(t, "ask", err, tc.want)
			})
		}
	}
}

// TestAsk: the reply record's fields, the max_turns argument (and the
// Config default), and ask without a model.
func TestAsk(t *testing.T) {
	// A model that calls a tool forever stops at max_turns, with the text
	// it said last.
	loop := map[string]string{
		"star": `
tool(name = "tick", fn = lambda args: "tock")
def m(messages, tools):
    n = len([x for x in messages if x["role"] == "assistant"])
    return {"content": "step %d" % (n + 1), "tool_calls": [{"name": "tick"}]}
model(m)
r = ask("go", max_turns = 3)
print(r.text, r.turns, r.tool_calls, r.stop)
r = ask("again")
print(r.text, r.turns, r.tool_calls, r.stop)
`,
		"lua": `
tool{name = "tick", fn = function(args) return "tock" end}
model(function(messages, tools)
  local n = 0
  for _, x in ipairs(messages) do
    if x.role == "assistant" then n = n + 1 end
  end
  return {content = "step " .. (n + 1), tool_calls = {{name = "tick"}}}
end)
local r = ask("go", {max_turns = 3})
print(r.text, r.turns, r.tool_calls, r.stop)
r = ask("again")
print(r.text, r.turns, r.tool_calls, r.stop)
`,
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{MaxTurns: 2})
			e.run(lang, loop[lang])
			sep := " "
			if lang == "lua" {
				sep = "\t"
			}
			wantLines(t, e.lines(),
				strings.Join([]string{"step 3", "3", "3", "max_turns"}, sep),
				strings.Join([]string{"step 5", "2", "2", "max_turns"}, sep))
		})
	}

	t.Run("max_turns below 1", func(t *testing.T) {
		e := newEnv(t, agentapi.Config{Provider: fixed("ok")})
		for _, n := range []string{"0", "-1"} {
			wantErr(t, "starlark", e.execStar(context.Background(), `ask("hi", max_turns = `+n+`)`), "ask: max_turns got "+n+", want 1 or more")
			wantErr(t, "lua", e.execLua(context.Background(), `ask("hi", {max_turns = `+n+`})`), "ask: max_turns got "+n+", want 1 or more")
		}
		// Left out (or None), it is the default.
		e.runStar(`print(ask("hi").text, ask("hi", max_turns = None).text)`)
		wantLines(t, e.lines(), "ok ok")
	})

	t.Run("no model", func(t *testing.T) {
		e := newEnv(t, agentapi.Config{})
		err := e.execStar(context.Background(), `ask("hi")`)
		wantErr(t, "starlark", err, "ask: no model", `provider("PROVIDER:MODEL")`, "model(fn)")
		err = e.execLua(context.Background(), `ask("hi")`)
		wantErr(t, "lua", err, "ask: no model", `provider("PROVIDER:MODEL")`, "model(fn)")
		if got := e.sess.ProviderName(); got != "" {
			t.Errorf("ProviderName() = %q, want none", got)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		e := newEnv(t, agentapi.Config{})
		e.runStar(`model(lambda messages, tools: "ok")`)
		for _, tc := range []struct{ src, want string }{
			{`ask(3)`, "ask: prompt got an int, want a string"},
			{`ask("hi", max_turns = "x")`, `ask: max_turns got a string, want an integer`},
			{`ask("hi", turns = 2)`, `ask: unexpected argument "turns"`},
			{`model("nope")`, "model: fn got a string, want a function"},
		} {
			wantErr(t, tc.src, e.execStar(context.Background(), tc.src), tc.want)
		}
		wantErr(t, "lua", e.execLua(context.Background(), `ask("hi", {max_turns = "x"})`), `ask: max_turns got a string, want an integer`)
	})

	t.Run("config provider", func(t *testing.T) {
		// A provider given in the Config answers until a script sets one.
		e := newEnv(t, agentapi.Config{Provider: fixed("from config")})
		e.runStar(`print(ask("hi").text)`)
		e.runStar(`model(lambda messages, tools: "from script")
print(ask("hi").text)`)
		wantLines(t, e.lines(), "from config", "from script")
	})
}

// TestModelMessagesFrozen: a Starlark model's messages, and the list of
// them, are shared from turn to turn and frozen: changing one in place is
// an error that says so, while building new values from them works.
func TestModelMessagesFrozen(t *testing.T) {
	const hint = "model function gets are shared from turn to turn and frozen: change a copy, such as dict(message) or list(messages)"
	for _, tc := range []struct{ change, want string }{
		{`messages[-1]["content"] = "changed"`, "cannot insert into frozen hash table"},
		{`messages.append({})`, "cannot append to frozen list"},
		{`messages[0] = {}`, "cannot assign to element of frozen list"},
	} {
		e := newEnv(t, agentapi.Config{})
		err := e.execStar(context.Background(), "def m(messages, tools):\n    "+tc.change+"\n    return \"done\"\nmodel(m)\nask(\"hi\")\n")
		wantErr(t, tc.change, err, tc.want, hint)
	}
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
def m2(messages, tools):
    copy = dict(messages[-1])
    copy["content"] = "changed"
    msgs = list(messages)
    msgs.append(copy)
    return msgs[-1]["content"] + " " + msgs[-2]["content"] + " " + str(len(messages + [copy]))
model(m2)
print(ask("hi").text)
`)
	wantLines(t, e.lines(), "changed hi 2")
}
