package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// worker is a scripted model for compaction: it calls read until it has
// made calls calls, then answers "done"; a summary request (system prompt
// SummaryInstruction) gets a summary that names what it saw. It records
// every request, in order.
type worker struct {
	mu      sync.Mutex
	calls   int // calls to make per Run
	made    int
	all     []provider.Request // every request, in order
	convo   []provider.Request // the conversation's requests
	summary func(req provider.Request) provider.Response
}

func (w *worker) provider() provider.Provider {
	return provider.Func{Label: "test", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.all = append(w.all, req)
		if req.System == SummaryInstruction {
			if w.summary != nil {
				return w.summary(req), nil
			}
			n := len(w.all)
			return provider.Response{Content: fmt.Sprintf("summary at request %d of %d bytes", n, len(req.Messages[0].Content)),
				Usage: provider.Usage{InputTokens: 11, OutputTokens: 3}}, nil
		}
		w.convo = append(w.convo, req)
		if w.made >= w.calls {
			w.made = 0
			return provider.Response{Content: "done"}, nil
		}
		w.made++
		return provider.Response{Content: "reading", ToolCalls: []provider.ToolCall{
			{ID: fmt.Sprintf("c%d", len(w.convo)), Name: "read", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, len(w.convo)))}}}, nil
	}}
}

// promptExt stands for the rules and skills extensions: a section of the
// system prompt.
type promptExt struct{ text string }

func (promptExt) Name() string           { return "prompt" }
func (p promptExt) SystemPrompt() string { return p.text }

const (
	rulesText = "Project rules: never edit vendor/."
	pinText   = "  Pinned: answer in French.\n  Keep  spacing exactly   as is.\n"
)

