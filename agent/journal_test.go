package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
)

// resumeModel answers from the request alone, so a fresh agent that
// resumed a conversation gets the same answers: two turns of tool calls
// (arguments written with spaces and characters encoding/json escapes, a
// call with invalid arguments, a call without an id), then an answer.
func resumeModel(seen *[]provider.Request, mu *sync.Mutex) provider.Provider {
	return provider.Func{Label: "test", Fn: func(_ context.Context, req provider.Request) (provider.Response, error) {
		mu.Lock()
		*seen = append(*seen, req)
		mu.Unlock()
		step, prompt := 0, ""
		for i := len(req.Messages) - 1; i >= 0; i-- {
			m := req.Messages[i]
			if m.Role == provider.RoleUser {
				prompt = m.Content
				break
			}
			if m.Role == provider.RoleAssistant {
				step++
			}
		}
		switch step {
		case 0:
			return provider.Response{Content: "looking", Usage: provider.Usage{InputTokens: 10, OutputTokens: 2},
				ToolCalls: []provider.ToolCall{
					{ID: "a_" + prompt, Name: "echo", Args: json.RawMessage(`{ "s" : "<a & b>",  "n": 1 }`)},
					{ID: "b_" + prompt, Name: "pic", Args: json.RawMessage(`{}`)},
					{Name: "echo", InvalidArgs: `{"s": "unterminated`},
				}}, nil
		case 1:
			return provider.Response{Content: "", ToolCalls: []provider.ToolCall{
				{ID: "c_" + prompt, Name: "fail", Args: json.RawMessage("{\n  \"why\": \"x\"\n}")},
				{ID: "d_" + prompt, Name: "binary", Args: json.RawMessage(`{"n":2}`)},
			}}, nil
		}
		return provider.Response{Content: "answer to " + prompt + " after " + fmt.Sprint(len(req.Messages)) + " messages",
			Usage: provider.Usage{InputTokens: 5, CacheReadTokens: 3}}, nil
	}}
}

func resumeTools() []core.Tool {
	return []core.Tool{
		goTool("echo", func(_ context.Context, args json.RawMessage) (any, error) { return "echo " + string(args), nil }),
		goTool("pic", func(context.Context, json.RawMessage) (any, error) {
			return core.BlockOutput{Text: "a picture", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}}}}, nil
		}),
		goTool("fail", func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("it broke") }),
		goTool("binary", func(context.Context, json.RawMessage) (any, error) { return "bytes \xff\xfe not utf-8", nil }),
	}
}

