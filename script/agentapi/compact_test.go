package agentapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

// compactModels answer a summary request (the system prompt is
// agent.SummaryInstruction) with a summary, and otherwise call read until
// the conversation holds three results.
var compactModels = map[string]string{
	"star": `
def m(messages, tools):
    if messages[0]["role"] == "system" and messages[0]["content"].startswith("You summarise"):
        print("summary asked: %d tools, %d messages" % (len(tools), len(messages)))
        return "the model's summary"
    results = [x for x in messages if x["role"] == "tool"]
    if len(results) < 3:
        return {"tool_calls": [{"name": "read", "args": {"n": len(results)}}]}
    return "done"
model(m)
`,
	"lua": `
model(function(messages, tools)
  if messages[1].role == "system" and string.sub(messages[1].content, 1, 13) == "You summarise" then
    print(string.format("summary asked: %d tools, %d messages", #tools, #messages))
    return "the model's summary"
  end
  local n = 0
  for _, x in ipairs(messages) do if x.role == "tool" then n = n + 1 end end
  if n < 3 then return {tool_calls = {{name = "read", args = {n = n}}}} end
  return "done"
end)
`,
}

func compactEnv(t *testing.T, lang string) *env {
	t.Helper()
	e := newEnv(t, agentapi.Config{SystemPrompt: "sys"})
	e.goTool("read", func(_ context.Context, raw json.RawMessage) (any, error) {
		return string(raw) + strings.Repeat(" file text", 200), nil
	})
	e.run(lang, compactModels[lang])
	return e
}

// TestPinAndBeforeCompact: pin(text) survives compact() word for word; a
// before_compact hook sees event.messages and pins one of them (as a
// message, or by its position from 0) in both languages; the default
// summary request has no tools.
func TestPinAndBeforeCompact(t *testing.T) {
	const pinned = "Answer in French.\n  Exactly  this."
	hooks := map[string]string{
		"star": `
def keep(ev):
    msgs = ev["messages"]
    print("hook sees %d messages, summary %r" % (len(msgs), ev["summary"]))
    firsts = [m for m in msgs if m["role"] == "tool"]
    return {"pin": [firsts[0]] if PIN_BY_MESSAGE else [msgs.index(firsts[0])]}
on("before_compact", keep)
`,
		"lua": `
on("before_compact", function(ev)
  print(string.format("hook sees %d messages, summary %q", #ev.messages, ev.summary))
  for i, m in ipairs(ev.messages) do
    if m.role == "tool" then
      if PIN_BY_MESSAGE then return {pin = {m}} end
      return {pin = {i - 1}}
    end
  end
end)
`,
	}
	for _, lang := range langs {
		for _, byMessage := range []string{"True", "False"} {
			t.Run(lang+"/by_message="+byMessage, func(t *testing.T) {
				e := compactEnv(t, lang)
				b := byMessage
				if lang == "lua" {
					b = strings.ToLower(b)
				}
				e.run(lang, "PIN_BY_MESSAGE = "+b+"\n"+hooks[lang])
				if lang == "lua" {
					e.run(lang, `pin("`+strings.ReplaceAll(pinned, "\n", `\n`)+`")
print(ask("read three files").text)
local c = compact()
print(string.format("%d %d %s %d %d %s", c.summarised, c.pinned, c.summary, c.messages_before, c.messages_after, tostring(c.tokens_after < c.tokens_before)))`)
				} else {
					e.run(lang, `pin("`+strings.ReplaceAll(pinned, "\n", `\n`)+`")
print(ask("read three files").text)
c = compact()
print("%d %d %s %d %d %s" % (c.summarised, c.pinned, c.summary, c.messages_before, c.messages_after, str(c.tokens_after < c.tokens_before).lower()))`)
				}
				// The conversation: user, 3 × (call, result), done. Kept:
				// the request, the first group (pinned) and the last one
				// (done); the tail's budget is a quarter of the estimate.
				wantLines(t, e.lines(),
					"done",
					`hook sees 6 messages, summary ""`,
					"summary asked: 0 tools, 2 messages",
					"4 2 the model's summary 8 5 true")
				msgs := e.sess.Agent().Messages()
				if !strings.Contains(msgs[0].Content, "\n\n"+pinned+"\n\n") || !strings.HasSuffix(msgs[0].Content, "the model's summary") {
					t.Errorf("the summary message does not carry the pin word for word:\n%s", msgs[0].Content)
				}
				if msgs[1].Content != "read three files" || msgs[2].Role != provider.RoleAssistant || msgs[3].Role != provider.RoleTool || msgs[4].Content != "done" {
					t.Errorf("kept %+v", msgs[1:])
				}
			})
		}
	}
}