func compactAgent(t testing.TB, w *worker, opts ...Option) (*Agent, *[]Event) {
	t.Helper()
	events := &[]Event{}
	var mu sync.Mutex
	a, err := New(append([]Option{WithProvider(w.provider()), WithModel("m"), WithPermissions(executor.PermissionsAllowAll),
		WithSystemPrompt("You are a test."), WithExtensions(promptExt{rulesText}), WithMaxTurns(200),
		WithObserver(func(e Event) {
			mu.Lock()
			*events = append(*events, e)
			mu.Unlock()
		})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RegisterTools(goTool("read", func(_ context.Context, raw json.RawMessage) (any, error) {
		return fmt.Sprintf("%s %s", raw, strings.Repeat("line of a file\n", 50)), nil
	})); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, events
}

func compactions(events []Event) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == "compaction" {
			out = append(out, e)
		}
	}
	return out
}

// TestCompactKeepsPinsSystemAndRequest: over several compactions in a
// row, and a second prompt, every request carries the pinned text byte
// for byte, the same system prompt (rules included) and never a system
// message, and the latest user request word for word; requests stay
// within the window.
func TestCompactKeepsPinsSystemAndRequest(t *testing.T) {
	w := &worker{calls: 40}
	a, events := compactAgent(t, w, WithContextWindow(3000))
	a.Pin(pinText)
	a.Pin(pinText) // once is enough
	if got := a.Pins(); len(got) != 1 || got[0] != pinText {
		t.Fatalf("Pins() = %q", got)
	}
	prompts := []string{pinText + "\nNow read forty files.", "Second task: read forty more.\n"}
	for _, prompt := range prompts {
		reply, err := a.Run(context.Background(), prompt)
		if err != nil {
			t.Fatal(err)
		}
		if reply.Stop != StopFinal || reply.Text != "done" {
			t.Fatalf("reply %+v", reply)
		}
	}
	comps := compactions(*events)
	if len(comps) < 4 {
		t.Fatalf("%d compactions, want several in a row", len(comps))
	}
	wantSystem := "You are a test.\n\n" + rulesText
	compacted := false
	latest := prompts[0]
	for n, req := range w.convo {
		if req.System != wantSystem {
			t.Fatalf("request %d: system %q, want %q", n, req.System, wantSystem)
		}
		found, prompt := false, false
		for _, m := range req.Messages {
			if m.Role == provider.RoleSystem || strings.Contains(m.Content, rulesText) {
				t.Fatalf("request %d: the system prompt or a system message is among the messages: %+v", n, m)
			}
			found = found || strings.Contains(m.Content, pinText)
			if m.Role == provider.RoleUser && m.Content == prompts[1] {
				latest = prompts[1]
			}
			prompt = prompt || (m.Role == provider.RoleUser && m.Content == latest)
		}
		if isSummary(&req.Messages[0]) {
			compacted = true
			if !strings.Contains(req.Messages[0].Content, "\n\n"+pinText+"\n\n") {
				t.Fatalf("request %d: the summary message does not carry the pin word for word:\n%s", n, req.Messages[0].Content)
			}
		}
		if !found || !prompt {
			t.Fatalf("request %d (compacted before: %v): pin found %v, latest request %q kept %v", n, compacted, found, latest, prompt)
		}
		if tok := a.requestTokens(req.Messages); tok > 3000 {
			t.Errorf("request %d: about %d tokens, over the window of 3000", n, tok)
		}
	}
	if latest != prompts[1] {
		t.Error("the second prompt never reached the model")
	}
	for _, c := range comps {
		if c.Reason != "threshold" || c.MessagesAfter >= c.MessagesBefore || c.TokensAfter >= c.TokensBefore || c.Summarised == 0 ||
			c.InputTokens != 11 || c.OutputTokens != 3 || c.Turn == 0 {
			t.Errorf("compaction event %+v", c)
		}
	}
}

// TestCompactChargesTheSummary: the summary request's usage is the
// Run's, it sees no tools and the transcript of what it replaces.
func TestCompactChargesTheSummary(t *testing.T) {
	w := &worker{calls: 30}
	a, events := compactAgent(t, w, WithContextWindow(3000))
	reply, err := a.Run(context.Background(), "read")
	if err != nil {
		t.Fatal(err)
	}
	n := len(compactions(*events))
	if n == 0 {
		t.Fatal("no compaction")
	}
	if reply.Usage != (provider.Usage{InputTokens: 11 * n, OutputTokens: 3 * n}) {
		t.Errorf("reply usage %+v, want %d summary requests' usage", reply.Usage, n)
	}
	sums := 0
	for _, req := range w.all {
		if req.System != SummaryInstruction {
			continue
		}
		sums++
		if len(req.Tools) != 0 || len(req.Messages) != 1 || req.Messages[0].Role != provider.RoleUser || req.Model != "m" {
			t.Errorf("summary request: %d tools, messages %+v, model %q", len(req.Tools), req.Messages, req.Model)
		}
		body := req.Messages[0].Content
		if !strings.Contains(body, "assistant called read (c") || !strings.Contains(body, "tool result of read (c") {
			t.Errorf("the transcript lacks the calls and results:\n%s", body)
		}
	}
	if sums != n {
		t.Errorf("%d summary requests, %d compactions", sums, n)
	}
}

// TestCompactDeterministic: two runs with the scripted model make
// identical requests, summary requests included.
func TestCompactDeterministic(t *testing.T) {
	run := func() []byte {
		w := &worker{calls: 30}
		a, _ := compactAgent(t, w, WithContextWindow(2500))
		a.Pin(pinText)
		if _, err := a.Run(context.Background(), "read"); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(w.all)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, two := run(), run()
	if string(one) != string(two) {
		t.Error("two runs made different requests")
	}
	if !strings.Contains(string(one), SummaryInstruction[:40]) {
		t.Error("no summary request was made")
	}
}

// buildConversation runs a conversation of calls tool calls without
// compaction (the window is unknown).
func buildConversation(t *testing.T, calls int, opts ...Option) (*Agent, *worker, *[]Event) {
	t.Helper()
	w := &worker{calls: calls}
	a, events := compactAgent(t, w, opts...)
	if _, err := a.Run(context.Background(), "the request"); err != nil {
		t.Fatal(err)
	}
	if len(compactions(*events)) != 0 {
		t.Fatal("compacted without a known window")
	}
	return a, w, events
}

func summaryRequests(w *worker) int {
	n := 0
	for _, r := range w.all {
		if r.System == SummaryInstruction {
			n++
		}
	}
	return n
}

// TestCompactHookSummaryAndPin: a before_compact hook sees the messages
// to compact (not the latest request, not the tail), supplies the summary
// (no summary request is made) and pins a tool result, which stays with
// its call.
func TestCompactHookSummaryAndPin(t *testing.T) {
	a, w, events := buildConversation(t, 8)
	before := a.Messages()
	var seen []provider.Message
	a.On(LifecycleHook{Name: "mine", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
		seen = d.Compact.Messages
		d.Compact.Summary = "the hook's summary"
		for i, m := range d.Compact.Messages {
			if m.Role == provider.RoleTool && m.ToolCallID == "c3" {
				d.Compact.Pin = append(d.Compact.Pin, i)
			}
		}
		return nil
	}})
	a.On(LifecycleHook{Name: "later", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
		if d.Compact.Summary != "the hook's summary" || len(d.Compact.Pin) != 1 {
			return fmt.Errorf("a later hook sees summary %q and pins %v", d.Compact.Summary, d.Compact.Pin)
		}
		return nil
	}})
	calls := len(w.all)
	c, err := a.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(w.all) != calls {
		t.Error("a summary request was made although the hook gave the summary")
	}
	for _, m := range seen {
		if m.Content == "the request" || m.Content == "done" {
			t.Errorf("the hook saw %q, which is kept anyway", m.Content)
		}
	}
	after := a.Messages()
	if !strings.HasSuffix(after[0].Content, "\n\nthe hook's summary") || c.Summary != "the hook's summary" || c.Reason != "asked" {
		t.Errorf("summary message %q, compaction %+v", after[0].Content, c)
	}
	var ids []string
	for _, m := range after[1:] {
		ids = append(ids, m.Role+":"+m.ToolCallID+m.Content[:min(len(m.Content), 11)])
	}
	// The request, the pinned group (call c3 and its result) and the last
	// group: the final answer, with the group before it if it fits.
	if ids[0] != "user:the request" || ids[1] != "assistant:reading" || !strings.HasPrefix(ids[2], "tool:c3") || ids[len(ids)-1] != "assistant:done" {
		t.Errorf("kept %q", ids)
	}
	if c.Pinned != 2 || c.Summarised != len(before)-len(after)+1 || len(compactions(*events)) != 1 {
		t.Errorf("compaction %+v (before %d, after %d)", c, len(before), len(after))
	}
	if a.EstimateTokens() != c.TokensAfter || c.TokensAfter >= c.TokensBefore {
		t.Errorf("estimate %d after, compaction %+v", a.EstimateTokens(), c)
	}
	// Compacting again (the window is unknown: the tail is a quarter of
	// the estimate) summarises the earlier summary too: one summary
	// message, and the hook's pin still holds.
	again, err := a.Compact(context.Background())
	if err != nil || again.Summarised == 0 {
		t.Fatalf("a second compaction: %+v, %v", again, err)
	}
	summaries, pinned := 0, false
	for _, m := range a.Messages() {
		if isSummary(&m) {
			summaries++
		}
		pinned = pinned || m.ToolCallID == "c3"
	}
	if summaries != 1 || !pinned {
		t.Errorf("after a second compaction: %d summary messages, c3 kept %v", summaries, pinned)
	}
}

