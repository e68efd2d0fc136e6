package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
)

// DefaultMaxTurns bounds a Run when WithMaxTurns is not given.
const DefaultMaxTurns = 20

type config struct {
	model      string
	provider   provider.Provider
	extensions []core.Extension
	exec       *executor.Executor
	execOpts   []executor.Option
	mode       *executor.Mode
	limit      int // 0: the executor's bound
	maxTurns   int
	system     string
	observer   func(Event)
	offload    *offload
	subagents  SubagentLimits

	contextWindow    int                                        // WithContextWindow (window.go)
	compactThreshold float64                                    // WithCompactThreshold
	journal          func(providerName string) (Journal, error) // WithJournal
	budget           *Budget
}

type offload struct {
	store     core.ArtifactStore
	threshold int
}

// Option configures an Agent.
type Option func(*config)

// WithModel names the model sent in each request.
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithProvider sets the provider that answers requests.
func WithProvider(p provider.Provider) Option { return func(c *config) { c.provider = p } }

// WithExtensions installs extensions when the agent is created.
func WithExtensions(exts ...core.Extension) Option {
	return func(c *config) { c.extensions = append(c.extensions, exts...) }
}

// WithExecutor runs tools through ex (and its registry, hooks and
// middleware) instead of a new executor; a shell shares its scripts'
// executor this way. The options that configure an executor
// (WithValidateArguments, WithPermissions, WithApprover,
// WithArtifactOffload) then change ex.
func WithExecutor(ex *executor.Executor) Option { return func(c *config) { c.exec = ex } }

// WithValidateArguments validates tool arguments against their schemas.
func WithValidateArguments(on bool) Option {
	return func(c *config) { c.execOpts = append(c.execOpts, executor.WithValidateArguments(on)) }
}

// WithPermissions sets what happens to the model's calls no policy
// decided (see executor.Permissions); the default runs read-only tools and
// asks the approver before any other.
func WithPermissions(p executor.Permissions) Option {
	return func(c *config) { c.execOpts = append(c.execOpts, executor.WithPermissions(p)) }
}

// WithApprover sets who is asked before a call whose verdict is ask runs;
// without one such calls are rejected.
func WithApprover(ap core.Approver) Option {
	return func(c *config) { c.execOpts = append(c.execOpts, executor.WithApprover(ap)) }
}

// WithArtifactOffload stores tool outputs over threshold bytes in store
// and gives the model a reference it can page through with artifact_read.
func WithArtifactOffload(store core.ArtifactStore, threshold int) Option {
	return func(c *config) { c.offload = &offload{store, threshold} }
}

// WithExecutionMode runs the tool calls of one model turn in mode m.
func WithExecutionMode(m executor.Mode) Option { return func(c *config) { c.mode = &m } }

// WithConcurrency bounds the parallel tool calls of one turn (0: the
// executor's bound, executor.DefaultConcurrency unless set).
func WithConcurrency(n int) Option { return func(c *config) { c.limit = n } }

// WithMaxTurns bounds the model turns of one Run.
func WithMaxTurns(n int) Option { return func(c *config) { c.maxTurns = n } }

// WithSystemPrompt sets the first section of the system prompt;
// extensions add theirs after it.
func WithSystemPrompt(s string) Option { return func(c *config) { c.system = s } }

// WithObserver receives the agent's events (model requests and
// responses, streamed text, what tools showed the person), and its
// subagents' (with Event.Agent set). It is called one event at a time,
// never concurrently, but from the goroutines of the agents that run:
// the Run's, and those of subagents running at once.
func WithObserver(fn func(Event)) Option { return func(c *config) { c.observer = fn } }

// Agent is one conversation with a model over a registry of tools.
type Agent struct {
	cfg  config
	exec *executor.Executor

	running  chan struct{} // holds a token while a Run is in progress
	mu       sync.Mutex    // guards the fields below
	messages []provider.Message
	hooks    []LifecycleHook
	prompts  []core.PromptProvider
	started  bool
	closed   bool

	sub     subagent     // the agent's id and place among subagents
	usage   usageBase    // the last response's usage (window.go)
	pins    []string     // Pin (compact.go)
	journal journalState // the session the conversation is saved in (journal.go)
	// budget is what the agent's runs draw on (see budget.go).
	budget *Budget
}

// New returns an agent. Extensions are installed into the executor; if one
// fails to install, those before it are closed and New fails.
func New(opts ...Option) (*Agent, error) {
	c := config{maxTurns: DefaultMaxTurns}
	for _, o := range opts {
		o(&c)
	}
	if c.maxTurns <= 0 {
		return nil, fmt.Errorf("agent: max turns got %d, want 1 or more", c.maxTurns)
	}
	if err := checkWindowConfig(&c); err != nil {
		return nil, err
	}
	a := &Agent{cfg: c, exec: c.exec, running: make(chan struct{}, 1), budget: c.budget}
	a.sub.observe = &sync.Mutex{}
	if a.budget == nil {
		a.budget = NewBudget(Limits{}, nil)
	}
	if a.exec == nil {
		execOpts := c.execOpts
		if c.mode != nil {
			execOpts = append(execOpts, executor.WithExecutionMode(*c.mode))
		}
		if c.offload != nil {
			execOpts = append(execOpts, executor.WithArtifactOffload(c.offload.store, c.offload.threshold))
		}
		a.exec = executor.New(core.NewRegistry(), execOpts...)
	} else {
		// The options that configure an executor apply to the given one.
		for _, o := range c.execOpts {
			o(a.exec)
		}
		if c.offload != nil {
			if err := a.exec.SetArtifactOffload(c.offload.store, c.offload.threshold); err != nil {
				return nil, fmt.Errorf("agent: %w", err)
			}
		}
	}
	if err := a.install(context.Background(), c.extensions...); err != nil {
		return nil, err
	}
	return a, nil
}

