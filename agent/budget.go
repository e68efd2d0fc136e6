package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentsh/agentsh/core"

	"github.com/agentsh/agentsh/provider"
)

// Budgets: what a run may spend, checked before each model request and
// each tool call the model makes. A step that would exceed a limit is not
// made: a model request is refused (the Run stops with StopBudget before
// it), a tool call gets a rejected result from the hook "budget" (it shows
// in Reply.Denials; the Run stops with StopBudget once that turn's results
// are in the conversation).
//
// The checks are the agent's, in Run, not a stage of the executor's
// pipeline: budgets bound agent runs, the model's calls and its
// subagents'. Calls a script makes itself (invoke_tool, agentsh call) are
// not counted.
//
// Tokens and cost are checked with a lower bound of the next request: the
// tokens of the agent's last request, input (cache included) plus output,
// since the next request sends the whole conversation again and the
// conversation only grows; priced at the cheapest of the model's input
// rates. The first request of an agent, and the first after its
// conversation was replaced (compaction, resume, Reset), has a lower bound
// of one token. The bound is deterministic; it holds unless a before_model
// hook shrinks the request. A request it admits may still take the budget
// past its limit, and the next one is then refused.

// ErrBudget is the error of a step refused because a budget would be
// exceeded; a Run ends with StopBudget.
var ErrBudget = errors.New("budget exhausted")

// Prices prices the usage of model requests, for Reply.Cost and the cost
// budget; pricing.Table implements it. Implementations must be safe for
// concurrent use.
type Prices interface {
	// Cost is what u cost on model, named KIND:MODEL as in --model, in US
	// dollars; ok is false when there is no price for the model.
	Cost(model string, u provider.Usage) (usd float64, ok bool)
}

// Limits bound what the runs drawing on a Budget may spend. A zero field
// (or a tool absent from Tools) is no bound.
type Limits struct {
	// ToolCalls bounds the tool calls the model makes (every call the
	// budget admits counts, whatever the policies then decide).
	ToolCalls int
	// Tokens bounds the tokens of all model requests: input, output, cache
	// read and cache write (provider.Usage.Total).
	Tokens int
	// Cost bounds the cost of all model requests in US dollars, by the
	// budget's Prices; a model without a price cannot be kept to it.
	Cost float64
	// Wall bounds the time from the budget's first step (its first
	// admitted model request or tool call).
	Wall time.Duration
	// Tools bounds the calls of single tools, by tool name.
	Tools map[string]ToolLimit
}

// ToolLimit bounds the calls of one tool.
type ToolLimit struct {
	Calls int
}

// Spent is what the runs drawing on a Budget have used.
type Spent struct {
	// ToolCalls counts the admitted tool calls; Tools the same by tool.
	ToolCalls int
	Tools     map[string]int
	// Requests counts the model requests charged; Usage sums their usage.
	Requests int
	Usage    provider.Usage
	// Cost is what the priced requests cost in US dollars; CostKnown says
	// every request was priced.
	Cost      float64
	CostKnown bool
	// Wall is the time since the budget's first step (0 before it).
	Wall time.Duration
}

// Tokens is every token spent (Usage.Total).
func (s Spent) Tokens() int { return s.Usage.Total() }

// Exhaustion describes a limit that the next step would exceed. It is the
// cause of the refusal (errors.Is(e, ErrBudget) holds) and what
// Budget.OnExhausted is asked about.
type Exhaustion struct {
	// Budget names the limit: "tool_calls", "tool" (a limit of Tool's
	// calls), "tokens", "cost" or "wall".
	Budget string
	Tool   string
	// Limit and Spent are the limit and what was spent: a count, US
	// dollars, or seconds for wall. Need is what the refused step needs
	// at least (one call; a request's lower bound; for wall, 0).
	Limit, Spent, Need float64
	// Extend is what a yes to OnExhausted adds to the limit: the limit
	// again, or what the step needs when that is more.
	Extend float64
}

