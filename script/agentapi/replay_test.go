package agentapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/replay"
	"github.com/agentsh/agentsh/script/agentapi"
)

// replayTools are the tools and policy of the recorded conversation, in
// each language; the replaying session must have the same ones, since
// the tool definitions and results are part of each request.
var replayTools = map[string]string{
	"star": `
tool(name = "echo", fn = lambda args: dual("echo:" + args["text"], "shown: " + args["text"]), description = "Echoes text.", read_only = True,
     parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
def refuse_no(call):
    if call.args["text"] == "no":
        return deny("not no")
before(refuse_no, tools = ["echo"])
`,
	"lua": `
tool{name = "echo", fn = function(args) return dual("echo:" .. args.text, "shown: " .. args.text) end, description = "Echoes text.", read_only = true,
     parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}}}
local function refuse_no(call)
  if call.args.text == "no" then return deny("not no") end
end
before(refuse_no, {tools = {"echo"}})
`,
}

// replayModel is a scripted model that calls echo twice (one call is
// refused), then answers with what the tools said.
const replayModel = `
def m(messages, tools):
    if messages[-1]["role"] == "user":
        return {"content": "Echoing.", "tool_calls": [{"name": "echo", "args": {"text": "yes"}},
                                                      {"name": "echo", "args": {"text": "no"}}]}
    return "Heard: " + "; ".join([x["content"] for x in messages if x["role"] == "tool"])
model(m)
`

var replayAsk = map[string]string{
	"star": `
r = ask("echo twice")
print("reply:", r.text, r.turns, r.tool_calls, r.stop)
`,
	"lua": `
local r = ask("echo twice")
print("reply: " .. r.text .. " " .. r.turns .. " " .. r.tool_calls .. " " .. r.stop)
`,
}

// record runs the conversation with the scripted model and Config.Record
// and returns the recording's path and the transcript.
func record(t *testing.T) (string, []string, []string) {
	t.Helper()
	var buf bytes.Buffer
	e := newEnv(t, agentapi.Config{SystemPrompt: "sys", Record: &buf})
	e.runStar(replayTools["star"] + replayModel + replayAsk["star"])
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, e.lines(), e.eventTypes()
}

// TestProviderReplay: a conversation recorded with Config.Record replays
// from provider("replay:FILE") without the scripted model, in either
// language, with the same transcript.
func TestProviderReplay(t *testing.T) {
	path, lines, events := record(t)
	wantLines(t, lines,
		"reply: Heard: echo:yes; error (rejected): rejected by \"refuse_no\": not no 2 2 final")
	wantLines(t, events,
		"model_request", "text:Echoing.", "model_response", "tool_output:echo=shown: yes",
		`tool_error:echo=rejected: rejected by "refuse_no": not no`, "turn_end",
		"model_request", "text:Heard: echo:yes; error (rejected): rejected by \"refuse_no\": not no", "model_response", "turn_end")

	// The recording: one JSON line per request, naming the scripted model.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recLines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(recLines) != 2 {
		t.Fatalf("recording has %d lines, want 2:\n%s", len(recLines), data)
	}
	for i, l := range recLines {
		var entry replay.Entry
		if err := json.Unmarshal([]byte(l), &entry); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if entry.Provider != "scripted:m" || entry.Response == nil || entry.Request.System != "sys" {
			t.Errorf("line %d: %s", i+1, l)
		}
	}

	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{SystemPrompt: "sys"})
			e.run(lang, replayTools[lang])
			e.run(lang, `print(provider("replay:`+filepath.ToSlash(path)+`"))`)
			if got, want := e.lines(), []string{"replay:" + filepath.ToSlash(path)}; strings.Join(got, "\n") != want[0] {
				t.Fatalf("provider() printed %q, want %q", got, want)
			}
			if got := e.sess.ProviderName(); got != "replay:"+filepath.ToSlash(path) {
				t.Errorf("ProviderName() = %q", got)
			}
			e.out.Reset()
			e.run(lang, replayAsk[lang])
			if e.out.String() != strings.Join(lines, "\n")+"\n" {
				t.Errorf("replayed transcript differs\ngot:\n%s\nwant:\n%s", e.out.String(), strings.Join(lines, "\n"))
			}
			wantLines(t, e.eventTypes(), events...)

			// The recording is used up: one more request leaves it.
			err := e.exec(lang, `ask("more")`)
			wantErr(t, "past the end", err, "request 3 is past the end of the recording (2 requests)", "left the recording")
		})
	}
}

