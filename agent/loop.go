package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/telemetry"
)

// Reply is the outcome of Run.
type Reply struct {
	// Text is the model's last text: the final answer, or what it said
	// last when the run stopped early.
	Text string
	// Turns counts the model requests made.
	Turns int
	// ToolCalls counts the tool calls run.
	ToolCalls int
	// Stop says why the run ended: "final" (an answer without tool
	// calls), "max_tokens" (an answer cut off by the model's token limit),
	// "max_turns", "canceled", "budget" (see Exhausted) or "schema"
	// (StopSchema: the answers never validated against the run's schema).
	Stop string
	// Dropped are the tool calls the model had begun when its last answer
	// was cut off by the token limit: they were not run, and are not in the
	// conversation (see provider.Response.Incomplete).
	Dropped []provider.ToolCall
	// Denials are the model's calls that did not run because a policy,
	// the permissions or the person refused them, in call order.
	Denials []Denial
	// Usage sums the token usage of the run's model requests, as the
	// providers reported it.
	Usage provider.Usage
	// Cost is what Usage cost in US dollars by the price table, and
	// CostKnown whether the table priced every request (an unknown model
	// gives usage without cost).
	Cost      float64
	CostKnown bool
	// Data is the final answer decoded as JSON when the run asked for a
	// schema (WithSchema) and the answer validated.
	Data any
	// Violations say what was wrong with the last final answer when it
	// did not validate against the run's schema (Stop "schema").
	Violations []core.Violation
	// Exhausted says, with StopBudget, which budget stopped the run, its
	// limit, what was spent and how to raise it.
	Exhausted string
	// SessionID names the session the conversation is saved in, if any.
	SessionID string
	// AgentID names the agent that ran; ParentID its parent's, for a
	// subagent.
	AgentID  string
	ParentID string
}

// Denial is one refused call of a Reply.
type Denial struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Hook names who refused: a hook, "permissions", "approver", ...
	Hook   string `json:"hook"`
	Reason string `json:"reason"`
	// Agent is the id of the agent whose call it was: a subagent's
	// denials appear in its parent's reply too.
	Agent string `json:"agent,omitempty"`
}

// Stop reasons of a Reply.
const (
	StopFinal     = "final"
	StopMaxTokens = "max_tokens"
	StopMaxTurns  = "max_turns"
	StopCanceled  = "canceled"
	// StopBudget: a budget (tool calls, tokens, cost, wall time) would be
	// exceeded by the next model or tool call, which was not made.
	StopBudget = "budget"
)

// RunOption adjusts one Run.
type RunOption func(*runConfig)

type runConfig struct {
	maxTurns int
	quiet    bool
	schema   *core.Schema // WithSchema: the final answer must validate
	// SchemaAttempts (0: DefaultSchemaAttempts), and the final answers
	// that did not validate so far.
	schemaAttempts, schemaFailures int
}

// MaxTurns bounds this Run's model turns (n <= 0 keeps the agent's bound).
func MaxTurns(n int) RunOption {
	return func(c *runConfig) {
		if n > 0 {
			c.maxTurns = n
		}
	}
}

// WithoutTextEvents keeps this Run's streamed text from the observer: no
// "text" events, for a caller that shows the reply itself. The other
// events are sent as usual, and the provider streams as always, so a
// recording does not depend on it.
func WithoutTextEvents() RunOption { return func(c *runConfig) { c.quiet = true } }

// ErrNestedRun is the error of a Run started from inside a Run of the same
// agent.
var ErrNestedRun = errors.New("the agent is already answering a prompt: ask() from a tool, hook or model function would wait for itself; call it from the top level of the script")

// ErrNoProvider is the error of Run on an agent without a provider.
var ErrNoProvider = errors.New(`no model: choose one with provider("PROVIDER:MODEL") or model(fn) in a script`)

