package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// Subagents: an agent's identity, and the children it runs.
//
// Every agent has an id: a top-level agent is MainAgentID, a subagent is
// its parent's id, a slash and its number among the parent's children
// ("main/1", "main/1/2"), counted from 1 in the order they are spawned,
// so a run under a scripted model names them the same way every time. (A
// batch run in parallel mode starts its task calls in an order the
// scheduler picks; serial and mixed modes start them in call order.)
//
// A child runs on the parent's executor — the same registry, hooks,
// middleware, policies, approvals and session state — with the parent's
// provider, model, system prompt and extensions' prompt sections. The
// parent's lifecycle hooks fire for the child too (LifecycleData.Agent
// names it), every event: a before_model redaction holds for children,
// and a child's conversation is a session of its own, from session_start
// at its first request to session_end when it ends. Its tool calls are
// the model's (core.OriginModel) and carry its id (core.Call.Agent), so a
// policy can tell them from the parent's: on a call, call.agent and
// call.parent_agent in scripts.

// MainAgentID is the id of a top-level agent, the one the executor gives
// any model's call made outside an agent's run (an MCP client's, a hook's).
const MainAgentID = executor.TopAgent

// The default bounds of SubagentLimits.
const (
	DefaultSubagentDepth       = 3 // subagents of subagents of subagents
	DefaultSubagentsPerRun     = 8 // children one Run may start
	DefaultConcurrentSubagents = 4 // children of one agent running at once
)

// SubagentLimits bounds the subagents of an agent and of its descendants;
// a zero field is its default.
type SubagentLimits struct {
	// MaxDepth is how deep subagents nest: a top-level agent is depth 0,
	// its children 1. An agent at MaxDepth cannot spawn; its default
	// tools leave out task.
	MaxDepth int
	// PerRun bounds the subagents one Run of a top-level agent starts,
	// its subagents' subagents included.
	PerRun int
	// Concurrent bounds the children of one agent running at once; more
	// wait for a slot (or their context).
	Concurrent int
}

func (l SubagentLimits) withDefaults() SubagentLimits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultSubagentDepth
	}
	if l.PerRun <= 0 {
		l.PerRun = DefaultSubagentsPerRun
	}
	if l.Concurrent <= 0 {
		l.Concurrent = DefaultConcurrentSubagents
	}
	return l
}

// WithSubagentLimits bounds the agent's subagents (see SubagentLimits);
// its children inherit the bounds.
func WithSubagentLimits(l SubagentLimits) Option { return func(c *config) { c.subagents = l } }

// SubagentLimits returns the bounds on the agent's subagents, defaults
// filled in. A subagent's are its top-level agent's.
func (a *Agent) SubagentLimits() SubagentLimits {
	r := a.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg.subagents.withDefaults()
}

// SetSubagentLimits replaces the bounds on the subagents of a's tree (a
// zero field is its default). They apply to the next subagent started,
// also by a Run under way; children already running go on. It is safe
// for concurrent use.
func (a *Agent) SetSubagentLimits(l SubagentLimits) {
	r := a.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.subagents = l
}

// SubagentOptions adjusts one Spawn; the zero value is the default.
type SubagentOptions struct {
	// Tools names the tools the child may use, a subset of its parent's;
	// nil means all of the parent's (without task for a child at the depth
	// limit). The child's model is shown only these, and a call it makes
	// to any other tool is refused (rejected, hook "subagent").
	Tools []string
	// MaxTurns bounds the child's model turns; 0 means its parent's bound.
	MaxTurns int
}

// subagent is an agent's place in its tree.
type subagent struct {
	id, parent string
	depth      int
	up         *Agent // the parent; nil for a top-level agent
	// tools is the sorted subset a child may use, and allowed the same as
	// a set; nil for a top-level agent, which may use every tool.
	tools   []string
	allowed map[string]bool

	spawned atomic.Int64 // children spawned so far, for their ids

	running slots // the children running at once; see SubagentLimits.Concurrent

	// observe serializes the events of the tree's agents: children
	// running at once report from their own goroutines, and so does the
	// top-level agent about them. Made by New and shared by the tree.
	// observer is the top-level agent's observer, which every child's
	// wraps (taking observe itself).
	observe  *sync.Mutex
	observer func(Event)
}