// TestProviderReplayDiverges: a different prompt, or different tools, do
// not match the recording: ask() fails saying where.
func TestProviderReplayDiverges(t *testing.T) {
	path, _, _ := record(t)
	spec := "replay:" + filepath.ToSlash(path)

	e := newEnv(t, agentapi.Config{SystemPrompt: "sys"})
	e.runStar(replayTools["star"] + `provider("` + spec + `")`)
	err := e.execStar(context.Background(), `ask("echo three times")`)
	wantErr(t, "prompt", err, `request 1 differs from the recording at messages[0].content: at byte 6: got "echo three times", recorded "echo twice"`, "left the recording", "record it again")
	// From Go, the error is a provider error of kind diverged.
	_, err = e.sess.Ask(context.Background(), "something else", 0)
	if !errors.Is(err, provider.ErrDiverged) {
		t.Errorf("Ask: %v, want a %s error", err, provider.ErrDiverged)
	}

	// Without the tools the requests differ too.
	e = newEnv(t, agentapi.Config{SystemPrompt: "sys"})
	e.runLua(`provider("` + spec + `")`)
	wantErr(t, "tools", e.execLua(context.Background(), `ask("echo twice")`), `request 1 differs from the recording at tools[0].name: at byte 0: got "task", recorded "echo"`, "left the recording")

	// A different system prompt.
	e = newEnv(t, agentapi.Config{SystemPrompt: "other"})
	e.runStar(replayTools["star"] + `provider("` + spec + `")`)
	wantErr(t, "system", e.execStar(context.Background(), `ask("echo twice")`), `request 1 differs from the recording at system: at byte 0: got "other", recorded "sys"`, "left the recording")
}

// TestProviderErrors: provider() reports bad specs clearly; Config.Open
// replaces how specs are opened.
func TestProviderErrors(t *testing.T) {
	e := newEnv(t, agentapi.Config{})
	for _, tc := range []struct{ src, want string }{
		{`provider("nope:x")`, `provider: model "nope:x": unknown provider "nope"; want one of anthropic, myco, ollama, openai, replay`},
		{`provider("gpt-4o")`, `provider: model "gpt-4o": want PROVIDER:MODEL`},
		{`provider("replay:` + filepath.ToSlash(filepath.Join(t.TempDir(), "missing.jsonl")) + `")`, "provider: replay: open"},
		{`provider(3)`, "provider: spec got an int, want a string"},
	} {
		wantErr(t, tc.src, e.execStar(context.Background(), tc.src), tc.want)
	}
	wantErr(t, "lua", e.execLua(context.Background(), `provider("nope:x")`), `unknown provider "nope"`)
	if got := e.sess.ProviderName(); got != "" {
		t.Errorf("after failed provider() calls, ProviderName() = %q, want none", got)
	}

	var opened []string
	e = newEnv(t, agentapi.Config{Open: func(spec string) (provider.Provider, error) {
		opened = append(opened, spec)
		if spec == "bad" {
			return nil, errors.New("no such model")
		}
		return provider.Func{Label: "custom:" + spec, Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
			return provider.Response{Content: "from " + spec}, nil
		}}, nil
	}})
	e.runLua(`print(provider("mine")); print(ask("hi").text)`)
	wantErr(t, "bad", e.execStar(context.Background(), `provider("bad")`), "provider: no such model")
	wantLines(t, e.lines(), "custom:mine", "from mine")
	if strings.Join(opened, ",") != "mine,bad" {
		t.Errorf("opened %q", opened)
	}
	if err := e.sess.SetProvider("other"); err != nil || e.sess.ProviderName() != "custom:other" {
		t.Errorf("SetProvider: %v, name %q", err, e.sess.ProviderName())
	}
}
