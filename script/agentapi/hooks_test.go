package agentapi_test

import (
	"context"
	"testing"

	"github.com/agentsh/agentsh/script/agentapi"
)

// TestOnOrder: hooks of every event run in both languages; those before
// a step (session_start, user_prompt, before_model) in registration
// order, those after it (after_model, turn_end, session_end) in reverse,
// so a pair nests like middleware. session_start fires once per session,
// again after Reset (which fires session_end).
func TestOnOrder(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
def trace(ev):
    print("star %s %d" % (ev["event"], ev["turn"]))

for name in ["session_start", "user_prompt", "before_model", "after_model", "turn_end", "session_end"]:
    on(name, trace)

tool(name = "noop", fn = lambda args: "")

def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "noop"}]}
    return "ok"

model(m)
`)
	e.runLua(`
for _, name in ipairs({"session_start", "user_prompt", "before_model", "after_model", "turn_end", "session_end"}) do
  on(name, function(ev) print(string.format("lua %s %d", ev.event, ev.turn)) end)
end
`)
	e.runStar(`print(ask("one").stop)`)
	e.runLua(`print(ask("two").stop)`)
	if err := e.sess.Agent().Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.runStar(`print(ask("three").stop)`)
	turn := func(n string) []string {
		return []string{
			"star before_model " + n, "lua before_model " + n,
			"lua after_model " + n, "star after_model " + n,
			"lua turn_end " + n, "star turn_end " + n,
		}
	}
	var want []string
	want = append(want, "star session_start 0", "lua session_start 0", "star user_prompt 0", "lua user_prompt 0")
	want = append(want, turn("1")...)
	want = append(want, turn("2")...)
	want = append(want, "final")
	want = append(want, "star user_prompt 0", "lua user_prompt 0")
	want = append(want, turn("1")...)
	want = append(want, turn("2")...)
	want = append(want, "final")
	want = append(want, "lua session_end 0", "star session_end 0")
	want = append(want, "star session_start 0", "lua session_start 0", "star user_prompt 0", "lua user_prompt 0")
	want = append(want, turn("1")...)
	want = append(want, turn("2")...)
	want = append(want, "final")
	wantLines(t, e.lines(), want...)
}

// TestOnEventFields: what each hook receives.
func TestOnEventFields(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{SystemPrompt: "sys"})
			e.runStar(`
tool(name = "noop", fn = lambda args: "", description = "Does nothing.")
def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"content": "calling", "tool_calls": [{"name": "noop", "args": {"a": 1}}]}
    return "ok"
model(m)
`)
			if lang == "star" {
				e.runStar(`
def show(ev):
    keys = sorted(ev.keys())
    print(ev["event"], ev["turn"], keys)
    if "prompt" in ev:
        print("  prompt", ev["prompt"])
    if "request" in ev:
        r = ev["request"]
        print("  request", r["system"], [m["role"] for m in r["messages"]], [t["name"] for t in r["tools"]])
    if "response" in ev:
        r = ev["response"]
        print("  response", json.encode(r))
    if "reply" in ev:
        print("  reply", json.encode(ev["reply"]))

for name in ["session_start", "user_prompt", "before_model", "after_model", "turn_end", "session_end"]:
    on(name, show)
print(ask("hi").text)
`)
			} else {
				e.runLua(`
