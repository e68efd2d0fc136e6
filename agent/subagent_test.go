package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// router is a scripted model for a tree of agents: each conversation is
// answered by the steps of its first prompt, turn by turn, so children
// running at once get their own answers whatever the order.
type router struct {
	mu    sync.Mutex
	steps map[string][]func(provider.Request) provider.Response
	seen  map[string][]provider.Request
}

func newRouter() *router {
	return &router{steps: map[string][]func(provider.Request) provider.Response{}, seen: map[string][]provider.Request{}}
}

func (r *router) on(prompt string, steps ...func(provider.Request) provider.Response) *router {
	r.steps[prompt] = steps
	return r
}

func (r *router) requests(prompt string) []provider.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]provider.Request(nil), r.seen[prompt]...)
}

func (r *router) provider() provider.Provider {
	return provider.Func{Label: "router", Fn: func(ctx context.Context, req provider.Request) (provider.Response, error) {
		prompt := req.Messages[0].Content
		r.mu.Lock()
		r.seen[prompt] = append(r.seen[prompt], req)
		n := len(r.seen[prompt])
		steps := r.steps[prompt]
		r.mu.Unlock()
		if n > len(steps) {
			return provider.Response{}, fmt.Errorf("prompt %q has %d steps; request %d is one too many", prompt, len(steps), n)
		}
		return steps[n-1](req), nil
	}}
}

// task is a model's call of the task tool.
func task(id, prompt string, tools ...string) provider.ToolCall {
	args := map[string]any{"prompt": prompt}
	if tools != nil {
		args["tools"] = tools
	}
	b, _ := json.Marshal(args)
	return provider.ToolCall{ID: id, Name: TaskToolName, Args: b}
}

func toolNames(defs []provider.ToolDef) string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	return strings.Join(names, ",")
}

// subagentEnv is an agent with the task tool, read (read-only) and write
// tools, and a log of the calls the executor saw: who made them.
type subagentEnv struct {
	a      *Agent
	r      *router
	mu     sync.Mutex
	log    []string // "tool agent<parent"
	writes atomic.Int32
	after  []string // after hooks: "tool agent kind"
}

