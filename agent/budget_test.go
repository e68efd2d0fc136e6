package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// fakePrices prices "test:m" (the test agents' model) and nothing else,
// in US dollars per million tokens.
type fakePrices struct{}

func (fakePrices) Cost(model string, u provider.Usage) (float64, bool) {
	if model != "test:m" {
		return 0, false
	}
	return (float64(u.InputTokens)*1 + float64(u.OutputTokens)*2 + float64(u.CacheReadTokens)*0.5 + float64(u.CacheWriteTokens)*1.25) / 1e6, true
}

// counted registers tools that count their runs.
func counted(t *testing.T, a *Agent, names ...string) map[string]*atomic.Int64 {
	t.Helper()
	runs := map[string]*atomic.Int64{}
	for _, n := range names {
		c := &atomic.Int64{}
		runs[n] = c
		if err := a.RegisterTools(goTool(n, func(context.Context, json.RawMessage) (any, error) {
			c.Add(1)
			return "ok", nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	return runs
}

func used(u provider.Usage) func(provider.Request) provider.Response {
	return func(provider.Request) provider.Response { return provider.Response{Content: "done", Usage: u} }
}

func callsUsing(u provider.Usage, tcs ...provider.ToolCall) func(provider.Request) provider.Response {
	return func(provider.Request) provider.Response {
		return provider.Response{Content: "working", ToolCalls: tcs, Usage: u}
	}
}

// TestBudgetToolCallsExactLimit: a limit of 3 admits 3 calls; the 4th is
// refused without running, shows as a denial by "budget", gets a result
// in the conversation, and the run stops before another request.
func TestBudgetToolCallsExactLimit(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("c1", "x", `{}`), tc("c2", "x", `{}`)),
		calls(tc("c3", "x", `{}`), tc("c4", "x", `{}`)),
		answer("never asked"),
	}}
	a := newAgent(t, s, WithBudget(NewBudget(Limits{ToolCalls: 3}, nil)))
	runs := counted(t, a, "x")
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if got := runs["x"].Load(); got != 3 {
		t.Errorf("the tool ran %d times, want 3", got)
	}
	if len(s.seen) != 2 {
		t.Errorf("%d model requests, want 2: none after the refusal", len(s.seen))
	}
	if reply.Stop != StopBudget || reply.Turns != 2 || reply.ToolCalls != 4 {
		t.Errorf("reply stop %q turns %d tool calls %d, want budget, 2, 4", reply.Stop, reply.Turns, reply.ToolCalls)
	}
	if len(reply.Denials) != 1 || reply.Denials[0].CallID != "c4" || reply.Denials[0].Hook != "budget" {
		t.Fatalf("denials %+v, want c4 refused by budget", reply.Denials)
	}
	for _, want := range []string{"3 tool calls of 3", `config(budget = {"tool_calls": N})`} {
		if !strings.Contains(reply.Denials[0].Reason, want) || !strings.Contains(reply.Exhausted, want) {
			t.Errorf("refusal %q / exhausted %q lacks %q", reply.Denials[0].Reason, reply.Exhausted, want)
		}
	}
	msgs := a.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != provider.RoleTool || last.ToolCallID != "c4" || !last.IsError || !strings.Contains(last.Content, "budget exhausted") {
		t.Errorf("last message %+v, want c4's refusal", last)
	}
	if sp := a.Budget().Spent(); sp.ToolCalls != 3 || sp.Tools["x"] != 3 {
		t.Errorf("spent %+v, want 3 calls", sp)
	}
}

func TestBudgetPerTool(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("c1", "bash", `{}`), tc("c2", "read", `{}`), tc("c3", "bash", `{}`), tc("c4", "read", `{}`)),
		answer("never asked"),
	}}
	b := NewBudget(Limits{Tools: map[string]ToolLimit{"bash": {Calls: 1}}}, nil)
	a := newAgent(t, s, WithBudget(b), WithExecutionMode(executor.ModeSerial))
	runs := counted(t, a, "bash", "read")
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if runs["bash"].Load() != 1 || runs["read"].Load() != 2 {
		t.Errorf("bash ran %d, read %d; want 1 and 2", runs["bash"].Load(), runs["read"].Load())
	}
	if reply.Stop != StopBudget || len(reply.Denials) != 1 || reply.Denials[0].CallID != "c3" {
		t.Fatalf("reply %+v", reply)
	}
	if r := reply.Denials[0].Reason; !strings.Contains(r, "1 bash call of 1") || !strings.Contains(r, `config(budget = {"tools": {"bash": {"calls": N}}})`) {
		t.Errorf("reason %q", r)
	}
	if sp := b.Spent(); sp.ToolCalls != 3 || sp.Tools["bash"] != 1 || sp.Tools["read"] != 2 {
		t.Errorf("spent %+v", sp)
	}
	// Each refused call is answered, in order, in the conversation.
	var ids []string
	for _, m := range a.Messages() {
		if m.Role == provider.RoleTool {
			ids = append(ids, m.ToolCallID)
		}
	}
	if strings.Join(ids, ",") != "c1,c2,c3,c4" {
		t.Errorf("results %v, want c1..c4 in order", ids)
	}
}

