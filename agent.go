package agentsh

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/agent/rules"
	"github.com/agentsh/agentsh/agent/session"
	"github.com/agentsh/agentsh/agent/skills"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/pricing"
	"github.com/agentsh/agentsh/script/agentapi"
	"github.com/agentsh/agentsh/tools/mcp"
)

// systemPrompt opens every conversation; project rules and skills
// follow it.
const systemPrompt = "You are agentsh, an agent working in a shell through tools. " +
	"Every tool call goes through the user's policies; a refused call says why."

// installAgent adds the agent to the host: project rules and skills of
// the workdir, prompt caching, model/provider/ask/on/mcp_server for
// scripts, the budget and the upstream MCP client. The main shell also
// gets its model, the record, saved sessions and the MCP servers of the
// Config; the hosts of Test start without them.
func (s *Shell) installAgent(main bool) error {
	cfg := s.cfg
	warn := func(msg string) { cfg.Warn("notice", msg) }
	exts := []core.Extension{
		rules.New(rules.Config{WorkDir: cfg.WorkDir, Warn: warn}),
		skills.New(skills.Config{Dirs: skills.DefaultDirs(cfg.WorkDir), Warn: warn}),
		agent.PromptCaching(),
	}
	if s.pins == nil {
		s.pins = mcp.NewPins(s.PinsPath())
	}
	s.mcp = mcp.NewClient(s.exec.Registry(), mcp.WithPins(s.pins),
		mcp.WithWarn(func(msg string) { cfg.Warn("mcp_warning", msg) }))
	// A call of an upstream tool held back is refused with the reason,
	// not as an unknown tool.
	if err := s.exec.AddBefore(s.mcp.Hook()); err != nil {
		return err
	}
	budget, err := s.budget()
	if err != nil {
		return err
	}
	ac := agentapi.Config{
		SystemPrompt:  systemPrompt,
		Extensions:    exts,
		MaxTurns:      cfg.MaxTurns,
		ContextWindow: cfg.ContextWindow,
		MCP:           mcpConnector{s.mcp},
		NoTask:        cfg.NoBuiltins, // task is a built-in tool
		Observer:      cfg.Observer,
		Budget:        budget,
		Open: func(spec string) (provider.Provider, error) {
			p, err := provider.Open(spec)
			if err != nil {
				return nil, err
			}
			return s.modelLimits(p)
		},
	}
	if ac.Observer == nil {
		ac.Observer = func(agent.Event) {}
	}
	if main {
		p, err := s.provider()
		if err != nil {
			return err
		}
		ac.Provider = p
		ac.Record = cfg.Record
		if cfg.RecordFile != "" {
			rf, err := openRecord(cfg.RecordFile)
			if err != nil {
				return err
			}
			s.closers = append(s.closers, rf.Close)
			ac.Record = rf
		}
		if cfg.SaveSessions {
			ac.Sessions = &session.Store{Workdir: cfg.WorkDir}
		}
	}
	if s.agent, err = agentapi.Install(s.host, ac); err != nil {
		return err
	}
	if main {
		for _, spec := range cfg.MCPServers {
			if _, err := s.mcp.Add(context.Background(), spec); err != nil {
				return &OptionError{Option: "WithMCPServers", Value: spec.Name, Err: err}
			}
		}
	}
	return nil
}

// provider is the model of ask() at start: Config.Provider, else the one
// Config.Model opens, with Config.ModelTimeout applied.
func (s *Shell) provider() (provider.Provider, error) {
	p := s.cfg.Provider
	if p == nil && s.cfg.Model != "" {
		var err error
		if p, err = provider.Open(s.cfg.Model); err != nil {
			return nil, &OptionError{Option: "WithModel", Err: err}
		}
		// A recording cut short says so at start, not only when the run
		// reaches its end.
		if w, ok := p.(interface{ Warnings() []string }); ok {
			for _, msg := range w.Warnings() {
				s.cfg.Warn("replay_warning", msg)
			}
		}
	}
	if p == nil {
		return nil, nil
	}
	p, err := s.modelLimits(p)
	if err != nil {
		return nil, &OptionError{Option: "WithModelTimeout", Err: err}
	}
	return p, nil
}

// modelLimits applies Config.ModelTimeout to a provider whose responses
// have limits; a longer timeout raises the limit of a whole response with
// it.
func (s *Shell) modelLimits(p provider.Provider) (provider.Provider, error) {
	p, err := s.limited(p)
	if err == nil && s.cfg.Journal != nil {
		p = s.cfg.Journal.Provider(p)
	}
	return p, err
}

func (s *Shell) limited(p provider.Provider) (provider.Provider, error) {
	l, ok := p.(provider.Limited)
	if !ok || s.cfg.ModelTimeout == 0 {
		return p, nil
	}
	lim := l.Limits()
	lim.IdleTimeout = s.cfg.ModelTimeout
	lim.MaxDuration = max(lim.MaxDuration, s.cfg.ModelTimeout)
	return l.WithLimits(lim)
}

// budget is a host's budget: the Config's limits, priced by
// Config.Prices, else by the built-in table with Config.PricesFile over
// it; s.prices keeps the table, which the hosts of Test share.
func (s *Shell) budget() (*agent.Budget, error) {
	prices := s.cfg.Prices
	if prices == nil {
		t := pricing.Builtin()
		if f := s.cfg.PricesFile; f != "" {
			var err error
			if t, err = pricing.Load(f); errors.Is(err, fs.ErrNotExist) {
				return nil, optionErrorf("WithPricesFile", "%v; give the path of a price file (its format is in docs/budgets.md)", err)
			} else if err != nil {
				return nil, &OptionError{Option: "WithPricesFile", Err: err}
			}
		}
		prices = t
	}
	s.prices = prices
	return agent.NewBudget(s.cfg.Budget, prices), nil
}

// mcpConnector lets scripts add MCP servers with mcp_server(...).
type mcpConnector struct{ c *mcp.Client }

func (m mcpConnector) Add(ctx context.Context, s agentapi.MCPServer) ([]string, error) {
	return m.c.Add(ctx, mcp.ServerConfig{Name: s.Name, Command: s.Command, URL: s.URL, Env: s.Env, ReadOnly: s.ReadOnly})
}

// MCP returns the client of the shell's upstream MCP servers.
func (s *Shell) MCP() *mcp.Client { return s.mcp }

// Pins returns the pins of upstream tool definitions (Config.PinsFile).
func (s *Shell) Pins() *mcp.Pins { return s.pins }

// PinsPath is Config.PinsFile, else $XDG_STATE_HOME/agentsh/mcp-pins.json.
func (s *Shell) PinsPath() string {
	if s.cfg.PinsFile != "" {
		return s.cfg.PinsFile
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "mcp-pins.json"
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "agentsh", "mcp-pins.json")
}