// Error is the refusal: which budget, its limit, what was spent, and how
// to raise it.
func (e *Exhaustion) Error() string {
	var b strings.Builder
	b.WriteString("budget exhausted: ")
	spent, limit, need := e.Amount(e.Spent), e.Amount(e.Limit), e.Amount(e.Need)
	switch e.Budget {
	case "tool_calls", "tool":
		fmt.Fprintf(&b, "%s of %s made", e.Counted(e.Spent), limit)
	case "tokens":
		fmt.Fprintf(&b, "%s of %s spent, and the next request needs at least %s", e.Counted(e.Spent), limit, need)
	case "cost":
		fmt.Fprintf(&b, "%s of %s spent, and the next request costs at least %s", spent, limit, need)
	case "wall":
		fmt.Fprintf(&b, "%s of %s wall time used", spent, limit)
	}
	b.WriteString("; ")
	b.WriteString(e.Raise())
	return b.String()
}

// Raise says how to raise the limit: its config() key (in Go, the
// Limits of NewBudget).
func (e *Exhaustion) Raise() string {
	switch e.Budget {
	case "tool_calls":
		return `raise it with config(budget = {"tool_calls": N})`
	case "tool":
		return fmt.Sprintf(`raise it with config(budget = {"tools": {%q: {"calls": N}}})`, e.Tool)
	case "tokens":
		return `raise it with config(budget = {"tokens": N})`
	case "cost":
		return `raise it with config(budget = {"cost": USD})`
	case "wall":
		return `raise it with config(budget = {"wall": "DURATION"})`
	}
	return "raise it in config(budget = {...})"
}

// What names what the limit counts, for a prompt: "tool calls", "bash
// calls", "tokens", "US dollars", "seconds of wall time".
func (e *Exhaustion) What() string {
	switch e.Budget {
	case "tool_calls":
		return "tool calls"
	case "tool":
		return e.Tool + " calls"
	case "tokens":
		return "tokens"
	case "cost":
		return "US dollars"
	}
	return "seconds of wall time"
}

// Counted renders v with what the limit counts, singular for one: "1 tool
// call", "3 bash calls", "900 tokens"; dollars and wall time as Amount.
func (e *Exhaustion) Counted(v float64) string {
	what := e.What()
	switch e.Budget {
	case "cost", "wall":
		return e.Amount(v)
	}
	if v == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	return e.Amount(v) + " " + what
}

// Amount renders v, an amount of what the limit counts: dollars as $0.50,
// wall time as a duration (10m0s), counts as whole numbers.
func (e *Exhaustion) Amount(v float64) string {
	switch e.Budget {
	case "cost":
		return "$" + Dollars(v)
	case "wall":
		return seconds(v)
	}
	return num(v)
}

// Unwrap makes errors.Is(e, ErrBudget) hold.
func (e *Exhaustion) Unwrap() error { return ErrBudget }

// Dollars renders an amount of US dollars to a millionth, without
// trailing zeros beyond the cents: 0.50, 0.00475, 12.00.
func Dollars(usd float64) string {
	s := strings.TrimRight(strconv.FormatFloat(usd, 'f', 6, 64), "0")
	if i := strings.IndexByte(s, '.'); len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	return s
}

func num(f float64) string { return fmt.Sprintf("%.0f", f) }

func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// Budget is what an agent and its subagents may spend, shared: a child
// agent made with the parent's budget (WithBudget(parent.Budget())) draws
// on it. A Budget is safe for concurrent use; each step is admitted or
// refused atomically, so agents drawing at once never exceed a count limit
// together.
type Budget struct {
	prices Prices

	mu        sync.Mutex // guards the fields below
	limits    Limits
	spent     Spent
	started   time.Time
	now       func() time.Time
	exhausted func(ctx context.Context, e *Exhaustion) bool
}

// NewBudget returns a budget with limits l, pricing requests with p (nil:
// no prices, so usage without cost, and a cost limit cannot be kept).
func NewBudget(l Limits, p Prices) *Budget {
	b := &Budget{prices: p, now: time.Now}
	b.limits = copyLimits(l)
	b.spent.CostKnown = true
	return b
}