// TestBudgetTokensBeforeRequest: the lower bound of the next request is
// the last one's input plus output; a request it would take past the
// limit is not made.
func TestBudgetTokensBeforeRequest(t *testing.T) {
	u := provider.Usage{InputTokens: 300, OutputTokens: 100, CacheReadTokens: 150, CacheWriteTokens: 50} // 600
	for _, c := range []struct {
		limit, requests int
		stop            string
	}{
		{1199, 1, StopBudget}, // 600 + 600 > 1199
		{1200, 2, StopBudget}, // exactly at the limit: admitted; then 1200+600 > 1200
		{1800, 3, StopFinal},
	} {
		s := &script{steps: []func(provider.Request) provider.Response{
			callsUsing(u, tc("c1", "x", `{}`)), callsUsing(u, tc("c2", "x", `{}`)), used(u),
		}}
		var events []Event
		a := newAgent(t, s, WithBudget(NewBudget(Limits{Tokens: c.limit}, nil)), WithObserver(func(e Event) { events = append(events, e) }))
		counted(t, a, "x")
		reply, err := a.Run(context.Background(), "go")
		if err != nil {
			t.Fatal(err)
		}
		if len(s.seen) != c.requests || reply.Stop != c.stop {
			t.Errorf("limit %d: %d requests, stop %q; want %d, %q", c.limit, len(s.seen), reply.Stop, c.requests, c.stop)
		}
		if reply.Usage != (provider.Usage{InputTokens: 300 * c.requests, OutputTokens: 100 * c.requests, CacheReadTokens: 150 * c.requests, CacheWriteTokens: 50 * c.requests}) {
			t.Errorf("limit %d: usage %+v", c.limit, reply.Usage)
		}
		if c.stop == StopBudget {
			want := fmt.Sprintf("%d tokens of %d spent, and the next request needs at least 600", 600*c.requests, c.limit)
			if !strings.Contains(reply.Exhausted, want) || !strings.Contains(reply.Exhausted, `config(budget = {"tokens": N})`) || strings.Contains(reply.Exhausted, "--") {
				t.Errorf("limit %d: exhausted %q, want %q", c.limit, reply.Exhausted, want)
			}
			if last := events[len(events)-1]; last.Type != "budget_exhausted" || last.Text != reply.Exhausted {
				t.Errorf("limit %d: last event %+v", c.limit, last)
			}
		}
	}
}

func TestBudgetCost(t *testing.T) {
	// 1000 input at $1/M, 500 output at $2/M: $0.002 a request; the next
	// is bounded below by 1500 tokens at the cheapest input rate, $0.5/M.
	u := provider.Usage{InputTokens: 1000, OutputTokens: 500}
	s := &script{steps: []func(provider.Request) provider.Response{
		callsUsing(u, tc("c1", "x", `{}`)), callsUsing(u, tc("c2", "x", `{}`)), used(u),
	}}
	b := NewBudget(Limits{Cost: 0.00475}, fakePrices{})
	a := newAgent(t, s, WithBudget(b))
	counted(t, a, "x")
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	// After two requests $0.004 is spent; the third needs at least
	// $0.00075: $0.00475 is not exceeded, so it is made.
	if len(s.seen) != 3 || reply.Stop != StopFinal {
		t.Fatalf("%d requests, stop %q", len(s.seen), reply.Stop)
	}
	if !reply.CostKnown || fmt.Sprintf("%.6f", reply.Cost) != "0.006000" {
		t.Errorf("cost %v known %v, want 0.006", reply.Cost, reply.CostKnown)
	}
	// A second run on the same budget: $0.006 + $0.00075 > $0.00475.
	s.steps = append(s.steps, used(u))
	reply, err = a.Run(context.Background(), "again")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.seen) != 3 || reply.Stop != StopBudget || reply.Turns != 0 {
		t.Errorf("%d requests, stop %q turns %d; want the request refused", len(s.seen), reply.Stop, reply.Turns)
	}
	if !strings.Contains(reply.Exhausted, "$0.006 of $0.00475 spent, and the next request costs at least $0.00075") || !strings.Contains(reply.Exhausted, `config(budget = {"cost": USD})`) || strings.Contains(reply.Exhausted, "--") {
		t.Errorf("exhausted %q", reply.Exhausted)
	}
	if sp := b.Spent(); sp.Requests != 3 || !sp.CostKnown || sp.Tokens() != 4500 {
		t.Errorf("spent %+v", sp)
	}
}