// sessionAgent is an agent over the resume model and tools, saving its
// conversations in st.
func sessionAgent(t *testing.T, st *session.Store, seen *[]provider.Request, mu *sync.Mutex) *Agent {
	t.Helper()
	s := &script{}
	a := newAgent(t, s, WithProvider(resumeModel(seen, mu)), WithExtensions(PromptCaching()),
		WithJournal(func(name string) (Journal, error) { return st.New("", name) }))
	if err := a.RegisterTools(resumeTools()...); err != nil {
		t.Fatal(err)
	}
	// Compactions take their summary from a hook and keep a pin.
	if err := a.On(LifecycleHook{Name: "summary", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
		d.Compact.Summary = fmt.Sprintf("summary of %d messages", len(d.Compact.Messages))
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	a.Pin("always answer in English")
	return a
}

// compactNow compacts the conversation, as :compact does.
func compactNow(t *testing.T, a *Agent) {
	t.Helper()
	c, err := a.Compact(context.Background())
	if err != nil || c.Summarised == 0 {
		t.Fatalf("Compact() = %+v, %v; want a compaction", c, err)
	}
}

func requestJSON(t *testing.T, r provider.Request) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func messagesJSON(t *testing.T, msgs []provider.Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResumeReproducesContext: a conversation of several prompts with
// tool calls (blocks, errors, invalid arguments, bytes that are not
// UTF-8) and a compaction, stopped and resumed from its session file in a
// fresh agent, sends the model byte for byte the requests the
// uninterrupted conversation sends.
func TestResumeReproducesContext(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx := context.Background()
	prompts := []string{"one", "two", "three", "four"}
	run := func(a *Agent, p string) {
		t.Helper()
		if p == "three" {
			compactNow(t, a)
		}
		r, err := a.Run(ctx, p)
		if err != nil || r.Stop != StopFinal {
			t.Fatalf("Run(%q) = %+v, %v", p, r, err)
		}
	}

	// The uninterrupted conversation.
	var mu sync.Mutex
	var whole []provider.Request
	stA := &session.Store{Dir: t.TempDir(), Workdir: "/w"}
	a := sessionAgent(t, stA, &whole, &mu)
	var before int // requests before the last prompt
	for i, p := range prompts {
		if i == len(prompts)-1 {
			before = len(whole)
		}
		run(a, p)
	}

	// The same, stopped before the last prompt...
	var first []provider.Request
	stB := &session.Store{Dir: t.TempDir(), Workdir: "/w"}
	b := sessionAgent(t, stB, &first, &mu)
	for _, p := range prompts[:len(prompts)-1] {
		run(b, p)
	}
	id := b.SessionID()
	held := b.Messages()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	// ...and resumed in a fresh agent.
	var after []provider.Request
	c := sessionAgent(t, stB, &after, &mu)
	j, loaded, err := stB.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Warnings) > 0 {
		t.Fatalf("warnings loading a whole session: %v", loaded.Warnings)
	}
	if loaded.Turns != 9 {
		t.Errorf("loaded %d turns, want 9 (three prompts of three turns)", loaded.Turns)
	}
	if got, want := messagesJSON(t, loaded.Messages), messagesJSON(t, held); got != want {
		t.Fatalf("loaded messages differ from the conversation held:\n got %s\nwant %s", got, want)
	}
	for i, m := range loaded.Messages {
		for k, tc := range m.ToolCalls {
			if w := held[i].ToolCalls[k]; !bytes.Equal(tc.Args, w.Args) || (tc.Args == nil) != (w.Args == nil) {
				t.Errorf("message %d call %d: args %q, want %q verbatim", i, k, tc.Args, w.Args)
			}
		}
		if m.Content != held[i].Content {
			t.Errorf("message %d: content %q, want %q", i, m.Content, held[i].Content)
		}
	}
	if err := c.Resume(ctx, j, loaded.Messages); err != nil {
		t.Fatal(err)
	}
	if c.SessionID() != id {
		t.Errorf("resumed SessionID %q, want %q", c.SessionID(), id)
	}
	run(c, prompts[len(prompts)-1])

	want := whole[before:]
	if len(after) != len(want) {
		t.Fatalf("after resume %d requests, want %d", len(after), len(want))
	}
	for i := range want {
		if got, w := requestJSON(t, after[i]), requestJSON(t, want[i]); got != w {
			t.Errorf("request %d after resume differs:\n got %s\nwant %s", i+1, got, w)
		}
	}
	// The resumed conversation goes on in the same file: loading it again
	// gives the whole conversation.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := session.Load(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got, w := messagesJSON(t, again.Messages), messagesJSON(t, a.Messages()); got != w {
		t.Errorf("reloaded after the resumed prompt:\n got %s\nwant %s", got, w)
	}
	if again.Turns != 12 || len(again.Warnings) != 0 {
		t.Errorf("reloaded %d turns, warnings %v; want 12, none", again.Turns, again.Warnings)
	}
}

// failingJournal fails its writes from the nth on.
type failingJournal struct {
	mu     sync.Mutex
	n      int
	writes int
	closed bool
}

func (f *failingJournal) ID() string { return "failing" }
func (f *failingJournal) write() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if f.writes >= f.n {
		return errors.New("no space left on device")
	}
	return nil
}
func (f *failingJournal) Append(provider.Message, []core.Decision) error { return f.write() }
func (f *failingJournal) Replace([]provider.Message, string) error       { return f.write() }
func (f *failingJournal) Commit(int, provider.Usage) error               { return f.write() }
func (f *failingJournal) Close() error                                   { f.closed = true; return nil }

// TestJournalWriteErrorKeepsConversation: a journal that fails does not
// fail the run nor lose the conversation; one session_error event says
// so, and the journal is not written again.
func TestJournalWriteErrorKeepsConversation(t *testing.T) {
	var mu sync.Mutex
	var seen []provider.Request
	fj := &failingJournal{n: 3}
	var events []Event
	a := newAgent(t, &script{}, WithProvider(resumeModel(&seen, &mu)),
		WithJournal(func(string) (Journal, error) { return fj, nil }),
		WithObserver(func(e Event) {
			if e.Type == "session_error" {
				events = append(events, e)
			}
		}))
	a.RegisterTools(resumeTools()...)
	r, err := a.Run(context.Background(), "one")
	if err != nil || r.Stop != StopFinal {
		t.Fatalf("Run = %+v, %v; want a final answer despite the journal", r, err)
	}
	if got := len(a.Messages()); got != 9 {
		t.Errorf("conversation has %d messages, want 9", got)
	}
	if len(events) != 1 || !strings.Contains(events[0].Text, "no space left on device") || !strings.Contains(events[0].Text, "session failing is no longer saved") {
		t.Errorf("session_error events %+v, want one naming the error", events)
	}
	if fj.writes != 3 {
		t.Errorf("%d writes, want 3: none after the failure", fj.writes)
	}
	if r.SessionID != "failing" {
		t.Errorf("reply session %q", r.SessionID)
	}
}

