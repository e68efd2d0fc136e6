package agentapi_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script/agentapi"
)

// ask(prompt, stream = False) returns the reply without streaming its
// text to the transcript, so printing the reply shows it once; the tool
// events still go out. The default streams.
func TestAskWithoutStreaming(t *testing.T) {
	asks := map[string][3]string{
		"star": {`print(ask("hi", stream = False).text)`, `r = ask("hi")`, `ask("hi", stream = "no")`},
		"lua":  {`print(ask("hi", {stream = false}).text)`, `local r = ask("hi")`, `ask("hi", {stream = "no"})`},
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{Provider: fixed("the answer")})
			e.run(lang, asks[lang][0])
			wantLines(t, e.lines(), "the answer")
			wantLines(t, e.eventTypes(), "model_request", "model_response", "turn_end")

			e.run(lang, asks[lang][1])
			wantLines(t, e.eventTypes(), "model_request", "model_response", "turn_end",
				"model_request", "text:the answer", "model_response", "turn_end")

			wantErr(t, "stream = \"no\"", e.exec(lang, asks[lang][2]), `ask: stream got a string, want a bool`)
		})
	}
}

// The reply lists the tool calls that were dropped because the answer was
// cut off by the token limit.
func TestAskReplyDropped(t *testing.T) {
	cut := provider.Func{Label: "cut", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		return provider.Response{Content: "partial", StopReason: "max_tokens",
			Incomplete: []provider.ToolCall{{ID: "c9", Name: "grep"}}}, nil
	}}
	src := map[string]string{
		"star": `r = ask("go")
print(r.stop, json.encode(r.dropped))
r = ask("again")`,
		"lua": `local r = ask("go")
print(r.stop, json.encode(r.dropped))`,
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{Provider: cut})
			e.run(lang, src[lang])
			got := strings.Join(strings.Fields(strings.Join(e.lines(), " ")), " ")
			if want := `max_tokens [{"id":"c9","name":"grep"}]`; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	// An answer that is not cut off drops nothing: an empty list.
	e := newEnv(t, agentapi.Config{Provider: fixed("ok")})
	e.run("star", `print(json.encode(ask("go").dropped))`)
	wantLines(t, e.lines(), "[]")
}

// NewConversation forgets the conversation: the next ask sends only its
// own prompt, in a new session (session_end, then session_start again).
func TestNewConversation(t *testing.T) {
	var sent atomic.Int64
	counting := provider.Func{Label: "count", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		sent.Store(int64(len(req.Messages)))
		return provider.Response{Content: fmt.Sprintf("seen %d", len(req.Messages))}, nil
	}}
	e := newEnv(t, agentapi.Config{Provider: counting})
	e.run("star", `
on("session_start", lambda ev: print("start"))
on("session_end", lambda ev: print("end"))
print(ask("one").text)
print(ask("two").text)
`)
	if err := e.sess.NewConversation(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(e.sess.Agent().Messages()); got != 0 {
		t.Errorf("after NewConversation: %d messages, want 0", got)
	}
	e.run("lua", `print(ask("three").text)`)
	wantLines(t, e.lines(), "start", "seen 1", "seen 3", "end", "start", "seen 1")
	if sent.Load() != 1 {
		t.Errorf("the first request of the new conversation sent %d messages, want 1", sent.Load())
	}
}