// TestCompactHookFailures: a hook that errs, panics or pins what does not
// exist stops the compaction (fail closed), leaving the conversation as
// it was; in a Run it ends the Run with the error.
func TestCompactHookFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(context.Context, *LifecycleData) error
		want string
	}{
		{"error", func(context.Context, *LifecycleData) error { return errors.New("not now") }, `before_compact hook "h" refused the compaction: not now`},
		{"panic", func(context.Context, *LifecycleData) error { panic("boom") }, `before_compact hook "h" refused the compaction: panic: boom`},
		{"bad pin", func(_ context.Context, d *LifecycleData) error {
			d.Compact.Pin = []int{len(d.Compact.Messages)}
			return nil
		}, "pinned message"},
		{"negative pin", func(_ context.Context, d *LifecycleData) error { d.Compact.Pin = []int{-1}; return nil }, "pinned message -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, w, _ := buildConversation(t, 6)
			a.On(LifecycleHook{Name: "h", Event: BeforeCompact, Func: tc.fn})
			before := a.Messages()
			_, err := a.Compact(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Compact() = %v, want %q", err, tc.want)
			}
			if !reflect.DeepEqual(a.Messages(), before) || summaryRequests(w) != 0 {
				t.Error("a failed compaction changed the conversation or asked for a summary")
			}

			// In a Run: the Run ends with the error, before its request.
			w2 := &worker{calls: 30}
			b, _ := compactAgent(t, w2, WithContextWindow(2000))
			b.On(LifecycleHook{Name: "h", Event: BeforeCompact, Func: tc.fn})
			_, err = b.Run(context.Background(), "go")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run() = %v, want %q", err, tc.want)
			}
			var he *HookError
			if tc.name == "error" && (!errors.As(err, &he) || he.Event != BeforeCompact) {
				t.Errorf("Run() error %T, want a HookError of before_compact", err)
			}
			if msgs := b.Messages(); isSummary(&msgs[0]) || len(w2.convo) != len(msgs)/2 {
				t.Errorf("after the refused compaction: %d messages, %d requests", len(msgs), len(w2.convo))
			}
		})
	}
}