// TestJournalOpenErrorAndReset: a journal that cannot be opened leaves
// the conversation unsaved (SessionID ""), reported once; Reset starts a
// new session with a new id, and closes the old one.
func TestJournalOpenErrorAndReset(t *testing.T) {
	var mu sync.Mutex
	var seen []provider.Request
	n := 0
	var opened []*failingJournal
	var events []string
	a := newAgent(t, &script{}, WithProvider(resumeModel(&seen, &mu)),
		WithObserver(func(e Event) {
			if e.Type == "session_error" {
				events = append(events, e.Text)
			}
		}),
		WithJournal(func(string) (Journal, error) {
			n++
			if n == 1 {
				return nil, errors.New("read-only file system")
			}
			j := &failingJournal{n: 1 << 30}
			opened = append(opened, j)
			return j, nil
		}))
	a.RegisterTools(resumeTools()...)
	if id := a.SessionID(); id != "" {
		t.Errorf("SessionID %q with a journal that failed to open", id)
	}
	if r, err := a.Run(context.Background(), "one"); err != nil || r.SessionID != "" {
		t.Fatalf("Run = %+v, %v", r, err)
	}
	if len(events) != 1 || !strings.Contains(events[0], "read-only file system") {
		t.Errorf("events %q, want one naming the error", events)
	}
	if err := a.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a.SessionID() != "failing" || len(opened) != 1 {
		t.Fatalf("after Reset: SessionID %q, %d opened", a.SessionID(), len(opened))
	}
	if err := a.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !opened[0].closed {
		t.Error("Reset did not close the session's journal")
	}
	a.SessionID()
	if len(opened) != 2 {
		t.Errorf("after a second Reset %d journals opened, want 2 (a new session)", len(opened))
	}
}

// TestResumeWhileRunning: Resume from inside a Run (a tool, hook or model
// function) is refused; the journal is the caller's to close.
func TestResumeWhileRunning(t *testing.T) {
	var resumeErr error
	var a *Agent
	s := &script{steps: []func(provider.Request) provider.Response{
		func(provider.Request) provider.Response {
			resumeErr = a.Resume(context.Background(), &failingJournal{n: 1}, nil)
			return provider.Response{Content: "done"}
		},
	}}
	a = newAgent(t, s)
	if _, err := a.Run(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(resumeErr, ErrRunning) {
		t.Errorf("Resume during a Run: %v, want ErrRunning", resumeErr)
	}
}

// TestRunErrorIsCommitted: a Run that fails after its prompt joined the
// conversation (the provider failed) commits the conversation as it
// stands, so a resume goes on from what the next Run would see.
func TestRunErrorIsCommitted(t *testing.T) {
	st := &session.Store{Dir: t.TempDir(), Workdir: "/w"}
	fail := true
	a := newAgent(t, &script{}, WithProvider(provider.Func{Fn: func(context.Context, provider.Request) (provider.Response, error) {
		if fail {
			return provider.Response{}, errors.New("503 from the server")
		}
		return provider.Response{Content: "ok"}, nil
	}}), WithJournal(func(name string) (Journal, error) { return st.New("s1", name) }))
	if _, err := a.Run(context.Background(), "first"); err == nil {
		t.Fatal("want the provider's error")
	}
	l, err := session.Load(a.Journal().(*session.Session).Path())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := messagesJSON(t, l.Messages), messagesJSON(t, a.Messages()); got != want || len(l.Warnings) > 0 {
		t.Errorf("after a failed run the session holds %s (warnings %v), want %s", got, l.Warnings, want)
	}
}

// TestJournalRecordsDecisionsAndUsage: tool results are saved with the
// decision records of their calls, and each turn with its usage.
func TestJournalRecordsDecisionsAndUsage(t *testing.T) {
	var mu sync.Mutex
	var seen []provider.Request
	st := &session.Store{Dir: t.TempDir(), Workdir: "/w"}
	a := sessionAgent(t, st, &seen, &mu)
	if _, err := a.Run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	j := a.Journal().(*session.Session)
	if j.Turns() != 3 {
		t.Errorf("%d turns saved, want 3", j.Turns())
	}
	b, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	var toolLines, decided, usage int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			T         string
			Msg       *struct{ Role string }
			Decisions []core.Decision
			Usage     *provider.Usage
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if rec.Msg != nil && rec.Msg.Role == provider.RoleTool {
			toolLines++
			if len(rec.Decisions) > 0 && rec.Decisions[0].Stage != "" {
				decided++
			}
		}
		if rec.T == "turn" && rec.Usage != nil && rec.Usage.InputTokens == 10 && rec.Usage.OutputTokens == 2 {
			usage++
		}
	}
	// The call whose arguments are not JSON fails before any stage: it
	// has no decision records.
	if toolLines != 5 || decided != 4 {
		t.Errorf("%d tool results saved, %d with decision records; want 5, 4", toolLines, decided)
	}
	if usage != 1 {
		t.Errorf("%d turn records with the first turn's usage, want 1", usage)
	}
}

// BenchmarkConversation50x3Journalled is BenchmarkConversation50x3 with the
// conversation saved in a session (a write per message, a sync per turn):
// the difference is what saving costs.
func BenchmarkConversation50x3Journalled(b *testing.B) {
	st := &session.Store{Dir: b.TempDir(), Workdir: "/w"}
	a := benchAgent(b, benchModel(50, 3))
	a.cfg.journal = func(name string) (Journal, error) { return st.New("", name) }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(ctx)
		r, err := a.Run(ctx, "go")
		if err != nil || r.Turns != 50 || r.SessionID == "" {
			b.Fatalf("reply %+v, err %v", r, err)
		}
	}
}