func newSubagentEnv(t *testing.T, r *router, opts ...Option) *subagentEnv {
	t.Helper()
	e := &subagentEnv{r: r}
	a, err := New(append([]Option{WithProvider(r.provider()), WithModel("m"), WithValidateArguments(true),
		WithPermissions(executor.PermissionsAllowAll), WithSystemPrompt("Be brief.")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	e.a = a
	read := goTool("read", func(ctx context.Context, args json.RawMessage) (any, error) { return "read ok", nil })
	read.ReadOnly = true
	write := goTool("write", func(ctx context.Context, args json.RawMessage) (any, error) {
		e.writes.Add(1)
		return "wrote", nil
	})
	// outer calls read through the pipeline: a nested call.
	outer := goTool("outer", func(ctx context.Context, args json.RawMessage) (any, error) {
		res, err := a.InvokeTool(ctx, "read", nil)
		if err != nil {
			return nil, err
		}
		return "outer " + res.ForLLM, nil
	})
	if err := a.RegisterTools(read, write, outer, a.TaskTool()); err != nil {
		t.Fatal(err)
	}
	if err := a.Executor().AddBefore(core.BeforeHook{Name: "log", Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
		e.mu.Lock()
		e.log = append(e.log, call.Name+" "+call.Agent+"<"+call.ParentAgent)
		e.mu.Unlock()
		return nil, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Executor().AddAfter(core.AfterHook{Name: "audit", Func: func(ctx context.Context, call *core.Call, res *core.Result) error {
		e.mu.Lock()
		e.after = append(e.after, fmt.Sprintf("%s %s %s", call.Name, res.Agent, res.Kind()))
		e.mu.Unlock()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *subagentEnv) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// TestSubagentIDsOnCalls: every call carries the id of the agent whose
// run made it and of its parent, nested calls too; results, lifecycle
// data and replies name the agent as well; the child answers with the
// parent's provider, model and system prompt, and the parent's model
// reads the child's final answer.
func TestSubagentIDsOnCalls(t *testing.T) {
	r := newRouter().
		on("top", calls(tc("a", "outer", `{}`), task("b", "look")), func(req provider.Request) provider.Response {
			return provider.Response{Content: "parent saw: " + req.Messages[len(req.Messages)-1].Content}
		}).
		on("look", calls(tc("c", "outer", `{}`)), answer("looked"))
	e := newSubagentEnv(t, r)
	var events []string
	var evMu sync.Mutex
	if err := e.a.On(LifecycleHook{Name: "ids", Event: BeforeModel, Func: func(ctx context.Context, d *LifecycleData) error {
		evMu.Lock()
		events = append(events, d.Agent+"<"+d.ParentAgent)
		evMu.Unlock()
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "parent saw: looked" || reply.AgentID != "main" || reply.ParentID != "" {
		t.Errorf("reply %+v", reply)
	}
	want := []string{"outer main<", "read main<", "task main<", "outer main/1<main", "read main/1<main"}
	if got := e.calls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls\n got %q\nwant %q", got, want)
	}
	if got := strings.Join(events, " "); got != "main< main/1<main main/1<main main<" {
		t.Errorf("before_model agents: %s", got)
	}
	child := r.requests("look")
	if len(child) != 2 || child[0].System != "Be brief." || child[0].Model != "m" {
		t.Fatalf("child requests %+v", child)
	}
	// A top-level agent's children may use all its tools but task at
	// the depth limit; main/1 is at depth 1 of 3, so task stays.
	if got := toolNames(child[0].Tools); got != "outer,read,task,write" {
		t.Errorf("child tools %s", got)
	}
	// The parent's conversation holds one task result, not the child's
	// messages.
	if got := roles(e.a.Messages()); got != "user,assistant,tool,tool,assistant" {
		t.Errorf("parent conversation %s", got)
	}
	if e.after[len(e.after)-1] != "task main " {
		t.Errorf("after hooks saw %q", e.after)
	}
}

// TestSubagentToolSubset: a child is shown only its tools, and a call it
// makes to another tool is refused without running, with a reason, a
// decision record and after hooks that see it; the denial reaches the
// parent's reply with the child's id. Tools the parent does not have are
// refused at spawn.
func TestSubagentToolSubset(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t1", "only read", "read")), answer("done")).
		on("only read", calls(tc("w", "write", `{}`), tc("r", "read", `{}`)), answer("child done"))
	e := newSubagentEnv(t, r)
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if e.writes.Load() != 0 {
		t.Fatal("the child's write ran outside its tools")
	}
	if got := toolNames(r.requests("only read")[0].Tools); got != "read" {
		t.Errorf("child shown %s, want read", got)
	}
	if len(reply.Denials) != 1 {
		t.Fatalf("denials %+v", reply.Denials)
	}
	d := reply.Denials[0]
	if d.Agent != "main/1" || d.Tool != "write" || d.Hook != SubagentHook || d.CallID != "w" ||
		!strings.Contains(d.Reason, "subagent main/1 may use only read; write is not one of them") {
		t.Errorf("denial %+v", d)
	}
	// The child's read ran; the refused write was seen by the after hook
	// and by no before hook.
	if got := strings.Join(e.calls(), "|"); got != "task main<|read main/1<main" {
		t.Errorf("calls %s", got)
	}
	if got := strings.Join(e.after, "|"); !strings.Contains(got, "write main/1 rejected") {
		t.Errorf("after hooks saw %s", got)
	}
	msgs := r.requests("only read")[1].Messages
	if m := msgs[2]; !m.IsError || !strings.Contains(m.Content, "may use only read") {
		t.Errorf("the child's model read %+v", m)
	}

	_, err = e.a.Spawn(context.Background(), "x", SubagentOptions{Tools: []string{"read", "nope"}})
	if err == nil || !strings.Contains(err.Error(), `agent main has no tool "nope" to give a subagent; its tools are outer, read, task, write`) {
		t.Errorf("unknown tool: %v", err)
	}
	// A child given no tools is told so, not "may use only none".
	r.on("nothing", calls(tc("r2", "read", `{}`)), answer("nothing done"))
	nothing, err := e.a.Spawn(context.Background(), "nothing", SubagentOptions{Tools: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(nothing.Denials) != 1 || !strings.Contains(nothing.Denials[0].Reason, "subagent main/2 may use no tools; its parent gave it none, so read is refused") {
		t.Errorf("denials of a child without tools: %+v", nothing.Denials)
	}
}

// TestSubagentPolicy: the parent's policies hold for its children — a
// before hook that denies writes to subagents denies the child's call,
// the parent's own write runs, and the parent's reply lists the denial
// under the child's id.
func TestSubagentPolicy(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t1", "write it"), tc("w0", "write", `{}`)), answer("done")).
		on("write it", calls(tc("w1", "write", `{}`)), answer("could not"))
	e := newSubagentEnv(t, r)
	if err := e.a.Executor().AddBefore(core.BeforeHook{Name: "no_sub_writes", Tools: []string{"write"}, Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
		if call.ParentAgent != "" {
			return nil, core.Deny("subagents may not write (" + call.Agent + ")")
		}
		return nil, nil
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if e.writes.Load() != 1 {
		t.Errorf("%d writes, want the parent's only", e.writes.Load())
	}
	want := []Denial{{CallID: "w1", Tool: "write", Hook: "no_sub_writes", Reason: `rejected by "no_sub_writes": subagents may not write (main/1)`, Agent: "main/1"}}
	if fmt.Sprint(reply.Denials) != fmt.Sprint(want) {
		t.Errorf("denials\n got %+v\nwant %+v", reply.Denials, want)
	}
}

// TestSubagentDepth: tasks nest to the depth limit; an agent at the limit
// is not shown task, its call of task is refused, and Spawn from it (or a
// child asking for task at the limit) fails with ErrSubagentLimit.
func TestSubagentDepth(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t", "d1")), answer("top done")).
		on("d1", calls(task("t", "d2")), answer("d1 done")).
		on("d2", calls(task("t", "d3")), answer("d2 done"))
	var starts []string
	e := newSubagentEnv(t, r, WithSubagentLimits(SubagentLimits{MaxDepth: 2}), WithObserver(func(ev Event) {
		if ev.Type == "subagent_start" || ev.Type == "tool_error" {
			starts = append(starts, ev.Type+" "+ev.Agent)
		}
	}))
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(r.requests("d1")[0].Tools); got != "outer,read,task,write" {
		t.Errorf("depth 1 tools %s", got)
	}
	if got := toolNames(r.requests("d2")[0].Tools); got != "outer,read,write" {
		t.Errorf("depth 2 (the limit) tools %s", got)
	}
	if len(reply.Denials) != 1 || reply.Denials[0].Agent != "main/1/1" || reply.Denials[0].Tool != TaskToolName || reply.Denials[0].Hook != SubagentHook {
		t.Errorf("denials %+v", reply.Denials)
	}
	if got := strings.Join(starts, ", "); got != "subagent_start main/1, subagent_start main/1/1, tool_error main/1/1" {
		t.Errorf("events: %s", got)
	}
	if len(r.requests("d3")) != 0 {
		t.Error("a subagent past the depth limit ran")
	}

	// Spawn under an agent at the limit, as a tool running in its run
	// would.
	leaf := e.a.newChild(nil)
	leaf = leaf.newChild(nil)
	_, err = e.a.Spawn(leaf.agentContext(context.Background()), "x", SubagentOptions{})
	if !errors.Is(err, ErrSubagentLimit) || !strings.Contains(err.Error(), "agent main/2/1 is 2 deep, the limit (2)") {
		t.Errorf("spawn at the limit: %v", err)
	}
	_, err = e.a.Spawn(context.Background(), "x", SubagentOptions{Tools: []string{"read"}})
	if err == nil { // fine: main/3 at depth 1 (prompt "x" has no steps)
		t.Error("spawn of an unscripted prompt succeeded")
	}
	mid := e.a.newChild([]string{"read", "task"})
	_, err = e.a.Spawn(mid.agentContext(context.Background()), "x", SubagentOptions{Tools: []string{"task"}})
	if !errors.Is(err, ErrSubagentLimit) || !strings.Contains(err.Error(), "leave task out of its tools") {
		t.Errorf("task at the limit: %v", err)
	}
}

// TestSubagentFanOut: one Run starts at most PerRun children; the next
// task fails with a message the model can act on, and the run goes on.
func TestSubagentFanOut(t *testing.T) {
	r := newRouter().
		on("top", calls(task("a", "c"), task("b", "c"), task("c", "c")), func(req provider.Request) provider.Response {
			var parts []string
			for _, m := range req.Messages[2:] {
				parts = append(parts, m.Content)
			}
			return provider.Response{Content: strings.Join(parts, " | ")}
		}).
		on("c", answer("one"), answer("two"))
	e := newSubagentEnv(t, r, WithSubagentLimits(SubagentLimits{PerRun: 2}))
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	want := "one | two | error (failed): task: subagent limit: this run of agent main has started 2 subagents, its subagents' included, the limit (2); finish with the answers it has, or split the work differently"
	if reply.Text != want {
		t.Errorf("parent read\n%s\nwant\n%s", reply.Text, want)
	}
	// The bound is per Run: the next Run starts afresh.
	r.on("again", calls(task("d", "c2")), answer("ok")).on("c2", answer("three"))
	if err := e.a.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if len(r.requests("c2")) != 1 {
		t.Error("the second Run could not start a child")
	}
}

// TestConcurrentSubagents: children started by one parallel batch run at
// once, at most Concurrent at a time, each on its own conversation; every
// child's denial reaches the parent's reply once, under its own id.
func TestConcurrentSubagents(t *testing.T) {
	const n = 8
	var tcs []provider.ToolCall
	r := newRouter()
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("child %d", i)
		tcs = append(tcs, task(fmt.Sprintf("t%d", i), p))
		r.on(p, calls(tc("w", "write", `{}`), tc("r", "slow", `{}`)), answer("done "+p))
	}
	r.on("top", calls(tcs...), answer("all done"))
	e := newSubagentEnv(t, r, WithExecutionMode(executor.ModeParallel), WithSubagentLimits(SubagentLimits{Concurrent: 3, PerRun: n}))
	var inFlight, most atomic.Int32
	slow := goTool("slow", func(ctx context.Context, args json.RawMessage) (any, error) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		for i := 0; i < 1000; i++ {
			runtime.Gosched()
		}
		return "slow", nil
	})
	slow.ReadOnly = true
	if err := e.a.RegisterTools(slow); err != nil {
		t.Fatal(err)
	}
	if err := e.a.Executor().AddBefore(core.BeforeHook{Name: "no_sub_writes", Tools: []string{"write"}, Func: func(ctx context.Context, call *core.Call) (json.RawMessage, error) {
		if call.ParentAgent != "" {
			return nil, core.Deny("no")
		}
		return nil, nil
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Denials) != n {
		t.Fatalf("%d denials, want %d: %+v", len(reply.Denials), n, reply.Denials)
	}
	var ids []string
	for _, d := range reply.Denials {
		ids = append(ids, d.Agent)
	}
	sort.Strings(ids)
	for i, id := range ids {
		if want := fmt.Sprintf("main/%d", i+1); id != want {
			t.Errorf("denial agents %v, want main/1 to main/%d once each", ids, n)
			break
		}
	}
	if m := most.Load(); m > 3 {
		t.Errorf("%d children ran at once, want at most 3", m)
	}
	for i := 0; i < n; i++ {
		if got := len(r.requests(fmt.Sprintf("child %d", i))); got != 2 {
			t.Errorf("child %d made %d requests, want 2", i, got)
		}
	}
}

// TestCancelParentCancelsChildren: cancelling the parent's Run cancels
// the child running under it: its tool sees the cancellation, and the
// parent stops with StopCanceled.
func TestCancelParentCancelsChildren(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t", "block"))).
		on("block", calls(tc("b", "block", `{}`)))
	e := newSubagentEnv(t, r)
	started := make(chan struct{})
	var sawCancel atomic.Bool
	block := goTool("block", func(ctx context.Context, args json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		sawCancel.Store(true)
		return nil, ctx.Err()
	})
	block.ReadOnly = true
	if err := e.a.RegisterTools(block); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	reply, err := e.a.Run(ctx, "top")
	if !errors.Is(err, context.Canceled) || reply.Stop != StopCanceled {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	if !sawCancel.Load() {
		t.Error("the child's tool did not see the cancellation")
	}
	// The parent's conversation stays usable: the task call got its
	// result.
	msgs := e.a.Messages()
	if last := msgs[len(msgs)-1]; last.Role != provider.RoleTool || last.ToolCallID != "t" || !last.IsError {
		t.Errorf("last message %+v", last)
	}
}

// TestSubagentHookPanics: the parent's lifecycle hooks fire for the
// child; one that panics there refuses the child's request (fail closed),
// the task fails with the panic, and the parent goes on. A before_model
// redaction holds for the child's requests.
func TestSubagentHookPanics(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t", "boom"), task("u", "redact")), func(req provider.Request) provider.Response {
			return provider.Response{Content: req.Messages[2].Content + " | " + req.Messages[3].Content}
		}).
		on("boom", answer("never")).
		on("redact", func(req provider.Request) provider.Response {
			return provider.Response{Content: "system: " + req.System}
		})
	e := newSubagentEnv(t, r)
	if err := e.a.On(LifecycleHook{Name: "hostile", Event: BeforeModel, Func: func(ctx context.Context, d *LifecycleData) error {
		if d.Agent != "main" && d.Request.Messages[0].Content == "boom" {
			panic("hook exploded")
		}
		d.Request.System = strings.ReplaceAll(d.Request.System, "brief", "[redacted]")
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	want := `error (failed): task: subagent main/1: before_model hook "hostile" refused the request: panic: hook exploded | system: Be [redacted].`
	if reply.Text != want {
		t.Errorf("parent read\n%s\nwant\n%s", reply.Text, want)
	}
	if len(r.requests("boom")) != 0 {
		t.Error("the refused request was sent")
	}
}

// TestSubagentEvents: subagent_start and subagent_end name the child and
// its parent; the child's own events carry its id, the parent's none.
func TestSubagentEvents(t *testing.T) {
	r := newRouter().
		on("top", calls(task("t", "look", "read")), answer("done")).
		on("look", calls(tc("r", "read", `{}`)), answer("looked"))
	var got []string
	e := newSubagentEnv(t, r, WithObserver(func(ev Event) {
		got = append(got, fmt.Sprintf("%s:%s<%s:%s:%d:%s", ev.Type, ev.Agent, ev.ParentAgent, ev.Stop, ev.Tools, ev.Text))
	}))
	if _, err := e.a.Run(context.Background(), "top"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"model_request:<::4:", "text:<::0:working", "model_response:<::0:", "subagent_start:main/1<main::1:look",
		"model_request:main/1<main::1:", "model_response:main/1<main::0:", "tool_output:main/1<main::0:read ok", "turn_end:main/1<main::0:",
		"model_request:main/1<main::1:", "model_response:main/1<main::0:", "turn_end:main/1<main::0:",
		"subagent_end:main/1<main:final:0:", "tool_output:<::0:subagent main/1: final after 2 turns, 1 tool calls", "turn_end:<::0:",
		"model_request:<::4:", "text:<::0:done", "model_response:<::0:", "turn_end:<::0:",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
	b, _ := json.Marshal(Event{Type: "subagent_end", Agent: "main/1", ParentAgent: "main", Stop: "final", Turns: 2})
	if string(b) != `{"event":"subagent_end","agent":"main/1","parent_agent":"main","stop":"final","turns":2}` {
		t.Errorf("json %s", b)
	}
}

// TestTaskToolArguments: bad arguments are the model's to correct.
func TestTaskToolArguments(t *testing.T) {
	e := newSubagentEnv(t, newRouter())
	for args, want := range map[string]string{
		`{}`:                               "missing properties: 'prompt'",
		`{"prompt": ""}`:                   "length must be >= 1",
		`{"prompt": "x", "max_turns": 0}`:  "must be >= 1",
		`{"prompt": "x", "tools": "read"}`: "expected array",
		`{"prompt": "x", "extra": 1}`:      "additionalProperties 'extra' not allowed",
	} {
		res, _ := e.a.InvokeTool(context.Background(), TaskToolName, json.RawMessage(args))
		if res.Kind() != core.KindInvalidArguments || !strings.Contains(res.Err.Error(), want) {
			t.Errorf("%s: %v, want invalid_arguments with %q", args, res.Err, want)
		}
	}
	if tool := e.a.GetTool(TaskToolName); tool == nil || !tool.ReadOnly {
		t.Error("task is not registered read-only")
	}
}

// TestSetSubagentLimitsMidRun: limits set while a Run is under way, here
// by tools the model calls between tasks, bound the next child: lowered,
// the next task is refused; raised again, the refused task does not count
// and the next one runs. A subagent reads its top-level agent's limits.
func TestSetSubagentLimitsMidRun(t *testing.T) {
	r := newRouter().
		on("top", calls(task("a", "c")), calls(tc("l", "lower", `{}`)), calls(task("b", "c")),
			calls(tc("r", "raise", `{}`)), calls(task("d", "c")), answer("done")).
		on("c", answer("child"), answer("child again"))
	e := newSubagentEnv(t, r)
	setter := func(name string, perRun int) core.Tool {
		tool := goTool(name, func(ctx context.Context, args json.RawMessage) (any, error) {
			e.a.SetSubagentLimits(SubagentLimits{PerRun: perRun})
			return "set", nil
		})
		tool.ReadOnly = true
		return tool
	}
	if err := e.a.RegisterTools(setter("lower", 1), setter("raise", 2)); err != nil {
		t.Fatal(err)
	}
	if got := e.a.SubagentLimits(); got != (SubagentLimits{MaxDepth: DefaultSubagentDepth, PerRun: DefaultSubagentsPerRun, Concurrent: DefaultConcurrentSubagents}) {
		t.Errorf("default limits %+v", got)
	}
	if _, err := e.a.Run(context.Background(), "top"); err != nil {
		t.Fatal(err)
	}
	if n := len(r.requests("c")); n != 2 {
		t.Errorf("%d children ran, want 2: the first and, after the raise, the third", n)
	}
	last := func(req provider.Request) string { return req.Messages[len(req.Messages)-1].Content }
	tops := r.requests("top")
	if got := last(tops[3]); !strings.Contains(got, "this run of agent main has started 1 subagent, its subagents' included, the limit (1)") {
		t.Errorf("the second task's result: %s", got)
	}
	if got := last(tops[5]); got != "child again" {
		t.Errorf("the third task's result: %s, want the child's answer", got)
	}
	child := e.a.newChild(nil)
	if got := child.SubagentLimits(); got.PerRun != 2 || got.MaxDepth != DefaultSubagentDepth {
		t.Errorf("a child's limits %+v, want its top-level agent's", got)
	}
	child.SetSubagentLimits(SubagentLimits{MaxDepth: 1})
	if got := e.a.SubagentLimits(); got.MaxDepth != 1 || got.PerRun != DefaultSubagentsPerRun {
		t.Errorf("after a child set them, the tree's limits are %+v", got)
	}
}

// TestSubagentShareIsTheTrees: PerRun bounds the subagents of one
// top-level Run with its subagents' own: a tree of tasks that each start
// tasks stops at the share, wherever in the tree the next one is asked.
func TestSubagentShareIsTheTrees(t *testing.T) {
	r := newRouter().
		on("top", calls(task("a", "mid"), task("b", "mid")), answer("top done")).
		on("mid", calls(task("x", "leaf"), task("y", "leaf")), answer("mid done"), answer("mid done")).
		on("leaf", answer("leaf"), answer("leaf"), answer("leaf"))
	var mu sync.Mutex
	var started []string
	e := newSubagentEnv(t, r, WithSubagentLimits(SubagentLimits{PerRun: 3}), WithObserver(func(ev Event) {
		if ev.Type == "subagent_start" {
			mu.Lock()
			started = append(started, ev.Agent)
			mu.Unlock()
		}
	}))
	reply, err := e.a.Run(context.Background(), "top")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(started, " "); got != "main/1 main/1/1 main/1/2" {
		t.Errorf("started %s, want main/1 and its two children: 3 in all", got)
	}
	if reply.Text != "top done" {
		t.Errorf("reply %q", reply.Text)
	}
	results := r.requests("top")[1].Messages
	if last := results[len(results)-1].Content; !strings.Contains(last, "this run of agent main has started 3 subagents, its subagents' included, the limit (3)") {
		t.Errorf("the second task's result: %s", last)
	}
}