local function show(ev)
  local keys = {}
  for k in pairs(ev) do keys[#keys + 1] = k end
  table.sort(keys)
  print(ev.event .. " " .. ev.turn .. " " .. json.encode(keys):gsub(",", ", "))
  if ev.prompt then print("  prompt " .. ev.prompt) end
  if ev.request then
    local roles, names = {}, {}
    for _, m in ipairs(ev.request.messages) do roles[#roles + 1] = m.role end
    for _, t in ipairs(ev.request.tools) do names[#names + 1] = t.name end
    print("  request " .. ev.request.system .. " " .. json.encode(roles):gsub(",", ", ") .. " " .. (json.encode(names):gsub(",", ", ")))
  end
  if ev.response then print("  response " .. json.encode(ev.response)) end
  if ev.reply then print("  reply " .. json.encode(ev.reply)) end
end
for _, name in ipairs({"session_start", "user_prompt", "before_model", "after_model", "turn_end", "session_end"}) do
  on(name, show)
end
print(ask("hi").text)
`)
			}
			wantLines(t, e.lines(),
				`session_start 0 ["agent", "event", "parent_agent", "turn"]`,
				`user_prompt 0 ["agent", "event", "parent_agent", "prompt", "turn"]`,
				`  prompt hi`,
				`before_model 1 ["agent", "event", "parent_agent", "request", "turn"]`,
				`  request sys ["user"] ["noop", "task"]`,
				`after_model 1 ["agent", "event", "parent_agent", "request", "response", "turn"]`,
				`  request sys ["user"] ["noop", "task"]`,
				`  response {"content":"calling","tool_calls":[{"args":{"a":1},"id":"call_1_1","name":"noop"}]}`,
				`turn_end 1 ["agent", "event", "parent_agent", "reply", "response", "turn"]`,
				`  response {"content":"calling","tool_calls":[{"args":{"a":1},"id":"call_1_1","name":"noop"}]}`,
				`  reply {"text":"calling","tool_calls":1,"turns":1}`,
				`before_model 2 ["agent", "event", "parent_agent", "request", "turn"]`,
				`  request sys ["user", "assistant", "tool"] ["noop", "task"]`,
				`after_model 2 ["agent", "event", "parent_agent", "request", "response", "turn"]`,
				`  request sys ["user", "assistant", "tool"] ["noop", "task"]`,
				`  response {"content":"ok","tool_calls":[]}`,
				`turn_end 2 ["agent", "event", "parent_agent", "reply", "response", "turn"]`,
				`  response {"content":"ok","tool_calls":[]}`,
				`  reply {"text":"ok","tool_calls":1,"turns":2}`,
				`ok`)
		})
	}
}

// TestOnRewrite: user_prompt hooks rewrite the prompt in turn (each sees
// the last one's result); before_model hooks edit the request the model
// sees, without changing the conversation.
func TestOnRewrite(t *testing.T) {
	e := newEnv(t, agentapi.Config{SystemPrompt: "sys"})
	e.runStar(`
def m(messages, tools):
    print("model sees:", json.encode(messages))
    return "ok"
model(m)

on("user_prompt", lambda ev: ev["prompt"].upper())

def note(ev):
    r = ev["request"]
    return {"system": r["system"] + " (edited)",
            "messages": [{"role": "system", "content": "dropped"}] + r["messages"] +
                        [{"role": "user", "content": "(a note)"}]}
on("before_model", note)
`)
	e.runLua(`
on("user_prompt", function(ev) return ev.prompt .. "!" end)
on("before_model", function(ev) print("lua sees:", ev.request.system, #ev.request.messages) end)
print(ask("hi").text)
`)
	wantLines(t, e.lines(),
		"lua sees:\tsys (edited)\t2",
		`model sees: [{"content":"sys (edited)","role":"system"},{"content":"HI!","role":"user"},{"content":"(a note)","role":"user"}]`,
		"ok")
	msgs := e.sess.Agent().Messages()
	if len(msgs) != 2 || msgs[0].Content != "HI!" || msgs[1].Content != "ok" {
		t.Errorf("conversation = %+v, want the rewritten prompt and the answer only", msgs)
	}

	// A hook may edit one part of the request only.
	e.out.Reset()
	e.runLua(`on("before_model", function(ev) return {system = "lua system"} end)`)
	e.runStar(`print(ask("again").text)`)
	wantContains(t, e.out.String(), `{"content":"lua system","role":"system"}`, `{"content":"AGAIN!","role":"user"}`)
}

// TestOnRefuse: deny(reason) or an error in a gating hook ends ask() with
// the reason; the model is not asked (before it) or its answer is not
// kept (after_model).
func TestOnRefuse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lang      string
		hook      string
		want      []string
		modelRuns bool
	}{
		{"session_start deny", "lua", `on("session_start", function(ev) return deny("closed today") end)`,
			[]string{`session_start hook`, `failed: closed today`}, false},
		{"user_prompt deny", "lua", `on("user_prompt", function(ev) if ev.prompt:find("secret") then return deny("no secrets") end end)`,
			[]string{`user_prompt hook`, `refused the prompt: no secrets`}, false},
		{"user_prompt raise", "star", "def strict(ev):\n    fail(\"prompt too short\")\non(\"user_prompt\", strict)",
			[]string{`user_prompt hook "strict" refused the prompt`, `prompt too short`}, false},
		{"before_model raise", "lua", `on("before_model", function(ev) error("over budget") end)`,
			[]string{`before_model hook`, `refused the request`, `over budget`}, false},
		{"before_model deny", "star", "def budget(ev):\n    return deny(\"over budget\")\non(\"before_model\", budget)",
			[]string{`before_model hook "budget" refused the request: over budget`}, false},
		{"after_model deny", "star", "def check(ev):\n    if \"secret\" in ev[\"response\"][\"content\"]:\n        return deny(\"leaks a secret\")\non(\"after_model\", check)",
			[]string{`after_model hook "check" refused the response: leaks a secret`}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			e.runStar(`
def m(messages, tools):
    print("model asked")
    return "the secret is 42"
model(m)
`)
			e.run(tc.lang, tc.hook)
			err := e.execStar(context.Background(), `ask("tell me the secret")`)
			wantErr(t, tc.name, err, append([]string{"ask: "}, tc.want...)...)
			if got := len(e.lines()) > 0; got != tc.modelRuns {
				t.Errorf("model asked: %v, want %v", got, tc.modelRuns)
			}
			for _, m := range e.sess.Agent().Messages() {
				if m.Role == "assistant" {
					t.Errorf("a refused run added %+v to the conversation", m)
				}
			}
		})
	}

	// A refused session_start is tried again on the next ask.
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
model(lambda messages, tools: "hello")
def once(ev):
    if state.incr("starts") == 1:
        return deny("not yet")
on("session_start", once)
`)
	wantErr(t, "first ask", e.execStar(context.Background(), `ask("hi")`), "not yet")
	e.runStar(`print(ask("hi").text, state.get("starts"))`)
	wantLines(t, e.lines(), "hello 2")
}

// TestOnBadReturn: a hook's return value is checked, and the error names
// what the event allows.
func TestOnBadReturn(t *testing.T) {
	for _, tc := range []struct{ name, lang, hook, want string }{
		{"user_prompt number", "star", `on("user_prompt", lambda ev: 42)`,
			`user_prompt hook returned 42; want None, deny(reason) or a new prompt`},
		{"user_prompt dict", "lua", `on("user_prompt", function(ev) return {prompt = "x"} end)`,
			`user_prompt hook returned {"prompt":"x"}; want None, deny(reason) or a new prompt`},
		{"before_model string", "star", `on("before_model", lambda ev: "x")`,
			`before_model hook returned "x"; want None, deny(reason) or {"system": ..., "messages": [...]}`},
		{"before_model unknown key", "lua", `on("before_model", function(ev) return {model = "gpt"} end)`,
			`before_model: unexpected key "model"; want system and messages`},
		{"before_model system", "star", `on("before_model", lambda ev: {"system": 3})`,
			"before_model: system must be a string"},
		{"before_model messages", "star", `on("before_model", lambda ev: {"messages": "all"})`,
			"before_model: messages must be a list"},
		{"before_model message", "star", `on("before_model", lambda ev: {"messages": ["hi"]})`,
			"before_model: messages[0] must be a dict"},
		{"before_model role", "lua", `on("before_model", function(ev) return {messages = {{role = "bot", content = "x"}}} end)`,
			`before_model: messages[0] has role "bot"; want system, user, assistant or tool`},
		{"before_model tool call", "star", `on("before_model", lambda ev: {"messages": [{"role": "assistant", "tool_calls": [{"args": {}}]}]})`,
			"before_model: messages[0]: model returned tool_calls[0] without a name"},
		{"after_model string", "star", `on("after_model", lambda ev: "x")`,
			`after_model hook returned "x"; want None, deny(reason)`},
		{"turn_end string", "lua", `on("turn_end", function(ev) return "x" end)`,
			`turn_end hook returned "x"; want None, deny(reason)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{})
			e.runStar(`model(lambda messages, tools: "ok")`)
			e.run(tc.lang, tc.hook)
			wantErr(t, tc.name, e.execStar(context.Background(), `ask("hi")`), "ask: ", tc.want)
		})
	}
}

// TestOnErrors: on() checks its arguments; an unknown event names them all.
func TestOnErrors(t *testing.T) {
	const events = "the events are approve, session_start, user_prompt, before_compact, before_model, after_model, turn_end, session_end"
	e := newEnv(t, agentapi.Config{})
	wantErr(t, "star", e.execStar(context.Background(), `on("before_tool", lambda ev: None)`),
		`on: unknown event "before_tool"`, events)
	wantErr(t, "lua", e.execLua(context.Background(), `on("start", function(ev) end)`),
		`on: unknown event "start"`, events)
	wantErr(t, "fn", e.execStar(context.Background(), `on("turn_end", "print")`), "on: fn got a string, want a function")
	wantErr(t, "event", e.execStar(context.Background(), `on(1, lambda ev: None)`), "on: event got an int, want a string")
	wantErr(t, "missing", e.execLua(context.Background(), `on("turn_end")`), `on: missing argument "fn"`)
}
