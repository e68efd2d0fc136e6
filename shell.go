package agentsh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/agentapi"
	"github.com/agentsh/agentsh/telemetry"
	"github.com/agentsh/agentsh/tools/builtins"
	"github.com/agentsh/agentsh/tools/mcp"
)

// Shell is one composed agent shell: a registry and the executor every
// call goes through, the script host its Starlark and Lua files share,
// the built-in tools, the agent with its model, sessions and budget, the
// upstream MCP servers and the sandbox of bash and run_code.
//
// A Shell is safe for concurrent use by multiple goroutines, except
// Close, which ends it: calls made during or after Close fail.
type Shell struct {
	cfg   Config
	exec  *executor.Executor
	host  *script.Host
	agent *agentapi.Session
	mcp   *mcp.Client
	pins  *mcp.Pins // one pins file for the shell and the hosts of Test
	// prices is the price table of the budgets, read once for the shell
	// and the hosts of Test.
	prices agent.Prices

	mu      sync.Mutex
	interps map[string]script.Interp // by language name, made on first use
	closers []func() error           // released by Close, last first
	audit   *auditor                 // nil without Config.AuditFile
	closed  bool
}

// New composes a shell from the options and loads Config.Scripts. It
// returns an *OptionError for a Config value it cannot use.
func New(opts ...Option) (*Shell, error) {
	var cfg Config
	for _, o := range opts {
		o(&cfg)
	}
	return newShell(cfg, nil)
}

// newShell composes a shell. The hosts of Test have a parent: they share
// its pins and start without the model, the record, sessions and the MCP
// servers.
func newShell(cfg Config, parent *Shell) (sh *Shell, err error) {
	main := parent == nil
	if cfg.WorkDir == "" {
		cfg.WorkDir = "."
	}
	if cfg.Output == nil {
		cfg.Output = os.Stdout
	}
	if cfg.Warn == nil {
		cfg.Warn = func(_, msg string) { fmt.Fprintf(os.Stderr, "agentsh: %s\n", msg) }
	}
	if cfg.Lang == "" {
		cfg.Lang = DefaultLang
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Shell{cfg: cfg}
	if parent != nil {
		s.pins = parent.pins
	}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	execOpts := []executor.Option{
		executor.WithValidateArguments(!cfg.SkipArgumentValidation),
		executor.WithExecutionMode(cfg.Mode),
	}
	if j := cfg.Journal; j != nil {
		// Steps happen in the same order on every execution of the run.
		cfg.Concurrency = 1
		cfg.Approver = j.Approver(cfg.Approver)
		j.SetRerunApprover(cfg.Approver)
		execOpts = append(execOpts, executor.WithJournal(j))
		s.cfg = cfg
	}
	if cfg.Approver != nil {
		execOpts = append(execOpts, executor.WithApprover(cfg.Approver))
	}
	if cfg.Concurrency > 0 {
		execOpts = append(execOpts, executor.WithConcurrency(cfg.Concurrency))
	}
	if cfg.Permissions != executor.PermissionsDefault {
		execOpts = append(execOpts, executor.WithPermissions(cfg.Permissions))
	}
	if t := telemetry.New(cfg.TracerProvider, cfg.TraceContent).RedactWith(executor.DefaultRedactor); t != nil {
		execOpts = append(execOpts, executor.WithTracing(t))
	}
	if main {
		if s.audit, err = openAudit(cfg); err != nil {
			return nil, err
		}
		if s.audit != nil {
			s.closers = append(s.closers, s.audit.log.Close)
			execOpts = append(execOpts, s.audit.options()...)
		}
	}
	s.exec = executor.New(core.NewRegistry(), append(execOpts, cfg.ExecutorOptions...)...)
	if cfg.ArtifactStore != nil {
		if err := s.exec.SetArtifactOffload(cfg.ArtifactStore, cfg.OffloadThreshold); err != nil {
			return nil, &OptionError{Option: "WithArtifactOffload", Err: err}
		}
	}
	s.host = script.NewHost(s.exec, cfg.Output)
	s.host.SetDeclarations(builtins.Tool)
	if !cfg.NoBuiltins {
		if err := s.installTools(); err != nil {
			return nil, err
		}
	}
	if len(cfg.Extensions) > 0 {
		if err := s.exec.Install(context.Background(), cfg.Extensions...); err != nil {
			return nil, &OptionError{Option: "WithExtensions", Err: err}
		}
	}
	if err := s.installAgent(main); err != nil {
		return nil, err
	}
	if main {
		for _, f := range cfg.Scripts {
			if err := s.Load(context.Background(), f); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Executor returns the executor every call goes through.
func (s *Shell) Executor() *executor.Executor { return s.exec }

// Host returns the script host the shell's interpreters share.
func (s *Shell) Host() *script.Host { return s.host }

// Agent returns the shell's agent: its model, conversation, sessions and
// the outcomes of its runs.
func (s *Shell) Agent() *agentapi.Session { return s.agent }

// Config returns the configuration the shell was composed from, with
// its defaults filled in.
func (s *Shell) Config() Config { return s.cfg }

// InvokeTool runs one call of the tool name through the pipeline, made
// by a person (core.OriginPerson). The result is never nil; the error is
// the result's.
func (s *Shell) InvokeTool(ctx context.Context, name string, args json.RawMessage) (*core.Result, error) {
	res := s.exec.Invoke(ctx, core.Call{Name: name, Args: args, Origin: core.OriginPerson})
	return res, res.Err
}

// RegisterTools adds tools to the registry; a name taken is an error.
func (s *Shell) RegisterTools(tools ...core.Tool) error {
	return s.exec.Registry().RegisterTools(tools...)
}

// UnregisterTools removes the named tools.
func (s *Shell) UnregisterTools(names ...string) error {
	return s.exec.Registry().UnregisterTools(names...)
}

// ToolNames returns the registered tools' names, sorted.
func (s *Shell) ToolNames() []string { return s.exec.Registry().ToolNames() }

// GetTool returns the registered tool name, or nil.
func (s *Shell) GetTool(name string) *core.Tool { return s.exec.Registry().GetTool(name) }

// Ask runs the agent once on prompt with the shell's model, tools and
// policies, and returns its reply. Without a model (WithModel,
// WithProvider, or model(...) in a script) it fails with
// agent.ErrNoProvider.
func (s *Shell) Ask(ctx context.Context, prompt string, opts ...agent.RunOption) (*agent.Reply, error) {
	return s.agent.RunTop(ctx, prompt, false, opts...)
}

// Close ends the shell: its conversation (the session_end hooks run),
// the MCP servers, the interpreters, the sandbox. It is safe to call
// more than once.
func (s *Shell) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	interps := s.interps
	s.mu.Unlock()
	var errs []error
	if s.agent != nil {
		errs = append(errs, s.agent.Close())
	}
	if s.mcp != nil {
		errs = append(errs, s.mcp.Close())
	}
	if s.exec != nil {
		errs = append(errs, s.exec.Close())
	}
	for _, in := range interps {
		errs = append(errs, in.Close())
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	return errors.Join(errs...)
}

// output is where scripts print.
func (s *Shell) output() io.Writer { return s.cfg.Output }