func copyLimits(l Limits) Limits {
	if l.Tools != nil {
		tools := make(map[string]ToolLimit, len(l.Tools))
		for k, v := range l.Tools {
			tools[k] = v
		}
		l.Tools = tools
	}
	return l
}

// Prices returns the budget's prices, or nil.
func (b *Budget) Prices() Prices { return b.prices }

// Limits returns a copy of the limits.
func (b *Budget) Limits() Limits {
	b.mu.Lock()
	defer b.mu.Unlock()
	return copyLimits(b.limits)
}

// SetLimits replaces the limits; what was spent stays. A limit below what
// was spent refuses the next step.
func (b *Budget) SetLimits(l Limits) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limits = copyLimits(l)
}

// Spent returns a copy of what was spent.
func (b *Budget) Spent() Spent {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.spent
	if s.Tools != nil {
		tools := make(map[string]int, len(s.Tools))
		for k, v := range s.Tools {
			tools[k] = v
		}
		s.Tools = tools
	}
	if s.Requests == 0 && b.prices == nil {
		s.CostKnown = false
	}
	if !b.started.IsZero() {
		s.Wall = b.now().Sub(b.started)
	}
	return s
}

// SetClock replaces the clock of the wall limit (time.Now), for tests.
func (b *Budget) SetClock(now func() time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.now = now
}

// SetOnExhausted sets who is asked when a step would exceed a limit: fn
// returns true to extend the limit by e.Extend (then the step is checked
// again) or false to refuse it. fn runs without the budget's lock, on the
// goroutine of the refused step, and may be asked by several agents at
// once; a panic in it refuses. Without it (the default, and without a
// terminal) the step is refused.
func (b *Budget) SetOnExhausted(fn func(ctx context.Context, e *Exhaustion) (extend bool)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.exhausted = fn
}

