package agentapi_test

import (
	"strings"
	"testing"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/script/agentapi"
)

// session() describes the current session; session(id) goes on with a
// saved one or starts one of that name (the current one: nothing
// changes); ask() replies name the session.
func TestSessionBuiltin(t *testing.T) {
	src := map[string]string{
		"star": `
s = session()
print(len(s.id) > 0, s.turns, s.messages, s.workdir, s.path.endswith(s.id + ".jsonl"))
r = ask("hi")
s = session()
print(r.session == s.id, s.turns, s.messages)
first = s.id
n = session("named")
print(n.id, n.turns, n.messages)
ask("again")
print(session().turns)
b = session(first)
print(b.id == first, b.turns, b.messages)
again = session(first)
print(again.id == first, again.turns, again.messages)
`,
		"lua": `
local s = session()
print(#s.id > 0, s.turns, s.messages, s.workdir, s.path:sub(-#(s.id .. ".jsonl")) == s.id .. ".jsonl")
local r = ask("hi")
s = session()
print(r.session == s.id, s.turns, s.messages)
local first = s.id
local n = session("named")
print(n.id, n.turns, n.messages)
ask("again")
print(session().turns)
local b = session(first)
print(b.id == first, b.turns, b.messages)
again = session(first)
print(again.id == first, again.turns, again.messages)
`,
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			e := newEnv(t, agentapi.Config{Provider: fixed("ok"), Sessions: &session.Store{Workdir: "/w"}})
			e.run(lang, src[lang])
			truth := map[string]string{"star": "True", "lua": "true"}[lang]
			want := strings.NewReplacer("T", truth).Replace("T 0 0 /w T|T 1 2|named 0 0|1|T 1 2|T 1 2")
			if got := strings.ReplaceAll(strings.Join(e.lines(), "|"), "\t", " "); got != want {
				t.Errorf("printed %q, want %q", got, want)
			}
			wantErr(t, "a bad id", e.exec(lang, `session("../etc")`), "session: session id", "want 1 to 128 letters")
		})
	}
}

// Where conversations are not saved (agentsh test hosts), session() is
// None and session(id) says so.
func TestSessionNotSaved(t *testing.T) {
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, agentapi.Config{Provider: fixed("ok")})
			e.run(lang, map[string]string{"star": `print(session() == None)`, "lua": `print(session() == nil)`}[lang])
			if got := strings.Join(e.lines(), "|"); got != map[string]string{"star": "True", "lua": "true"}[lang] {
				t.Errorf("printed %q", got)
			}
			wantErr(t, "session(id)", e.exec(lang, `session("x")`), "conversations are not saved here")
		})
	}
}