// TestCompactSummaryFailures: an empty summary, a failed summary request
// and no provider leave the conversation as it was, with an error saying
// what to do.
func TestCompactSummaryFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary func(provider.Request) provider.Response
		want    string
	}{
		{"empty", func(provider.Request) provider.Response {
			return provider.Response{ToolCalls: []provider.ToolCall{{ID: "x", Name: "read"}}}
		}, "the model's summary was empty (1 tool calls"},
		{"blank", func(provider.Request) provider.Response { return provider.Response{Content: " \n"} }, "summary was empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, w, _ := buildConversation(t, 6)
			w.summary = tc.summary
			before := a.Messages()
			if _, err := a.Compact(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "before_compact") {
				t.Fatalf("Compact() = %v, want %q", err, tc.want)
			}
			if !reflect.DeepEqual(a.Messages(), before) {
				t.Error("the conversation changed")
			}
		})
	}
	a, _, _ := buildConversation(t, 6)
	failing := provider.Func{Fn: func(context.Context, provider.Request) (provider.Response, error) {
		return provider.Response{}, &provider.Error{Kind: provider.ErrServer, Provider: "x", Message: "overloaded"}
	}}
	a.SetProvider(failing, "")
	if _, err := a.Compact(context.Background()); !errors.Is(err, provider.ErrServer) || !strings.Contains(err.Error(), "summary request failed") {
		t.Errorf("Compact() with a failing model = %v", err)
	}
	a.SetProvider(nil, "")
	if _, err := a.Compact(context.Background()); !errors.Is(err, ErrNoProvider) {
		t.Errorf("Compact() without a model = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.SetProvider(provider.Func{Fn: func(ctx context.Context, _ provider.Request) (provider.Response, error) {
		return provider.Response{}, ctx.Err()
	}}, "")
	if _, err := a.Compact(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Compact() canceled = %v", err)
	}
}

// TestCompactNested: Compact from a tool during a Run is refused instead
// of waiting for itself; so is ask from a before_compact hook.
func TestCompactNested(t *testing.T) {
	w := &worker{calls: 1}
	a, _ := compactAgent(t, w)
	var nested error
	a.RegisterTools(goTool("compact", func(ctx context.Context, _ json.RawMessage) (any, error) {
		_, nested = a.Compact(ctx)
		return "", nil
	}))
	a.UnregisterTools("read")
	a.RegisterTools(goTool("read", func(ctx context.Context, _ json.RawMessage) (any, error) {
		_, nested = a.Compact(ctx)
		return "x", nil
	}))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(nested, ErrNestedCompact) {
		t.Errorf("nested Compact = %v, want ErrNestedCompact", nested)
	}
	var inHook error
	a.On(LifecycleHook{Name: "h", Event: BeforeCompact, Func: func(ctx context.Context, d *LifecycleData) error {
		_, inHook = a.Run(ctx, "nested")
		d.Compact.Summary = "s"
		return nil
	}})
	a.Run(context.Background(), "more")
	if _, err := a.Compact(context.Background()); err != nil || !errors.Is(inHook, ErrNestedRun) {
		t.Errorf("Compact() = %v; Run from its hook = %v, want ErrNestedRun", err, inHook)
	}
}