// askExtend asks the OnExhausted hook, and on a yes raises the limit.
func (b *Budget) askExtend(ctx context.Context, e *Exhaustion) bool {
	b.mu.Lock()
	fn := b.exhausted
	b.mu.Unlock()
	if fn == nil || ctx.Err() != nil {
		return false
	}
	yes := func() (yes bool) {
		defer func() {
			if recover() != nil {
				yes = false
			}
		}()
		return fn(ctx, e)
	}()
	if !yes || !(e.Extend > 0) {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e.Budget {
	case "tool_calls":
		b.limits.ToolCalls = addInt(b.limits.ToolCalls, e.Extend)
	case "tool":
		tl := b.limits.Tools[e.Tool]
		tl.Calls = addInt(tl.Calls, e.Extend)
		tools := copyLimits(b.limits).Tools
		tools[e.Tool] = tl
		b.limits.Tools = tools
	case "tokens":
		b.limits.Tokens = addInt(b.limits.Tokens, e.Extend)
	case "cost":
		b.limits.Cost += e.Extend
	case "wall":
		b.limits.Wall += time.Duration(e.Extend * float64(time.Second))
	}
	return true
}

func addInt(n int, f float64) int {
	if f >= float64(math.MaxInt/2) {
		return math.MaxInt / 2
	}
	return n + int(math.Ceil(f))
}

// extension is what a yes adds: the limit again, or the shortfall.
func extension(limit, short float64) float64 { return math.Max(limit, short) }

// wallLocked checks the wall limit and starts the clock at the first step.
func (b *Budget) wallLocked() *Exhaustion {
	if !b.started.IsZero() && b.limits.Wall <= 0 {
		return nil // the clock runs; without a limit nothing to check
	}
	now := b.now()
	if b.started.IsZero() {
		b.started = now
	}
	if b.limits.Wall > 0 {
		if used := now.Sub(b.started); used >= b.limits.Wall {
			lim := b.limits.Wall.Seconds()
			return &Exhaustion{Budget: "wall", Limit: lim, Spent: used.Seconds(), Extend: extension(lim, used.Seconds()-lim)}
		}
	}
	return nil
}

// admitToolCall admits one call of tool, counting it, or refuses it; it
// checks again while the OnExhausted hook extends the limit.
func (b *Budget) admitToolCall(ctx context.Context, tool string) error {
	for {
		b.mu.Lock()
		e := b.toolCallLocked(tool)
		b.mu.Unlock()
		if e == nil {
			return nil
		}
		if !b.askExtend(ctx, e) {
			return e
		}
	}
}

// toolCallLocked counts a call of tool, or says which limit it would
// exceed.
func (b *Budget) toolCallLocked(tool string) *Exhaustion {
	if e := b.wallLocked(); e != nil {
		return e
	}
	if l := b.limits.ToolCalls; l > 0 && b.spent.ToolCalls+1 > l {
		return &Exhaustion{Budget: "tool_calls", Limit: float64(l), Spent: float64(b.spent.ToolCalls), Need: 1,
			Extend: extension(float64(l), float64(b.spent.ToolCalls+1-l))}
	}
	used := b.spent.Tools[tool]
	if l := b.limits.Tools[tool].Calls; l > 0 && used+1 > l {
		return &Exhaustion{Budget: "tool", Tool: tool, Limit: float64(l), Spent: float64(used), Need: 1,
			Extend: extension(float64(l), float64(used+1-l))}
	}
	b.spent.ToolCalls++
	if b.spent.Tools == nil {
		b.spent.Tools = map[string]int{}
	}
	b.spent.Tools[tool] = used + 1
	return nil
}

// CostUnknownError is the error of a request a cost limit cannot be kept
// for: the model has no price in the budget's Prices.
type CostUnknownError struct {
	model string
	limit float64
}

func (e *CostUnknownError) Error() string {
	return fmt.Sprintf("the cost budget ($%s) cannot be kept: the price table has no price for %s; add its price to the price table, or drop the cost limit (config(budget = {\"cost\": ...}))", Dollars(e.limit), e.model)
}

// admitRequest admits a model request on model whose usage will be at
// least est, or refuses it.
func (b *Budget) admitRequest(ctx context.Context, model string, est provider.Usage) error {
	need := max(est.Total(), 1)
	var costNeed float64
	var priced bool
	if b.prices != nil && b.costLimit() > 0 {
		costNeed, priced = lowestCost(b.prices, model, need)
	}
	for {
		b.mu.Lock()
		e := b.requestLocked(need, costNeed, priced)
		b.mu.Unlock()
		if e == nil {
			return nil
		}
		if !b.askExtend(ctx, e) {
			return e
		}
	}
}

func (b *Budget) costLimit() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limits.Cost
}

// requestLocked says which limit a request of at least need tokens
// costing at least costNeed (when priced) would exceed, if any.
func (b *Budget) requestLocked(need int, costNeed float64, priced bool) *Exhaustion {
	if e := b.wallLocked(); e != nil {
		return e
	}
	if l := b.limits.Tokens; l > 0 && b.spent.Usage.Total()+need > l {
		spent := b.spent.Usage.Total()
		return &Exhaustion{Budget: "tokens", Limit: float64(l), Spent: float64(spent), Need: float64(need),
			Extend: extension(float64(l), float64(spent+need-l))}
	}
	if l := b.limits.Cost; l > 0 && priced && b.spent.Cost+costNeed > l {
		return &Exhaustion{Budget: "cost", Limit: l, Spent: b.spent.Cost, Need: costNeed,
			Extend: extension(l, b.spent.Cost+costNeed-l)}
	}
	return nil
}

// lowestCost is the least that tokens input tokens cost on model: at the
// cheapest of its input rates (input, cache read, cache write).
func lowestCost(p Prices, model string, tokens int) (float64, bool) {
	in, ok := p.Cost(model, provider.Usage{InputTokens: tokens})
	if !ok {
		return 0, false
	}
	cr, _ := p.Cost(model, provider.Usage{CacheReadTokens: tokens})
	cw, _ := p.Cost(model, provider.Usage{CacheWriteTokens: tokens})
	return math.Min(in, math.Min(cr, cw)), true
}

