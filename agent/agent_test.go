package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/provider"
)

// script is a scripted model: it answers turn n with steps[n-1] and
// records every request it saw.
type script struct {
	mu    sync.Mutex
	steps []func(req provider.Request) provider.Response
	seen  []provider.Request
}

func (s *script) provider() provider.Provider {
	return provider.Func{Label: "test", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seen = append(s.seen, req)
		n := len(s.seen)
		if n > len(s.steps) {
			return provider.Response{}, fmt.Errorf("the script has %d steps; request %d is one too many", len(s.steps), n)
		}
		return s.steps[n-1](req), nil
	}}
}

func calls(tcs ...provider.ToolCall) func(provider.Request) provider.Response {
	return func(provider.Request) provider.Response { return provider.Response{Content: "working", ToolCalls: tcs} }
}

func answer(text string) func(provider.Request) provider.Response {
	return func(provider.Request) provider.Response { return provider.Response{Content: text} }
}

func tc(id, name, args string) provider.ToolCall {
	return provider.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

func goTool(name string, fn func(ctx context.Context, args json.RawMessage) (any, error)) core.Tool {
	return core.Tool{Name: name, Description: "the " + name + " tool",
		Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`), Func: fn}
}

func newAgent(t *testing.T, s *script, opts ...Option) *Agent {
	t.Helper()
	// The loop's tests are not about consent: the model's calls run.
	a, err := New(append([]Option{WithProvider(s.provider()), WithModel("m"), WithValidateArguments(true),
		WithPermissions(executor.PermissionsAllowAll)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func roles(msgs []provider.Message) string {
	var parts []string
	for _, m := range msgs {
		parts = append(parts, m.Role)
	}
	return strings.Join(parts, ",")
}

// TestRunLoop: the model's tool calls run through the pipeline, their
// results (and errors the model can correct) go back in call order, and
// the run ends on an answer without tool calls.
func TestRunLoop(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "double", `{"n": 2}`), tc("b", "double", `{"n": "x"}`), tc("c", "nope", `{}`)),
		calls(tc("d", "double", `{"n": 21}`)),
		answer("42, done"),
	}}
	var events []Event
	a := newAgent(t, s, WithSystemPrompt("be brief"), WithObserver(func(e Event) { events = append(events, e) }))
	if err := a.RegisterTools(goTool("double", func(_ context.Context, raw json.RawMessage) (any, error) {
		var args struct{ N int }
		json.Unmarshal(raw, &args)
		return core.DualToolOutput{ForLLM: fmt.Sprint(2 * args.N), ForUser: fmt.Sprintf("doubled %d", args.N)}, nil
	})); err != nil {
		t.Fatal(err)
	}
	reply, err := a.Run(context.Background(), "double things")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*reply, Reply{Text: "42, done", Turns: 3, ToolCalls: 4, Stop: StopFinal, AgentID: MainAgentID}) {
		t.Errorf("reply %+v", *reply)
	}
	msgs := a.Messages()
	if got := roles(msgs); got != "user,assistant,tool,tool,tool,assistant,tool,assistant" {
		t.Fatalf("conversation roles %s", got)
	}
	want := []struct {
		id, content string
		isErr       bool
	}{
		{"a", "4", false},
		{"b", "error (invalid_arguments): invalid arguments for double: /n: expected integer, but got string", true},
		{"c", `error (unknown_tool): unknown tool "nope"`, true},
	}
	for i, w := range want {
		m := msgs[2+i]
		if m.ToolCallID != w.id || !strings.HasPrefix(m.Content, w.content) || m.IsError != w.isErr {
			t.Errorf("tool message %d: %+v, want id %s content %q error %v", i, m, w.id, w.content, w.isErr)
		}
	}
	// Every request carried the system prompt, the tools and the whole
	// conversation so far.
	if len(s.seen) != 3 || s.seen[0].System != "be brief" || s.seen[0].Model != "m" || len(s.seen[2].Messages) != 7 {
		t.Fatalf("requests: %+v", s.seen)
	}
	if tools := s.seen[0].Tools; len(tools) != 1 || tools[0].Name != "double" || !strings.Contains(string(tools[0].Parameters), `"integer"`) {
		t.Errorf("tool definitions %+v", tools)
	}
	// People see ForUser; the model saw ForLLM.
	var shown []string
	for _, e := range events {
		if e.Type == "tool_output" {
			shown = append(shown, e.Text)
		}
	}
	if strings.Join(shown, "|") != "doubled 2|doubled 21" {
		t.Errorf("shown %q", shown)
	}
	if events[0].Type != "model_request" || events[0].Tools != 1 || events[1].Type != "text" || events[1].Text != "working" {
		t.Errorf("first events %+v", events[:2])
	}
}

// TestSilentAndBlocks: silent results are not shown; blocks reach the
// model's tool message; missing call IDs are filled in.
func TestSilentAndBlocks(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("", "quiet", `{}`), tc("", "shot", `{}`)),
		answer("ok"),
	}}
	var shown []string
	a := newAgent(t, s, WithObserver(func(e Event) {
		if e.Type == "tool_output" {
			shown = append(shown, e.Text)
		}
	}))
	a.RegisterTools(
		goTool("quiet", func(context.Context, json.RawMessage) (any, error) { return core.SilentResult{ForLLM: "secret"}, nil }),
		goTool("shot", func(context.Context, json.RawMessage) (any, error) {
			return core.BlockOutput{Text: "a picture", Blocks: []core.Block{{Type: "image", MIMEType: "image/png", Data: []byte{1, 2}}}}, nil
		}),
	)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := a.Messages()
	if msgs[2].Content != "secret" || msgs[2].ToolCallID != "call_1_1" || msgs[3].ToolCallID != "call_1_2" {
		t.Errorf("tool messages %+v %+v", msgs[2], msgs[3])
	}
	if len(msgs[3].Blocks) != 1 || msgs[3].Blocks[0].MIMEType != "image/png" {
		t.Errorf("blocks %+v", msgs[3].Blocks)
	}
	if strings.Join(shown, "|") != "a picture" {
		t.Errorf("shown %q, want only the visible result", shown)
	}
}

func TestMaxTurnsAndNoProvider(t *testing.T) {
	loop := calls(tc("", "noop", `{}`))
	s := &script{steps: []func(provider.Request) provider.Response{loop, loop, loop}}
	a := newAgent(t, s, WithMaxTurns(2))
	a.RegisterTools(goTool("noop", func(context.Context, json.RawMessage) (any, error) { return "", nil }))
	reply, err := a.Run(context.Background(), "spin")
	if err != nil || reply.Stop != StopMaxTurns || reply.Turns != 2 || reply.ToolCalls != 2 {
		t.Errorf("reply %+v, err %v; want max_turns after 2 turns", reply, err)
	}
	if _, err := New(WithMaxTurns(-1)); err == nil {
		t.Error("negative max turns accepted")
	}
	b, _ := New()
	defer b.Close()
	if _, err := b.Run(context.Background(), "hi"); !errors.Is(err, ErrNoProvider) {
		t.Errorf("no provider: %v", err)
	}
}

// TestCancelKeepsConversationUsable: cancelling during a tool call ends
// the run with the context's error; every call has a result, and the next
// Run continues the same conversation.
func TestCancelKeepsConversationUsable(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "block", `{}`), tc("b", "block", `{}`)),
		answer("after the interruption"),
	}}
	a := newAgent(t, s, WithExecutionMode(executor.ModeParallel))
	started := make(chan struct{}, 2)
	a.RegisterTools(goTool("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		<-started
		cancel()
	}()
	done := make(chan struct{})
	var reply *Reply
	var err error
	go func() {
		defer close(done)
		reply, err = a.Run(ctx, "wait")
	}()
	select {
	case <-done:
	case <-time.After(testwait.Step):
		t.Fatal("Run did not stop after cancellation")
	}
	if !errors.Is(err, context.Canceled) || reply.Stop != StopCanceled {
		t.Fatalf("reply %+v, err %v; want canceled", reply, err)
	}
	msgs := a.Messages()
	if got := roles(msgs); got != "user,assistant,tool,tool" {
		t.Fatalf("conversation %s; every tool call needs its result", got)
	}
	for _, m := range msgs[2:] {
		if !m.IsError || !strings.Contains(m.Content, "canceled") {
			t.Errorf("tool message %+v, want a canceled error", m)
		}
	}
	reply, err = a.Run(context.Background(), "go on")
	if err != nil || reply.Text != "after the interruption" {
		t.Fatalf("next run: %+v, %v", reply, err)
	}
	if got := roles(a.Messages()); got != "user,assistant,tool,tool,user,assistant" {
		t.Errorf("conversation %s", got)
	}
}

// TestCancelDuringModelRequest: a cancelled request leaves no partial
// answer behind.
func TestCancelDuringModelRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	slow := provider.Func{Fn: func(ctx context.Context, _ provider.Request) (provider.Response, error) {
		cancel()
		<-ctx.Done()
		return provider.Response{}, ctx.Err()
	}}
	a, _ := New(WithProvider(slow))
	defer a.Close()
	reply, err := a.Run(ctx, "hi")
	if !errors.Is(err, context.Canceled) || reply.Stop != StopCanceled {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if got := roles(a.Messages()); got != "user" {
		t.Errorf("conversation %s, want only the prompt", got)
	}
}

// TestLifecycleOrder: before-style hooks run in registration order,
// after-style ones in reverse; session_start runs once per session and
// session_end on Reset and Close.
func TestLifecycleOrder(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "noop", `{}`)), answer("one"), answer("two"),
	}}
	a := newAgent(t, s)
	a.RegisterTools(goTool("noop", func(context.Context, json.RawMessage) (any, error) { return "", nil }))
	var log []string
	for _, name := range []string{"A", "B"} {
		for _, ev := range LifecycleEvents {
			name, ev := name, ev
			if err := a.On(LifecycleHook{Name: name, Event: ev, Func: func(_ context.Context, d *LifecycleData) error {
				log = append(log, fmt.Sprintf("%s:%s:%d", ev, name, d.Turn))
				return nil
			}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	a.Run(context.Background(), "first")
	a.Run(context.Background(), "second")
	a.Reset(context.Background())
	want := "session_start:A:0 session_start:B:0 " +
		"user_prompt:A:0 user_prompt:B:0 " +
		"before_model:A:1 before_model:B:1 after_model:B:1 after_model:A:1 turn_end:B:1 turn_end:A:1 " +
		"before_model:A:2 before_model:B:2 after_model:B:2 after_model:A:2 turn_end:B:2 turn_end:A:2 " +
		"user_prompt:A:0 user_prompt:B:0 " +
		"before_model:A:1 before_model:B:1 after_model:B:1 after_model:A:1 turn_end:B:1 turn_end:A:1 " +
		"session_end:B:0 session_end:A:0"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("hook order\n got  %s\n want %s", got, want)
	}
	if err := a.On(LifecycleHook{Name: "x", Event: "before_lunch", Func: func(context.Context, *LifecycleData) error { return nil }}); err == nil || !strings.Contains(err.Error(), "unknown lifecycle event") {
		t.Errorf("bad event: %v", err)
	}
}

// TestGatingHooks: user_prompt rewrites or refuses; before_model edits or
// refuses; after_model refuses (the response does not join the
// conversation); a panicking hook fails closed.
func TestGatingHooks(t *testing.T) {
	refuse := errors.New("not allowed")
	for _, tc := range []struct {
		name    string
		hook    LifecycleHook
		wantErr string
		roles   string
	}{
		{"rewrite prompt", LifecycleHook{Event: UserPrompt, Func: func(_ context.Context, d *LifecycleData) error {
			d.Prompt = strings.ToUpper(d.Prompt)
			return nil
		}}, "", "user,assistant"},
		{"refuse prompt", LifecycleHook{Name: "guard", Event: UserPrompt, Func: func(context.Context, *LifecycleData) error { return refuse }},
			`user_prompt hook "guard" refused the prompt: not allowed`, ""},
		{"edit request", LifecycleHook{Event: BeforeModel, Func: func(_ context.Context, d *LifecycleData) error {
			d.Request.System += " (edited)"
			return nil
		}}, "", "user,assistant"},
		{"refuse request", LifecycleHook{Name: "budget", Event: BeforeModel, Func: func(context.Context, *LifecycleData) error { return refuse }},
			`before_model hook "budget" refused the request`, "user"},
		{"refuse response", LifecycleHook{Name: "filter", Event: AfterModel, Func: func(_ context.Context, d *LifecycleData) error {
			if d.Response.Content == "HELLO" || d.Response.Content == "hello" {
				return refuse
			}
			return nil
		}}, `after_model hook "filter" refused the response`, "user"},
		{"panic", LifecycleHook{Name: "buggy", Event: BeforeModel, Func: func(context.Context, *LifecycleData) error { panic("oops") }},
			`before_model hook "buggy" refused the request: panic: oops`, "user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{steps: []func(provider.Request) provider.Response{func(req provider.Request) provider.Response {
				return provider.Response{Content: req.Messages[len(req.Messages)-1].Content}
			}}}
			a := newAgent(t, s, WithSystemPrompt("sys"))
			a.On(tc.hook)
			reply, err := a.Run(context.Background(), "hello")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := roles(a.Messages()); got != tc.roles {
				t.Errorf("conversation %q, want %q", got, tc.roles)
			}
			switch tc.name {
			case "rewrite prompt":
				if reply.Text != "HELLO" {
					t.Errorf("the model saw %q, want the rewritten prompt", reply.Text)
				}
			case "edit request":
				if s.seen[0].System != "sys (edited)" {
					t.Errorf("system %q", s.seen[0].System)
				}
			}
		})
	}
}

// ext contributes a prompt section, a tool and a lifecycle hook.
type ext struct{ turns atomic.Int32 }

func (*ext) Name() string         { return "ext" }
func (*ext) SystemPrompt() string { return "Use the ext tool." }
func (*ext) Tools() []core.Tool {
	return []core.Tool{goTool("ext_tool", func(context.Context, json.RawMessage) (any, error) { return "from ext", nil })}
}
func (e *ext) LifecycleHooks() []LifecycleHook {
	return []LifecycleHook{{Name: "count", Event: TurnEnd, Func: func(context.Context, *LifecycleData) error {
		e.turns.Add(1)
		return nil
	}}}
}

func TestExtensionsContribute(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{calls(tc("a", "ext_tool", `{}`)), answer("done")}}
	e := &ext{}
	a := newAgent(t, s, WithSystemPrompt("Base."), WithExtensions(e))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if s.seen[0].System != "Base.\n\nUse the ext tool." {
		t.Errorf("system %q", s.seen[0].System)
	}
	if a.Messages()[2].Content != "from ext" || e.turns.Load() != 2 {
		t.Errorf("tool message %+v, turns %d", a.Messages()[2], e.turns.Load())
	}
	if names := a.ToolNames(); len(names) != 1 || a.GetTool("ext_tool") == nil {
		t.Errorf("tools %v", names)
	}
	if err := a.UnregisterTools("ext_tool"); err != nil || a.GetTool("ext_tool") != nil {
		t.Errorf("unregister: %v", err)
	}
}

// TestArtifactOffload: a big output reaches the model as a reference.
func TestArtifactOffload(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{calls(tc("a", "big", `{}`)), answer("done")}}
	a := newAgent(t, s, WithArtifactOffload(executor.NewMemoryStore(), 100))
	a.RegisterTools(goTool("big", func(context.Context, json.RawMessage) (any, error) { return strings.Repeat("x", 100_000), nil }))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := a.Messages()[2].Content
	if !strings.Contains(got, "stored as artifact") || len(got) > 10_000 {
		t.Errorf("tool message %.200q, want an artifact reference", got)
	}
	if a.GetTool(executor.ArtifactReadTool) == nil {
		t.Error("artifact_read is not registered")
	}
}

// TestModeMixedBarrier: in mixed mode, unsafe calls of one turn run alone
// and results stay in call order.
func TestModeMixedBarrier(t *testing.T) {
	var steps []provider.ToolCall
	for i := 0; i < 6; i++ {
		name := "safe"
		if i == 3 {
			name = "unsafe"
		}
		steps = append(steps, tc(fmt.Sprint(i), name, fmt.Sprintf(`{"n": %d}`, i)))
	}
	s := &script{steps: []func(provider.Request) provider.Response{calls(steps...), answer("done")}}
	a := newAgent(t, s, WithExecutionMode(executor.ModeMixed), WithConcurrency(4))
	var running, overlapWithUnsafe atomic.Int32
	yes, no := true, false
	mk := func(name string, safe *bool) core.Tool {
		t := goTool(name, func(_ context.Context, raw json.RawMessage) (any, error) {
			n := running.Add(1)
			defer running.Add(-1)
			if name == "unsafe" && n != 1 {
				overlapWithUnsafe.Add(1)
			}
			time.Sleep(5 * time.Millisecond)
			return string(raw), nil
		})
		t.ConcurrencySafe = safe
		return t
	}
	a.RegisterTools(mk("safe", &yes), mk("unsafe", &no))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if overlapWithUnsafe.Load() != 0 {
		t.Error("the unsafe call overlapped others")
	}
	for i, m := range a.Messages()[2:8] {
		if m.ToolCallID != fmt.Sprint(i) || m.Content != fmt.Sprintf(`{"n": %d}`, i) {
			t.Errorf("result %d: %+v", i, m)
		}
	}
}

func TestPromptCachingMarks(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{calls(tc("a", "noop", `{}`)), answer("done")}}
	a := newAgent(t, s, WithSystemPrompt("sys"), WithExtensions(PromptCaching()))
	a.RegisterTools(goTool("aaa", func(context.Context, json.RawMessage) (any, error) { return "", nil }), goTool("noop", func(context.Context, json.RawMessage) (any, error) { return "", nil }))
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for i, req := range s.seen {
		if !req.SystemCache || req.Tools[0].Cache || !req.Tools[1].Cache {
			t.Errorf("request %d: system %v, tools %+v; want the system and the last tool marked", i, req.SystemCache, req.Tools)
		}
		var marked []int
		for j, m := range req.Messages {
			if m.Cache {
				marked = append(marked, j)
			}
		}
		if len(marked) != 1 || marked[0] != len(req.Messages)-1 {
			t.Errorf("request %d: marked messages %v, want only the last of %d", i, marked, len(req.Messages))
		}
	}
	for _, m := range a.Messages() {
		if m.Cache {
			t.Error("a cache mark stuck to the conversation")
		}
	}
}

// TestRunsTakeTurns: a Run from inside a Run of the same agent fails with
// ErrNestedRun; a Run from elsewhere waits for the one in progress, or
// gives up when its context ends.
func TestRunsTakeTurns(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	var a *Agent
	var nestedErr error
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("a", "inner", `{}`)), answer("outer done"), answer("second done"),
	}}
	a = newAgent(t, s)
	a.RegisterTools(goTool("inner", func(ctx context.Context, _ json.RawMessage) (any, error) {
		_, nestedErr = a.Run(ctx, "nested")
		close(entered)
		<-release
		return "", nil
	}))
	first := make(chan error, 1)
	go func() {
		_, err := a.Run(context.Background(), "outer")
		first <- err
	}()
	// A second caller gives up when its context ends while the first runs.
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := a.Run(ctx, "impatient"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting Run: %v, want the deadline", err)
	}
	// A patient one waits its turn.
	second := make(chan error, 1)
	go func() {
		r, err := a.Run(context.Background(), "second")
		if err == nil && r.Text != "second done" {
			err = fmt.Errorf("reply %q", r.Text)
		}
		second <- err
	}()
	close(release)
	for _, ch := range []chan error{first, second} {
		select {
		case err := <-ch:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(testwait.Step):
			t.Fatal("a Run did not finish")
		}
	}
	if !errors.Is(nestedErr, ErrNestedRun) {
		t.Errorf("nested Run: %v, want ErrNestedRun", nestedErr)
	}
}

// TestRequestSharesConversation: a request's messages share the
// conversation's array, yet what a before_model hook appends reaches only
// that request, and the requests already sent keep their messages while
// the conversation grows.
func TestRequestSharesConversation(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{calls(tc("a", "noop", `{}`)), calls(tc("b", "noop", `{}`)), answer("done")}}
	a := newAgent(t, s)
	a.RegisterTools(goTool("noop", func(context.Context, json.RawMessage) (any, error) { return "ok", nil }))
	if err := a.On(LifecycleHook{Name: "note", Event: BeforeModel, Func: func(_ context.Context, d *LifecycleData) error {
		d.Request.Messages = append(d.Request.Messages, provider.Message{Role: provider.RoleUser, Content: fmt.Sprintf("note %d", d.Turn)})
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{"user,user", "user,assistant,tool,user", "user,assistant,tool,assistant,tool,user"}
	for i, req := range s.seen {
		if got := roles(req.Messages); got != want[i] {
			t.Errorf("request %d: roles %s, want %s", i+1, got, want[i])
		}
		if last := req.Messages[len(req.Messages)-1]; last.Content != fmt.Sprintf("note %d", i+1) {
			t.Errorf("request %d ends with %q, want its own note", i+1, last.Content)
		}
	}
	if got := roles(a.Messages()); got != "user,assistant,tool,assistant,tool,assistant" {
		t.Errorf("conversation roles %s: a hook's note stuck to it", got)
	}
}