// Run sends prompt and loops until the model answers without tool calls,
// the turn limit is reached, or ctx ends. Cancellation ends the run
// cleanly: every tool call the model made gets a result, so the
// conversation stays usable, and the reply has Stop "canceled" with ctx's
// error. A lifecycle hook that refuses a step ends the run with its error.
//
// An answer cut off by the model's token limit ends the run too, with Stop
// "max_tokens" and the text that arrived: the calls it completed run (each
// call the conversation holds gets its result), the call it was writing
// is dropped, reported in Reply.Dropped and a tool_call_dropped event.
// Asking again would most likely be cut off the same way.
//
// A call whose arguments are not valid JSON gets an invalid_arguments
// result, for the model to correct; the other calls of its turn run.
func (a *Agent) Run(ctx context.Context, prompt string, opts ...RunOption) (_ *Reply, err error) {
	if a.inRun(ctx) {
		return &Reply{}, ErrNestedRun
	}
	select {
	case a.running <- struct{}{}:
	case <-ctx.Done():
		return &Reply{Stop: StopCanceled}, ctx.Err()
	}
	defer func() { <-a.running }()
	defer a.journalEndRun()
	ctx = a.agentContext(ctx) // marks ctx as this Run's (see inRun)
	rc := runConfig{maxTurns: a.cfg.maxTurns}
	for _, o := range opts {
		o(&rc)
	}
	reply := a.newReply()
	defer a.collectChildDenials(ctx, reply)
	p := a.Provider()
	if p == nil {
		return reply, ErrNoProvider
	}
	if tr := a.exec.Tracing(); tr != nil {
		_, model, _ := strings.Cut(a.modelName(p), ":")
		var span trace.Span
		ctx, span = tr.StartAgent(ctx, a.ID(), a.ParentID(), model)
		defer func() { telemetry.End(span, err) }()
	}
	if err := a.startSession(ctx); err != nil {
		return reply, err
	}
	pd := &LifecycleData{Event: UserPrompt, Prompt: prompt}
	if err := a.fire(ctx, pd); err != nil {
		return reply, err
	}
	a.append(provider.Message{Role: provider.RoleUser, Content: pd.Prompt})

	for turn := 1; ; turn++ {
		if turn > rc.maxTurns {
			reply.Stop = StopMaxTurns
			return reply, nil
		}
		if err := ctx.Err(); err != nil {
			reply.Stop = StopCanceled
			return reply, err
		}
		// Budgets and compaction come before the request: a request that
		// would exceed a budget is not made.
		if err := a.beforeRequest(ctx, p, turn, reply); err != nil {
			if errors.Is(err, ErrBudget) {
				reply.Stop = StopBudget
				return reply, nil
			}
			if ctx.Err() != nil { // during compaction's summary request
				reply.Stop = StopCanceled
			}
			return reply, err
		}
		resp, err := a.ask(ctx, p, turn, rc.quiet, reply)
		reply.Turns = turn
		if err != nil {
			if ctx.Err() != nil {
				reply.Stop = StopCanceled
				return reply, fmt.Errorf("%w (%v)", ctx.Err(), err)
			}
			return reply, err
		}
		reply.Text = resp.Content
		cut := resp.CutOff()
		if cut {
			reply.Dropped = append(reply.Dropped, resp.Incomplete...)
		}
		if len(resp.ToolCalls) == 0 {
			reply.Stop = StopFinal
			if cut {
				reply.Stop = StopMaxTokens
			}
			// An answer that does not validate against the run's schema:
			// the model was told why and gets another turn.
			again := !cut && a.checkFinal(&rc, resp, reply)
			if err := a.endTurn(ctx, turn, resp, reply); err != nil {
				return reply, err
			}
			if again {
				continue
			}
			return reply, nil
		}
		reply.ToolCalls += len(resp.ToolCalls)
		denials, exhausted := a.runTools(ctx, turn, resp.ToolCalls)
		reply.Denials = append(reply.Denials, denials...)
		// The subagents' of this turn: one a budget stopped stops this
		// run too, since the budget is shared.
		children, childExhausted := a.childDenials(ctx)
		reply.Denials = append(reply.Denials, children...)
		if err := a.endTurn(ctx, turn, resp, reply); err != nil {
			return reply, err
		}
		if childExhausted != "" && !exhausted {
			// The subagent showed it (budget_exhausted); said once.
			if reply.Exhausted == "" {
				reply.Exhausted = childExhausted
			}
			reply.Stop = StopBudget
			return reply, nil
		}
		if exhausted {
			a.noteExhausted(reply, denials)
			reply.Stop = StopBudget
			return reply, nil
		}
		if cut {
			reply.Stop = StopMaxTokens
			return reply, nil
		}
	}
}