// Install adds extensions to a running agent: their tools, hooks and
// middleware go to the executor, their prompt sections and lifecycle
// hooks to the agent.
func (a *Agent) Install(ctx context.Context, exts ...core.Extension) error {
	return a.install(ctx, exts...)
}

func (a *Agent) install(ctx context.Context, exts ...core.Extension) error {
	for _, ext := range exts {
		if err := a.exec.Install(ctx, ext); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		a.mu.Lock()
		if p, ok := ext.(core.PromptProvider); ok {
			a.prompts = append(a.prompts, p)
		}
		if l, ok := ext.(LifecycleProvider); ok {
			a.hooks = append(a.hooks, l.LifecycleHooks()...)
		}
		a.mu.Unlock()
	}
	return nil
}

// Executor returns the executor the agent runs tools through.
func (a *Agent) Executor() *executor.Executor { return a.exec }

// Provider returns the provider, or nil.
func (a *Agent) Provider() provider.Provider {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.provider
}

// SetProvider changes the provider (and, when model is not "", the model)
// for the next requests.
func (a *Agent) SetProvider(p provider.Provider, model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.provider = p
	if model != "" {
		a.cfg.model = model
	}
}

// InvokeTool runs one call through the executor's pipeline.
func (a *Agent) InvokeTool(ctx context.Context, name string, args json.RawMessage) (*core.Result, error) {
	return a.exec.InvokeTool(ctx, name, args)
}

// RegisterTools adds tools to the registry.
func (a *Agent) RegisterTools(tools ...core.Tool) error {
	return a.exec.Registry().RegisterTools(tools...)
}

// UnregisterTools removes tools from the registry.
func (a *Agent) UnregisterTools(names ...string) error {
	return a.exec.Registry().UnregisterTools(names...)
}

// ToolNames lists the registered tools, sorted.
func (a *Agent) ToolNames() []string { return a.exec.Registry().ToolNames() }

// GetTool returns the tool called name, or nil.
func (a *Agent) GetTool(name string) *core.Tool { return a.exec.Registry().GetTool(name) }

// Messages returns a copy of the conversation so far.
func (a *Agent) Messages() []provider.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]provider.Message(nil), a.messages...)
}

// Reset forgets the conversation; the next Run starts a new session.
func (a *Agent) Reset(ctx context.Context) error {
	err := a.endSession(ctx)
	a.mu.Lock()
	a.messages = nil
	a.usage = usageBase{}
	a.mu.Unlock()
	return errors.Join(err, a.endJournal())
}

// End ends the conversation for good, as the program that holds it
// finishes: the session_end hooks run under ctx and the session file is
// closed. A session that a session_end hook starts (with an ask there) is
// not ended again, by End or Close: it would start another, and another.
func (a *Agent) End(ctx context.Context) error {
	err := errors.Join(a.endSession(ctx), a.endJournal())
	a.mu.Lock()
	a.started = false
	a.mu.Unlock()
	return err
}

// Close ends the session (session_end hooks) and closes the executor's
// extensions — unless the executor came from WithExecutor, whose owner
// closes it.
func (a *Agent) Close() error {
	err := a.End(context.Background())
	a.mu.Lock()
	closed := a.closed
	a.closed = true
	a.mu.Unlock()
	if closed || a.cfg.exec != nil {
		return err
	}
	return errors.Join(err, a.exec.Close())
}

// systemPrompt joins the configured prompt and the extensions' sections.
func (a *Agent) systemPrompt() string {
	a.mu.Lock()
	parts := []string{a.cfg.system}
	prompts := append([]core.PromptProvider(nil), a.prompts...)
	a.mu.Unlock()
	for _, p := range prompts {
		parts = append(parts, p.SystemPrompt())
	}
	var kept []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, "\n\n")
}

// toolDefs describes the registered tools to the model, sorted by name
// (a subagent's: its subset of them).
func (a *Agent) toolDefs() []provider.ToolDef {
	reg := a.exec.Registry()
	names := reg.ToolNames()
	sort.Strings(names)
	defs := make([]provider.ToolDef, 0, len(names))
	for _, n := range names {
		t := reg.GetTool(n)
		if t == nil || !a.mayUse(n) {
			continue // removed meanwhile, or not a subagent's
		}
		defs = append(defs, provider.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Schema().JSON()})
	}
	return defs
}