func TestBudgetCostUnknownModel(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{used(provider.Usage{InputTokens: 10})}}
	// Without a cost limit: usage without cost.
	a := newAgent(t, s, WithModel("other"), WithBudget(NewBudget(Limits{}, fakePrices{})))
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if reply.CostKnown || reply.Cost != 0 || reply.Usage.InputTokens != 10 {
		t.Errorf("reply cost %v known %v usage %+v", reply.Cost, reply.CostKnown, reply.Usage)
	}
	if sp := a.Budget().Spent(); sp.CostKnown {
		t.Errorf("spent %+v, want the cost unknown", sp)
	}
	// With one: the request is not made, and the error says what to do.
	s2 := &script{steps: []func(provider.Request) provider.Response{answer("never")}}
	a2 := newAgent(t, s2, WithModel("other"), WithBudget(NewBudget(Limits{Cost: 1}, fakePrices{})))
	_, err = a2.Run(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), "no price for test:other") || !strings.Contains(err.Error(), "price table") || strings.Contains(err.Error(), "--") || !errors.As(err, new(*CostUnknownError)) {
		t.Errorf("got %v", err)
	}
	if len(s2.seen) != 0 {
		t.Error("the provider was called")
	}
	// No prices at all.
	a3 := newAgent(t, s2, WithBudget(NewBudget(Limits{Cost: 1}, nil)))
	if _, err := a3.Run(context.Background(), "go"); err == nil || len(s2.seen) != 0 {
		t.Errorf("got %v with %d requests", err, len(s2.seen))
	}
}

// fakeClock advances by step at each reading.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func TestBudgetWall(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("c1", "x", `{}`), tc("c2", "x", `{}`), tc("c3", "x", `{}`)),
		answer("never asked"),
	}}
	b := NewBudget(Limits{Wall: 3 * time.Minute}, nil)
	// Each check reads the clock once: the request starts it at 1m, the
	// calls see 2m, 3m and 4m elapsed... from the start: 1m, 2m, 3m.
	b.SetClock((&fakeClock{t: time.Unix(0, 0), step: time.Minute}).now)
	a := newAgent(t, s, WithBudget(b), WithExecutionMode(executor.ModeSerial))
	runs := counted(t, a, "x")
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if runs["x"].Load() != 2 || reply.Stop != StopBudget || len(reply.Denials) != 1 || reply.Denials[0].CallID != "c3" {
		t.Fatalf("ran %d, reply %+v", runs["x"].Load(), reply)
	}
	if r := reply.Denials[0].Reason; !strings.Contains(r, "3m0s of 3m0s wall time used") || !strings.Contains(r, `config(budget = {"wall": "DURATION"})`) || strings.Contains(r, "--") {
		t.Errorf("reason %q", r)
	}
}

func TestBudgetExtend(t *testing.T) {
	s := &script{steps: []func(provider.Request) provider.Response{
		calls(tc("c1", "x", `{}`), tc("c2", "x", `{}`), tc("c3", "x", `{}`)),
		answer("done"),
	}}
	b := NewBudget(Limits{ToolCalls: 1}, nil)
	var asked []string
	b.SetOnExhausted(func(ctx context.Context, e *Exhaustion) bool {
		asked = append(asked, fmt.Sprintf("%s %v/%v +%v", e.What(), e.Spent, e.Limit, e.Extend))
		return true
	})
	a := newAgent(t, s, WithBudget(b), WithExecutionMode(executor.ModeSerial))
	runs := counted(t, a, "x")
	reply, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if runs["x"].Load() != 3 || reply.Stop != StopFinal {
		t.Errorf("ran %d, stop %q", runs["x"].Load(), reply.Stop)
	}
	// 1 of 1: extended by 1 to 2; 2 of 2: by 2 to 4.
	if strings.Join(asked, "; ") != "tool calls 1/1 +1; tool calls 2/2 +2" || b.Limits().ToolCalls != 4 {
		t.Errorf("asked %q, limit %d", asked, b.Limits().ToolCalls)
	}
	// A no, a panic and a canceled context refuse.
	for name, fn := range map[string]func(context.Context, *Exhaustion) bool{
		"no":    func(context.Context, *Exhaustion) bool { return false },
		"panic": func(context.Context, *Exhaustion) bool { panic("hook") },
	} {
		b := NewBudget(Limits{ToolCalls: 1}, nil)
		b.SetOnExhausted(fn)
		b.admitToolCall(context.Background(), "x")
		if err := b.admitToolCall(context.Background(), "x"); !errors.Is(err, ErrBudget) {
			t.Errorf("%s: got %v", name, err)
		}
		if b.Limits().ToolCalls != 1 {
			t.Errorf("%s: limit changed to %d", name, b.Limits().ToolCalls)
		}
	}
	b = NewBudget(Limits{ToolCalls: 1}, nil)
	b.SetOnExhausted(func(context.Context, *Exhaustion) bool { t.Error("asked with a canceled context"); return true })
	b.admitToolCall(context.Background(), "x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.admitToolCall(ctx, "x"); !errors.Is(err, ErrBudget) {
		t.Errorf("canceled: got %v", err)
	}
}