// ask makes one model request: before_model, the request, after_model;
// the answer joins the conversation only if after_model accepts it.
func (a *Agent) ask(ctx context.Context, p provider.Provider, turn int, quiet bool, reply *Reply) (*provider.Response, error) {
	a.mu.Lock()
	// The request shares the conversation's messages, capped so that
	// appending to them copies: a turn costs the same however long the
	// conversation (see LifecycleData.Request).
	n := len(a.messages)
	conv := a.messages[:n:n]
	req := provider.Request{Model: a.cfg.model, Messages: conv}
	a.mu.Unlock()
	req.System = a.systemPrompt()
	req.Tools = a.toolDefs()
	d := &LifecycleData{Event: BeforeModel, Turn: turn, Request: &req}
	if err := a.fire(ctx, d); err != nil {
		return nil, err
	}
	a.emit(Event{Type: "model_request", Turn: turn, Messages: len(req.Messages), Tools: len(req.Tools)})
	var stream func(string)
	if a.cfg.observer != nil {
		stream = func(s string) {
			if !quiet {
				a.emit(Event{Type: "text", Turn: turn, Text: s})
			}
		}
	}
	priced := a.modelName(p) // before the request: a replay's moves on
	resp, err := a.complete(ctx, p, req, stream, priced, turn)
	if err != nil {
		return nil, err
	}
	// Charged as soon as it came: an answer after_model refuses was paid
	// for too.
	a.charge(priced, &resp, reply)
	a.noteUsage(n, resp.Usage) // for the next request's size (window.go)
	a.emit(Event{Type: "model_response", Turn: turn, ToolCalls: len(resp.ToolCalls), StopReason: resp.StopReason,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens})
	if !resp.CutOff() {
		resp.Incomplete = nil // only a cut-off answer has a call it could not finish
	}
	nameCalls(conv, &resp) // every call needs an ID to pair with its result
	d = &LifecycleData{Event: AfterModel, Turn: turn, Request: &req, Response: &resp}
	if err := a.fire(ctx, d); err != nil {
		return nil, err
	}
	for _, ic := range resp.Incomplete {
		a.emit(Event{Type: "tool_call_dropped", Turn: turn, Tool: ic.Name, CallID: ic.ID, StopReason: resp.StopReason,
			Text: fmt.Sprintf("the answer reached the token limit (%s) while the model was writing this call; it was not run", resp.StopReason)})
	}
	a.append(provider.Message{Role: provider.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
	return &resp, nil
}

// runTools runs one turn's tool calls as a batch and adds their results
// to the conversation, in call order. Calls cut short by cancellation
// still get their (canceled) results, so every call is answered. The
// calls are the model's (core.OriginModel): the defaults ask before a tool
// that is not read-only runs. It returns the calls that were refused.
// exhausted reports that a call was refused because a budget would be
// exceeded (the run stops with StopBudget).
func (a *Agent) runTools(ctx context.Context, turn int, tcs []provider.ToolCall) (denials []Denial, exhausted bool) {
	calls := make([]core.Call, len(tcs))
	for i, tc := range tcs {
		calls[i] = core.Call{ID: tc.ID, Name: tc.Name, Args: tc.Args, Origin: core.OriginModel}
		if tc.InvalidArgs != "" {
			// The pipeline answers them with invalid_arguments, saying
			// what is wrong; after hooks see the call.
			calls[i].Args = []byte(tc.InvalidArgs)
		}
	}
	var opts []executor.BatchOption
	if a.cfg.mode != nil {
		opts = append(opts, executor.InMode(*a.cfg.mode))
	}
	if a.cfg.limit > 0 {
		opts = append(opts, executor.WithLimit(a.cfg.limit))
	}
	results := a.executeAll(ctx, calls, opts)
	for i, res := range results {
		msg := provider.Message{Role: provider.RoleTool, ToolCallID: tcs[i].ID, Name: tcs[i].Name, Content: res.ForLLM, Blocks: res.Blocks}
		if !res.OK() {
			msg.Content = fmt.Sprintf("error (%s): %v", res.Kind(), res.Err)
			msg.IsError = true
			msg.Blocks = nil
			if res.Kind() == core.KindRejected {
				denials = append(denials, a.denialOf(res))
				exhausted = exhausted || isBudgetRefusal(res)
			}
			// A refused or failed call is shown to the person too: a denial
			// by a policy must not pass unseen.
			a.emit(Event{Type: "tool_error", Turn: turn, Tool: tcs[i].Name, CallID: tcs[i].ID,
				ErrorKind: string(res.Kind()), Text: res.Err.Error()})
		} else if !res.Silent {
			if shown := res.Display(); shown != "" {
				a.emit(Event{Type: "tool_output", Turn: turn, Tool: tcs[i].Name, CallID: tcs[i].ID, Text: shown})
			}
		}
		a.appendResult(msg, res)
	}
	return denials, exhausted
}

func (a *Agent) denialOf(res *core.Result) Denial {
	d := Denial{CallID: res.CallID, Tool: res.Tool, Reason: res.Err.Error(), Agent: a.ID()}
	var e *core.Error
	if errors.As(res.Err, &e) {
		d.Hook = e.Hook
	}
	return d
}

func (a *Agent) endTurn(ctx context.Context, turn int, resp *provider.Response, reply *Reply) error {
	a.journalTurn(turn, resp)
	a.emit(Event{Type: "turn_end", Turn: turn})
	return a.fire(ctx, &LifecycleData{Event: TurnEnd, Turn: turn, Response: resp, Reply: reply})
}

// append adds m to the conversation (and the session journal).
func (a *Agent) append(m provider.Message) {
	a.mu.Lock()
	a.messages = append(a.messages, m)
	a.mu.Unlock()
	a.journalAppend(m)
}

// replaceConversation replaces the conversation with msgs (compaction,
// resume), recording why in the session journal.
func (a *Agent) replaceConversation(msgs []provider.Message, why string) {
	a.mu.Lock()
	a.messages = msgs
	a.usage = usageBase{} // the last usage no longer describes it
	a.mu.Unlock()
	a.journalReplace(msgs, why)
}