// ID names the agent in hook calls, decision records and replies:
// MainAgentID for a top-level agent, "main/1" for its first child, and so
// on.
func (a *Agent) ID() string {
	if a.sub.id == "" {
		return MainAgentID
	}
	return a.sub.id
}

// ParentID names the agent's parent, or "" for a top-level agent.
func (a *Agent) ParentID() string { return a.sub.parent }

// Depth is 0 for a top-level agent, 1 for its children, and so on.
func (a *Agent) Depth() int { return a.sub.depth }

// runState is what one Run shares with the calls made under it: who runs,
// the Run it runs under (a subagent's parent's; nil at the top), the
// children it started, and their denials, which join its reply.
type runState struct {
	agent    *Agent
	up       *runState
	children atomic.Int64

	mu      sync.Mutex
	denials []Denial
	// exhausted is the Exhausted of the first child a budget stopped:
	// the budget is shared, so it stops this Run too.
	exhausted string
}

type runStateKey struct{}

// top is the Run of rs's top-level agent that rs runs under: where the
// tree's subagents are counted. nil for nil.
func (rs *runState) top() *runState {
	if rs == nil {
		return nil
	}
	root := rs.agent.root()
	for rs.up != nil && rs.up.agent.root() == root {
		rs = rs.up
	}
	return rs
}

func runOf(ctx context.Context) *runState {
	rs, _ := ctx.Value(runStateKey{}).(*runState)
	return rs
}

// agentContext marks ctx as this agent's, for the calls it makes: the
// executor gives them the agent's id (core.WithAgent), and a spawn under
// it counts as this Run's child.
func (a *Agent) agentContext(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, runStateKey{}, &runState{agent: a, up: runOf(ctx)})
	return core.WithAgent(ctx, a.ID(), a.ParentID())
}

// inRun reports whether ctx is under a Run (or Compact) of a, however
// deep: a Run started there would wait for itself.
func (a *Agent) inRun(ctx context.Context) bool {
	for rs := runOf(ctx); rs != nil; rs = rs.up {
		if rs.agent == a {
			return true
		}
	}
	return false
}