// TestBudgetSharedConcurrently: two agents drawing on one budget at once
// never exceed it together, and no draw is lost or counted twice.
func TestBudgetSharedConcurrently(t *testing.T) {
	const perTurn, limit = 10, 25
	b := NewBudget(Limits{ToolCalls: limit}, fakePrices{})
	var total atomic.Int64
	var wg sync.WaitGroup
	replies := make([]*Reply, 2)
	for i := range replies {
		var tcs []provider.ToolCall
		for j := 0; j < perTurn; j++ {
			tcs = append(tcs, tc(fmt.Sprintf("a%d_%d", i, j), "x", `{}`))
		}
		u := provider.Usage{InputTokens: 7, OutputTokens: 3}
		s := &script{steps: []func(provider.Request) provider.Response{callsUsing(u, tcs...), callsUsing(u, tcs...), callsUsing(u, tcs...), used(u)}}
		a := newAgent(t, s, WithBudget(b), WithExecutionMode(executor.ModeParallel))
		if err := a.RegisterTools(goTool("x", func(context.Context, json.RawMessage) (any, error) {
			total.Add(1)
			return "ok", nil
		})); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r, err := a.Run(context.Background(), "go")
			if err != nil {
				t.Error(err)
			}
			replies[i] = r
		}(i)
	}
	wg.Wait()
	if total.Load() != limit {
		t.Errorf("the tools ran %d times, want %d", total.Load(), limit)
	}
	sp := b.Spent()
	var denied, requests int
	for _, r := range replies {
		denied += len(r.Denials)
		requests += r.Turns
		if r.Stop != StopBudget {
			t.Errorf("stop %q", r.Stop)
		}
	}
	if sp.ToolCalls != limit || denied+limit != requests*perTurn {
		t.Errorf("spent %d calls, %d denied of %d made", sp.ToolCalls, denied, requests*perTurn)
	}
	if sp.Requests != requests || sp.Usage != (provider.Usage{InputTokens: 7 * requests, OutputTokens: 3 * requests}) {
		t.Errorf("spent %+v for %d requests", sp, requests)
	}
}

func TestBudgetConcurrentDraws(t *testing.T) {
	b := NewBudget(Limits{ToolCalls: 1100, Tools: map[string]ToolLimit{"y": {Calls: 300}}}, fakePrices{})
	var ok, okY atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				tool := "x"
				if i%2 == 0 {
					tool = "y"
				}
				if b.admitToolCall(context.Background(), tool) == nil {
					ok.Add(1)
					if tool == "y" {
						okY.Add(1)
					}
				}
				b.charge("test:m", provider.Usage{InputTokens: 1, OutputTokens: 1})
			}
		}(g)
	}
	wg.Wait()
	sp := b.Spent()
	if ok.Load() != 1100 || okY.Load() != 300 || sp.ToolCalls != int(ok.Load()) || sp.Tools["y"] != 300 {
		t.Errorf("admitted %d (y %d), spent %+v", ok.Load(), okY.Load(), sp)
	}
	if sp.Requests != 1600 || sp.Usage.Total() != 3200 || fmt.Sprintf("%.6f", sp.Cost) != "0.004800" {
		t.Errorf("spent %+v", sp)
	}
	// One more of either is refused.
	if b.admitToolCall(context.Background(), "x") == nil || b.admitToolCall(context.Background(), "y") == nil {
		t.Error("a draw past the limit was admitted")
	}
}