// charge counts a request's usage on model, returning its cost.
func (b *Budget) charge(model string, u provider.Usage) (usd float64, known bool) {
	if b.prices != nil {
		usd, known = b.prices.Cost(model, u)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent.Requests++
	b.spent.Usage = b.spent.Usage.Add(u)
	if known {
		b.spent.Cost += usd
	} else {
		b.spent.CostKnown = false
	}
	return usd, known
}

// WithBudget makes the agent draw on b, shared with other agents (its
// subagents); without it an agent has a budget of its own without limits
// or prices.
func WithBudget(b *Budget) Option { return func(c *config) { c.budget = b } }

// Budget returns the budget the agent draws on, for a subagent to share.
func (a *Agent) Budget() *Budget { return a.budget }

// modelName names the model of the next request as KIND:MODEL, for
// prices: the provider's name (the one it answers for, for a replay), with
// its model replaced by WithModel's.
func (a *Agent) modelName(p provider.Provider) string {
	name := provider.Identity(p)
	a.mu.Lock()
	model := a.cfg.model
	a.mu.Unlock()
	if model != "" {
		kind, _, _ := strings.Cut(name, ":")
		name = kind + ":" + model
	}
	return name
}

// admitRequest checks the budgets before a model request.
func (a *Agent) admitRequest(ctx context.Context, p provider.Provider, reply *Reply) error {
	a.mu.Lock()
	last := a.usage
	a.mu.Unlock()
	model := a.modelName(p)
	b := a.budget
	if l := b.costLimit(); l > 0 {
		if b.prices == nil {
			return &CostUnknownError{model: model, limit: l}
		}
		if _, ok := b.prices.Cost(model, provider.Usage{}); !ok {
			return &CostUnknownError{model: model, limit: l}
		}
	}
	// The next request sends at least what the last one read and wrote.
	err := b.admitRequest(ctx, model, provider.Usage{InputTokens: last.tokens + last.output})
	if err != nil {
		a.exhausted(reply, err)
	}
	return err
}

// exhausted records in reply, and shows, why a budget stopped the run.
func (a *Agent) exhausted(reply *Reply, err error) {
	if reply.Exhausted == "" {
		reply.Exhausted = err.Error()
	}
	a.emit(Event{Type: "budget_exhausted", Text: err.Error()})
}

// charge counts the usage of a response of model (modelName's, taken
// before the request) in the reply and the budget.
func (a *Agent) charge(model string, resp *provider.Response, reply *Reply) {
	usd, known := a.budget.charge(model, resp.Usage)
	// Before the reply's first tokens nothing was unpriced: requests
	// without usage cost nothing on any model.
	first := reply.Usage == (provider.Usage{})
	reply.Usage = reply.Usage.Add(resp.Usage)
	reply.Cost += usd
	reply.CostKnown = known && (first || reply.CostKnown)
}

// stageBudget is the stage of the decision record of a call the budget
// refused.
const stageBudget core.Stage = "budget"

// budgetRefusal is the rejected result of a call a budget did not admit.
func budgetRefusal(c core.Call, err error) *core.Result {
	msg := err.Error()
	return &core.Result{
		Err:       &core.Error{Kind: core.KindRejected, Tool: c.Name, CallID: c.ID, Hook: "budget", Message: msg, Err: err},
		Decisions: []core.Decision{{Stage: stageBudget, Hook: "budget", Verdict: core.VerdictDeny, Reason: msg}}}
}

// isBudgetRefusal reports whether a rejected call was refused by a budget.
func isBudgetRefusal(res *core.Result) bool {
	var e *core.Error
	return errors.As(res.Err, &e) && e.Hook == "budget" && e.Kind == core.KindRejected && errors.Is(res.Err, ErrBudget)
}

// noteExhausted records why a turn's refused tool call stopped the run.
func (a *Agent) noteExhausted(reply *Reply, denials []Denial) {
	for _, d := range denials {
		if d.Hook == "budget" {
			a.exhausted(reply, errors.New(d.Reason))
			return
		}
	}
}