// TestBeforeCompactSummary: a hook's summary replaces the model's; the
// model is not asked.
func TestBeforeCompactSummary(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := compactEnv(t, lang)
			if lang == "lua" {
				e.run(lang, `on("before_compact", function(ev) return {summary = "from the hook: " .. #ev.messages} end)`)
			} else {
				e.run(lang, `on("before_compact", lambda ev: {"summary": "from the hook: %d" % len(ev["messages"])})`)
			}
			e.run(lang, `ask("read three files")
print(compact().summary)`)
			wantLines(t, e.lines(), "from the hook: 6")
		})
	}
}

// TestBeforeCompactRefusals: a hook that denies, raises or returns what
// is not a summary or pins fails compact() and leaves the conversation.
func TestBeforeCompactRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, lang, hook string
		want             []string
	}{
		{"deny", "star", `on("before_compact", lambda ev: deny("keep it all"))`, []string{`before_compact hook`, "refused the compaction: keep it all"}},
		{"raise", "lua", `on("before_compact", function(ev) error("boom") end)`, []string{"refused the compaction", "boom"}},
		{"position", "star", `on("before_compact", lambda ev: {"pin": [99]})`, []string{"pin[0]: position 99, but event.messages has 6 messages (positions 0 to 5)"}},
		{"lua position", "lua", `on("before_compact", function(ev) return {pin = {-1}} end)`, []string{"pin[0]: position -1"}},
		{"stranger", "star", `on("before_compact", lambda ev: {"pin": [{"role": "user", "content": "never said"}]})`, []string{"not one of event.messages"}},
		{"not a list", "lua", `on("before_compact", function(ev) return {pin = "all"} end)`, []string{"pin must be a list"}},
		{"summary type", "star", `on("before_compact", lambda ev: {"summary": 3})`, []string{"summary must be a string"}},
		{"key", "star", `on("before_compact", lambda ev: {"keep": []})`, []string{`unexpected key "keep"; want summary and pin`}},
		{"string", "lua", `on("before_compact", function(ev) return "text" end)`, []string{`or {"summary": ..., "pin": [...]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := compactEnv(t, tc.lang)
			e.run(tc.lang, tc.hook)
			e.run(tc.lang, `ask("read three files")`)
			before := e.sess.Agent().Messages()
			wantErr(t, tc.name, e.exec(tc.lang, `compact()`), append([]string{"compact: "}, tc.want...)...)
			if after := e.sess.Agent().Messages(); len(after) != len(before) || after[0].Content != before[0].Content {
				t.Error("a refused compaction changed the conversation")
			}
		})
	}
}

// TestCompactNestedInAsk: compact() from a tool while ask() runs fails
// with the reason, instead of waiting for itself.
func TestCompactNestedInAsk(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	e.runStar(`
def shrink(args):
    compact()
    return "no"
tool(name = "shrink", fn = shrink, read_only = True)
def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "shrink"}]}
    print(messages[-1]["content"])
    return "ok"
model(m)
ask("go")
`)
	wantContains(t, e.out.String(), "compact: the agent is answering a prompt", "call it from the top level")
}

// TestContextWindowConfig: Config.ContextWindow reaches the agent, which
// then compacts on its own during ask().
func TestContextWindowConfig(t *testing.T) {
	var events []agent.Event
	e := newEnv(t, agentapi.Config{ContextWindow: 600, Observer: func(ev agent.Event) { events = append(events, ev) }})
	e.goTool("read", func(_ context.Context, raw json.RawMessage) (any, error) {
		return string(raw) + strings.Repeat(" file text", 200), nil
	})
	e.runStar(compactModels["star"])
	if w := e.sess.Agent().ContextWindow(); w != 600 {
		t.Fatalf("window %d, want 600", w)
	}
	e.runStar(`pin("kept")
print(ask("read three files").text)`)
	n := 0
	for _, ev := range events {
		if ev.Type == "compaction" {
			n++
		}
	}
	if n == 0 || !strings.Contains(e.out.String(), "summary asked: 0 tools") {
		t.Errorf("%d compactions; output:\n%s", n, e.out.String())
	}
	if msgs := e.sess.Agent().Messages(); !strings.Contains(msgs[0].Content, "\n\nkept\n\n") {
		t.Errorf("first message %q", msgs[0].Content)
	}
}