func TestDollars(t *testing.T) {
	for in, want := range map[float64]string{0.5: "0.50", 0.00475: "0.00475", 12: "12.00", 0.004800000000000079: "0.0048", 0: "0.00", 1.23456789: "1.234568"} {
		if got := Dollars(in); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestIsBudgetRefusal(t *testing.T) {
	// A hook that calls itself "budget" is not the budget.
	spoof := &core.Result{Err: &core.Error{Kind: core.KindRejected, Hook: "budget", Message: "budget exhausted"}}
	if isBudgetRefusal(spoof) {
		t.Error("a rejection by a hook named budget stops the run")
	}
	real := &core.Result{Err: &core.Error{Kind: core.KindRejected, Hook: "budget", Err: &Exhaustion{Budget: "tool_calls"}}}
	if !isBudgetRefusal(real) || isBudgetRefusal(&core.Result{}) {
		t.Error("isBudgetRefusal")
	}
}

func TestBudgetLimitsAreCopies(t *testing.T) {
	tools := map[string]ToolLimit{"bash": {Calls: 1}}
	b := NewBudget(Limits{Tools: tools}, nil)
	tools["bash"] = ToolLimit{Calls: 100}
	l := b.Limits()
	l.Tools["bash"] = ToolLimit{Calls: 50}
	if b.Limits().Tools["bash"].Calls != 1 {
		t.Error("the budget shares its caller's map")
	}
	// Lowering a limit below what was spent refuses the next step.
	b.SetLimits(Limits{ToolCalls: 5})
	for i := 0; i < 5; i++ {
		b.admitToolCall(context.Background(), "x")
	}
	b.SetLimits(Limits{ToolCalls: 2})
	if err := b.admitToolCall(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "5 tool calls of 2") {
		t.Errorf("got %v", err)
	}
}

// TestBudgetBoundAfterReplace: a replaced conversation (compaction,
// resume) is no longer bounded below by the last request.
func TestBudgetBoundAfterReplace(t *testing.T) {
	u := provider.Usage{InputTokens: 500, OutputTokens: 100}
	s := &script{steps: []func(provider.Request) provider.Response{used(u), used(provider.Usage{InputTokens: 10}), used(u)}}
	a := newAgent(t, s, WithBudget(NewBudget(Limits{Tokens: 1000}, nil)))
	if r, err := a.Run(context.Background(), "one"); err != nil || r.Stop != StopFinal {
		t.Fatalf("%v %+v", err, r)
	}
	a.replaceConversation(nil, "compact")
	// 600 spent; the bound is 1 token now, not 600.
	if r, err := a.Run(context.Background(), "two"); err != nil || r.Stop != StopFinal {
		t.Fatalf("after the replace: %v %+v", err, r)
	}
	// 610 spent, the last request 10: the bound is 10 again.
	if r, err := a.Run(context.Background(), "three"); err != nil || r.Stop != StopFinal || len(s.seen) != 3 {
		t.Fatalf("%v %+v", err, r)
	}
	// 1210 spent: refused.
	if r, _ := a.Run(context.Background(), "four"); r.Stop != StopBudget || len(s.seen) != 3 {
		t.Errorf("stop %q after %d requests", r.Stop, len(s.seen))
	}
}

// An exhausted count reads as English: one call, two calls.
func TestExhaustionCounts(t *testing.T) {
	for _, c := range []struct {
		e    Exhaustion
		want string
	}{
		{Exhaustion{Budget: "tool_calls", Limit: 1, Spent: 1, Need: 1}, "budget exhausted: 1 tool call of 1 made;"},
		{Exhaustion{Budget: "tool_calls", Limit: 2, Spent: 2, Need: 1}, "budget exhausted: 2 tool calls of 2 made;"},
		{Exhaustion{Budget: "tool_calls", Limit: 0, Spent: 0, Need: 1}, "budget exhausted: 0 tool calls of 0 made;"},
		{Exhaustion{Budget: "tool", Tool: "bash", Limit: 1, Spent: 1, Need: 1}, "budget exhausted: 1 bash call of 1 made;"},
		{Exhaustion{Budget: "tool", Tool: "bash", Limit: 3, Spent: 3, Need: 1}, "budget exhausted: 3 bash calls of 3 made;"},
		{Exhaustion{Budget: "tokens", Limit: 1, Spent: 1, Need: 1}, "budget exhausted: 1 token of 1 spent, and the next request needs at least 1;"},
		{Exhaustion{Budget: "tokens", Limit: 10, Spent: 9, Need: 2}, "budget exhausted: 9 tokens of 10 spent, and the next request needs at least 2;"},
	} {
		if got := c.e.Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("got %q\nwant it to start %q", got, c.want)
		}
	}
}