// TestCompactNothingToDo: a conversation that is all kept is left alone,
// without a hook or a summary request.
func TestCompactNothingToDo(t *testing.T) {
	w := &worker{calls: 0}
	a, events := compactAgent(t, w)
	hooked := false
	a.On(LifecycleHook{Name: "h", Event: BeforeCompact, Func: func(context.Context, *LifecycleData) error { hooked = true; return nil }})
	for _, run := range []bool{false, true} {
		if run {
			a.Run(context.Background(), "hi")
		}
		before := a.Messages()
		c, err := a.Compact(context.Background())
		if err != nil || c.Summarised != 0 || c.MessagesAfter != len(before) || !reflect.DeepEqual(a.Messages(), before) {
			t.Errorf("Compact() on %d messages = %+v, %v", len(before), c, err)
		}
	}
	if hooked || summaryRequests(w) != 0 || len(compactions(*events)) != 0 {
		t.Error("nothing to compact, yet the hook ran, a summary was asked for or an event sent")
	}
	// A hook that pins everything leaves it alone too.
	b, w2, _ := buildConversation(t, 6)
	b.On(LifecycleHook{Name: "all", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
		for i := range d.Compact.Messages {
			d.Compact.Pin = append(d.Compact.Pin, i)
		}
		return nil
	}})
	before := b.Messages()
	if c, err := b.Compact(context.Background()); err != nil || c.Summarised != 0 || !reflect.DeepEqual(b.Messages(), before) || summaryRequests(w2) != 0 {
		t.Errorf("everything pinned: %+v, %v", c, err)
	}
}

// TestCompactPairsProperty: over many random conversations, windows and
// pins, the compacted conversation starts with the summary, keeps the
// latest user request and the last group, keeps what it keeps in order,
// and never separates a tool result from its call.
func TestCompactPairsProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for iter := 0; iter < 400; iter++ {
		msgs := randomConversation(rng)
		window := []int{0, 300, 1500, 8000}[rng.Intn(4)]
		w := &worker{}
		a, _ := compactAgent(t, w, WithContextWindow(window))
		a.replaceConversation(msgs, "test")
		hookSummary := rng.Intn(2) == 0
		pinSeed := rng.Int63()
		a.On(LifecycleHook{Name: "pins", Event: BeforeCompact, Func: func(_ context.Context, d *LifecycleData) error {
			r := rand.New(rand.NewSource(pinSeed))
			for i := range d.Compact.Messages {
				if r.Intn(5) == 0 {
					d.Compact.Pin = append(d.Compact.Pin, i)
				}
			}
			if hookSummary {
				d.Compact.Summary = "hook"
			}
			return nil
		}})
		c, err := a.Compact(context.Background())
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		out := a.Messages()
		if c.Summarised == 0 {
			if !reflect.DeepEqual(out, msgs) {
				t.Fatalf("iteration %d: nothing compacted, yet the conversation changed", iter)
			}
			continue
		}
		desc := fmt.Sprintf("iteration %d (window %d): %s -> %s", iter, window, roles(msgs), roles(out))
		if !isSummary(&out[0]) {
			t.Fatalf("%s: does not start with the summary", desc)
		}
		if err := checkPairs(out); err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		// Kept messages: a subsequence of the original, in order.
		j := 0
		for _, m := range out[1:] {
			for j < len(msgs) && !reflect.DeepEqual(msgs[j], m) {
				j++
			}
			if j == len(msgs) {
				t.Fatalf("%s: a kept message is not in the original, or out of order: %+v", desc, m)
			}
			j++
		}
		if last := msgs[len(msgs)-1]; !reflect.DeepEqual(out[len(out)-1], last) {
			t.Fatalf("%s: the last message was not kept", desc)
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == provider.RoleUser && !isSummary(&msgs[i]) {
				found := false
				for _, m := range out {
					found = found || reflect.DeepEqual(m, msgs[i])
				}
				if !found {
					t.Fatalf("%s: the latest user request was not kept", desc)
				}
				break
			}
		}
		if len(out) != len(msgs)-c.Summarised+1 {
			t.Fatalf("%s: %d summarised", desc, c.Summarised)
		}
	}
}