// childDenials takes the denials of the children this Run started that
// ended since the last take, and the Exhausted of the first a budget
// stopped ("" for none).
func (a *Agent) childDenials(ctx context.Context) (denials []Denial, exhausted string) {
	rs := runOf(ctx)
	if rs == nil || rs.agent != a {
		return nil, ""
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	denials, exhausted = rs.denials, rs.exhausted
	rs.denials, rs.exhausted = nil, ""
	return denials, exhausted
}

// collectChildDenials adds to reply the children's denials not taken yet
// (children a lifecycle hook started, say); Run defers it.
func (a *Agent) collectChildDenials(ctx context.Context, reply *Reply) {
	denials, _ := a.childDenials(ctx)
	reply.Denials = append(reply.Denials, denials...)
}

// mayUse reports whether the agent may use the tool called name.
func (a *Agent) mayUse(name string) bool { return a.sub.allowed == nil || a.sub.allowed[name] }

// toolSet is the tools the agent may use, sorted.
func (a *Agent) toolSet() []string {
	if a.sub.allowed != nil {
		return a.sub.tools
	}
	names := a.exec.Registry().ToolNames()
	sort.Strings(names)
	return names
}

// ErrSubagentLimit is wrapped by the error of a Spawn refused by a bound
// of SubagentLimits.
var ErrSubagentLimit = errors.New("subagent limit")

// Spawn runs prompt in a child agent with a conversation of its own and
// returns its reply (Reply.AgentID is the child's). The child's denials
// are in its reply and, when ctx is a Run's, in that Run's reply too.
//
// The parent is the agent whose Run ctx belongs to when that is a or one
// of its descendants (a tool the model called, a hook), else a; so a
// spawn from inside a subagent's run nests, and counts toward the depth.
// Spawn fails (ErrSubagentLimit) at the depth limit, when the Run has
// started its share of children, and for a tool the parent may not use.
// Cancelling ctx cancels the child. Spawn is safe for concurrent use.
func (a *Agent) Spawn(ctx context.Context, prompt string, opts SubagentOptions) (*Reply, error) {
	parent, rs := a, runOf(ctx)
	if rs != nil && rs.agent.root() == a.root() {
		parent = rs.agent
	} else {
		rs = nil // a Run of another agent: its reply is not ours to add to
	}
	return parent.spawn(ctx, rs, prompt, opts)
}

func (a *Agent) root() *Agent {
	for a.sub.up != nil {
		a = a.sub.up
	}
	return a
}

func (a *Agent) spawn(ctx context.Context, rs *runState, prompt string, opts SubagentOptions) (*Reply, error) {
	lim := a.SubagentLimits()
	if a.sub.depth >= lim.MaxDepth {
		return &Reply{AgentID: a.ID()}, fmt.Errorf("%w: agent %s is %d deep, the limit (%d): it cannot start a subagent; do this part of the work itself",
			ErrSubagentLimit, a.ID(), a.sub.depth, lim.MaxDepth)
	}
	tools, err := a.childTools(opts.Tools, a.sub.depth+1 >= lim.MaxDepth)
	if err != nil {
		return &Reply{AgentID: a.ID()}, err
	}
	// The share is the top-level Run's, its subagents' spawns included,
	// so that a tree of them stays as small as PerRun says. Only the
	// children let through count, so a share raised after a refusal
	// admits as many more as it says.
	top := rs.top()
	for top != nil {
		n := top.children.Load()
		if n >= int64(lim.PerRun) {
			noun := "subagents"
			if n == 1 {
				noun = "subagent"
			}
			return &Reply{AgentID: a.ID()}, fmt.Errorf("%w: this run of agent %s has started %d %s, its subagents' included, the limit (%d); finish with the answers it has, or split the work differently",
				ErrSubagentLimit, top.agent.ID(), n, noun, lim.PerRun)
		}
		if top.children.CompareAndSwap(n, n+1) {
			break
		}
	}
	concurrent := func() int { return a.SubagentLimits().Concurrent }
	if err := a.sub.running.acquire(ctx, concurrent); err != nil {
		if top != nil {
			top.children.Add(-1) // never started
		}
		return &Reply{Stop: StopCanceled, AgentID: a.ID()}, err
	}
	defer a.sub.running.release(concurrent)

	child := a.newChild(tools)
	a.emit(Event{Type: "subagent_start", Agent: child.ID(), ParentAgent: a.ID(), Tools: len(tools), Text: prompt})
	reply, err := child.Run(ctx, prompt, MaxTurns(opts.MaxTurns), WithoutTextEvents())
	err = errors.Join(err, child.Close())
	end := Event{Type: "subagent_end", Agent: child.ID(), ParentAgent: a.ID(), Stop: reply.Stop, Turns: reply.Turns}
	if err != nil {
		end.Text = err.Error()
	}
	a.emit(end)
	if rs != nil && (len(reply.Denials) > 0 || reply.Stop == StopBudget) {
		rs.mu.Lock()
		rs.denials = append(rs.denials, reply.Denials...)
		if reply.Stop == StopBudget && rs.exhausted == "" {
			rs.exhausted = reply.Exhausted
		}
		rs.mu.Unlock()
	}
	if err != nil {
		return reply, fmt.Errorf("subagent %s: %w", child.ID(), err)
	}
	return reply, nil
}

// childTools checks a child's tools against the parent's: nil asks for
// all of them (without task at the depth limit).
func (a *Agent) childTools(want []string, atLimit bool) ([]string, error) {
	have := a.toolSet()
	if want == nil {
		out := make([]string, 0, len(have))
		for _, n := range have {
			if !(atLimit && n == TaskToolName) {
				out = append(out, n)
			}
		}
		return out, nil
	}
	out := make([]string, 0, len(want))
	seen := map[string]bool{}
	for _, n := range want {
		if seen[n] {
			continue
		}
		seen[n] = true
		i := sort.SearchStrings(have, n)
		if i == len(have) || have[i] != n {
			return nil, fmt.Errorf("agent %s has no tool %q to give a subagent; its tools are %s", a.ID(), n, nameList(have))
		}
		if atLimit && n == TaskToolName {
			return nil, fmt.Errorf("%w: a subagent of agent %s would be at the depth limit and cannot start subagents; leave %s out of its tools",
				ErrSubagentLimit, a.ID(), TaskToolName)
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// newChild makes a child of a that may use tools.
func (a *Agent) newChild(tools []string) *Agent {
	n := a.sub.spawned.Add(1)
	// The child draws on its parent's budget: a run and all its
	// subagents spend one budget.
	c := &Agent{cfg: a.childConfig(), exec: a.exec, running: make(chan struct{}, 1), budget: a.budget}
	c.sub.id = a.ID() + "/" + strconv.FormatInt(n, 10)
	c.sub.parent = a.ID()
	c.sub.depth = a.sub.depth + 1
	c.sub.up = a
	c.sub.tools = tools
	c.sub.allowed = make(map[string]bool, len(tools))
	for _, t := range tools {
		c.sub.allowed[t] = true
	}
	a.mu.Lock()
	c.sub.observe = a.sub.observe
	c.sub.observer = a.sub.observer
	if a.sub.up == nil {
		c.sub.observer = a.cfg.observer
	}
	c.hooks = append([]LifecycleHook(nil), a.hooks...)
	c.prompts = append([]core.PromptProvider(nil), a.prompts...)
	a.mu.Unlock()
	if obs := c.sub.observer; obs != nil {
		id, parent, mu := c.sub.id, c.sub.parent, c.sub.observe
		c.cfg.observer = func(e Event) {
			if e.Agent == "" {
				e.Agent, e.ParentAgent = id, parent
			}
			mu.Lock()
			defer mu.Unlock()
			obs(e)
		}
	}
	return c
}

// childConfig is what a child inherits of a's configuration: everything
// (the provider, model, system prompt, max turns, execution mode,
// concurrency, observer, subagent limits, and whatever a later option
// adds, a budget shared by pointer so that children draw on it) but what
// belongs to a's own conversation or was installed into the executor
// once: the extensions and artifact offload. The executor is a's, so
// the child's Close leaves it open.
func (a *Agent) childConfig() config {
	a.mu.Lock()
	c := a.cfg
	a.mu.Unlock()
	c.exec = a.exec
	c.extensions = nil
	c.execOpts = nil
	c.offload = nil
	// A child's conversation is its own and is not saved: its work
	// reaches the session through the parent's task result.
	c.journal = nil
	return c
}

// SubagentHook names the refusal of a call to a tool outside a subagent's
// subset (core.Error.Hook, Denial.Hook).
const SubagentHook = "subagent"

// subsetRefusal is the rejected result of a subagent's call of a tool
// outside its subset.
func (a *Agent) subsetRefusal(call core.Call) *core.Result {
	msg := fmt.Sprintf("subagent %s may use only %s; %s is not one of them (its parent chose its tools)", a.ID(), nameList(a.sub.tools), call.Name)
	if len(a.sub.tools) == 0 {
		msg = fmt.Sprintf("subagent %s may use no tools; its parent gave it none, so %s is refused", a.ID(), call.Name)
	}
	return &core.Result{
		Err:       &core.Error{Kind: core.KindRejected, Tool: call.Name, CallID: call.ID, Hook: SubagentHook, Message: msg},
		Decisions: []core.Decision{{Stage: core.StageToolBefore, Hook: SubagentHook, Verdict: core.VerdictDeny, Reason: msg}},
	}
}