// randomConversation is a conversation of users, answers and tool call
// groups of random sizes, sometimes opening with an earlier summary.
func randomConversation(rng *rand.Rand) []provider.Message {
	text := func() string { return strings.Repeat("x", rng.Intn(3000)) }
	var msgs []provider.Message
	if rng.Intn(4) == 0 {
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: summaryMessage(nil, "earlier")})
	}
	msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: "first " + text()})
	id := 0
	for n := rng.Intn(30); n >= 0; n-- {
		switch r := rng.Intn(10); {
		case r < 2:
			msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: fmt.Sprintf("user %d %s", n, text())})
		case r < 4:
			msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: "answer " + text()})
		default:
			k := 1 + rng.Intn(3)
			call := provider.Message{Role: provider.RoleAssistant, Content: "calling"}
			var results []provider.Message
			for i := 0; i < k; i++ {
				id++
				cid := fmt.Sprintf("id%d", id)
				call.ToolCalls = append(call.ToolCalls, provider.ToolCall{ID: cid, Name: "read", Args: json.RawMessage(`{}`)})
				results = append(results, provider.Message{Role: provider.RoleTool, ToolCallID: cid, Name: "read", Content: text()})
			}
			msgs = append(append(msgs, call), results...)
		}
	}
	return msgs
}

// checkPairs checks that every call has its result right after its
// message, and every result follows its call.
func checkPairs(msgs []provider.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == provider.RoleTool {
			return fmt.Errorf("message %d: a tool result (%s) without its call before it", i, m.ToolCallID)
		}
		if m.Role != provider.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		for _, tc := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != provider.RoleTool || msgs[i].ToolCallID != tc.ID {
				return fmt.Errorf("call %s of message %d has no result right after it", tc.ID, i)
			}
		}
	}
	return nil
}

// TestCompactConcurrent: Compact from other goroutines while Runs
// compact on their own waits its turn; the conversation stays whole.
func TestCompactConcurrent(t *testing.T) {
	w := &worker{calls: 15}
	a, _ := compactAgent(t, w, WithContextWindow(2500))
	a.Pin(pinText)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.Run(context.Background(), "read"); err != nil {
				errs <- err
			}
		}()
	}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.Compact(context.Background()); err != nil {
				errs <- err
			}
			a.Pins()
			a.EstimateTokens()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	msgs := a.Messages()
	if !isSummary(&msgs[0]) || !strings.Contains(msgs[0].Content, pinText) {
		t.Errorf("first message %q", msgs[0].Content)
	}
	if err := checkPairs(msgs); err != nil {
		t.Error(err)
	}
}

// TestCompactCanceled: a Run canceled during compaction's summary request
// stops with "canceled" and keeps its conversation as it was.
func TestCompactCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &worker{calls: 30}
	w.summary = func(provider.Request) provider.Response {
		cancel()
		return provider.Response{Content: "too late"}
	}
	var before []provider.Message
	a, _ := compactAgent(t, w, WithContextWindow(2500))
	p := a.Provider()
	a.SetProvider(provider.Func{Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		if req.System == SummaryInstruction {
			before = a.Messages()
		}
		resp, err := p.Complete(ctx, req, nil)
		if err == nil && ctx.Err() != nil {
			return provider.Response{}, ctx.Err()
		}
		return resp, err
	}}, "")
	reply, err := a.Run(ctx, "read")
	if !errors.Is(err, context.Canceled) || reply.Stop != StopCanceled {
		t.Fatalf("Run() = %+v, %v; want canceled", reply, err)
	}
	if before == nil || !reflect.DeepEqual(a.Messages(), before) {
		t.Error("the canceled compaction changed the conversation")
	}
}
