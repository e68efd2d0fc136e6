package agentsh

import (
	"io"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/durable"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/wording"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/mcp"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/search"
)

// Config is everything New composes a shell from. Its zero value is a
// working shell: the built-in tools in the current directory, arguments
// validated against their schemas, Starlark as the default language, no
// model, no saved sessions, the model's commands in the workspace
// sandbox. Options set its fields; a program that reads its settings
// from elsewhere (a command line, a file) fills a Config and passes it
// with WithConfig.
type Config struct {
	// WorkDir is where the built-in tools work and where project rules
	// and skills are found; "" is the current directory.
	WorkDir string
	// Scripts are Starlark (.star) or Lua (.lua) files New loads, in
	// order, after everything else is set up: their tools, hooks and
	// middleware apply to every call that follows.
	Scripts []string
	// Lang is the language of Eval and of files whose extension names
	// none: "starlark" (the default) or "lua", or any registered one.
	Lang string
	// Argv is what scripts see as argv (Lua: arg).
	Argv []string
	// Output receives what scripts print; nil is os.Stdout.
	Output io.Writer
	// Warn receives what a person should see besides the output: event
	// names what it is ("notice" for a project rule or skill that could
	// not be read, "mcp_warning" for an upstream tool held back,
	// "replay_warning" for a recording cut short). nil writes msg to
	// os.Stderr.
	Warn func(event, msg string)

	// NoBuiltins leaves out the built-in tools (files, bash, search,
	// fetch, run_code, task).
	NoBuiltins bool
	// GrepBackend and GlobBackend choose the search backends by name
	// ("native", "ripgrep", "fd"); "" is native.
	GrepBackend, GlobBackend string
	// FetchAllowPrivate lets fetch and browser reach loopback and
	// private network addresses.
	FetchAllowPrivate bool
	// Extensions are installed after the built-in tools.
	Extensions []core.Extension

	// SkipArgumentValidation leaves arguments unchecked against the
	// tools' schemas (a hook answering for another agent, which checks
	// its own).
	SkipArgumentValidation bool
	// Mode is the execution mode of parallel calls (serial, the zero
	// value, by default).
	Mode executor.Mode
	// Concurrency bounds parallel calls; 0 is the executor's default.
	Concurrency int
	// Permissions is what happens to a call no policy decides.
	Permissions executor.Permissions
	// Approver answers the calls a policy asks about until a script's
	// on("approve", fn) replaces it; nil rejects them.
	Approver core.Approver
	// ArtifactStore and OffloadThreshold keep results larger than the
	// threshold as artifacts and hand the model a preview.
	ArtifactStore    core.ArtifactStore
	OffloadThreshold int
	// ExecutorOptions are passed to the executor after the ones above
	// (observers such as executor.WithOnStart).
	ExecutorOptions []executor.Option

	// Sandbox is the profile every origin's commands run in; "" keeps
	// the defaults (the model's and MCP clients' in workspace, a
	// person's off).
	Sandbox core.Sandbox
	// SandboxBackend is "auto" (or ""), "bwrap" or "landlock"; a named
	// backend that cannot confine here is an error of New.
	SandboxBackend string
	// AllowHosts are the hosts sandboxed commands may reach over HTTPS.
	AllowHosts []string
	// MaxSteps bounds the Starlark steps of each run and call; 0 is no
	// bound.
	MaxSteps uint64

	// Model opens the model of ask() at start: "PROVIDER:MODEL" of an
	// adapter the program imports (see package provider/all).
	Model string
	// Provider is the model of ask() at start, instead of Model.
	Provider provider.Provider
	// ModelTimeout is how long a model's server may send nothing; 0 is
	// the adapter's default.
	ModelTimeout time.Duration
	// Record receives every exchange with the model as JSON lines, for
	// a replay:FILE provider; RecordFile writes them to a file instead,
	// created at the first exchange.
	Record     io.Writer
	RecordFile string
	// MaxTurns bounds the model turns of one ask; 0 is the agent's
	// default.
	MaxTurns int
	// ContextWindow is the model's context window in tokens; 0 is the
	// known default.
	ContextWindow int
	// Observer receives the agent's events (streamed text, tool output,
	// refusals); nil drops them.
	Observer func(agent.Event)
	// Budget bounds what the agent's runs spend; Prices (nil: the
	// built-in table) prices them.
	Budget agent.Limits
	Prices agent.Prices
	// PricesFile is a JSON price table read over the built-in one when
	// Prices is nil (its format is in docs/budgets.md).
	PricesFile string
	// SaveSessions saves every conversation as a session of WorkDir.
	SaveSessions bool
	// MCPServers are upstream MCP servers whose tools register at start.
	MCPServers []MCPServer
	// PinsFile is where the pins of upstream tool definitions are kept;
	// "" is $XDG_STATE_HOME/agentsh/mcp-pins.json.
	PinsFile string
	// Journal makes the shell one execution of a durable run (see the
	// durable package): the tools' work, the model's answers, the
	// approvals and the clock are its steps, and the tool calls run one at
	// a time.
	Journal *durable.Journal
	// Globals are more predeclared names of the scripts, with values of
	// JSON shapes: a batch task is the global task.
	Globals map[string]any
	// TracerProvider, when set, traces the shell's agents, model
	// requests and tool calls (see package telemetry); TraceContent puts
	// the calls' arguments and outputs on their spans too.
	TracerProvider trace.TracerProvider
	TraceContent   bool

	// AuditFile is an audit log (package audit, docs/observability.md)
	// New opens, creating it when missing, and Close closes: every call
	// that ends in the pipeline — run, refused, nested in a tool — and
	// every tool event Hook answers appends a hash-chained record to it.
	// Processes may share the file. A record that cannot be written is
	// reported once through Warn (event "audit_error"), and every later
	// call is refused: a call that cannot be recorded does not run.
	AuditFile string
	// AuditVia names, in each record, what made the calls: a command
	// ("run", "call", "mcp serve", ...); "" is "library". Hook sets its
	// own ("hook claude-code", ...).
	AuditVia string
}

// An Option sets a field of the Config New composes from.
type Option func(*Config)

// WithConfig replaces the whole Config; options after it change it.
func WithConfig(c Config) Option { return func(to *Config) { *to = c } }

// WithWorkDir sets where the built-in tools work.
func WithWorkDir(dir string) Option { return func(c *Config) { c.WorkDir = dir } }

// WithScripts adds Starlark or Lua files for New to load, in order.
func WithScripts(paths ...string) Option {
	return func(c *Config) { c.Scripts = append(c.Scripts, paths...) }
}

// WithLang sets the language of Eval: "starlark" or "lua".
func WithLang(lang string) Option { return func(c *Config) { c.Lang = lang } }

// WithOutput sets where scripts print.
func WithOutput(w io.Writer) Option { return func(c *Config) { c.Output = w } }

// WithoutBuiltins leaves out the built-in tools.
func WithoutBuiltins() Option { return func(c *Config) { c.NoBuiltins = true } }

// WithExtensions installs extensions after the built-in tools.
func WithExtensions(exts ...core.Extension) Option {
	return func(c *Config) { c.Extensions = append(c.Extensions, exts...) }
}

// WithValidateArguments checks arguments against the tools' schemas
// (true, the default) or leaves them unchecked.
func WithValidateArguments(on bool) Option {
	return func(c *Config) { c.SkipArgumentValidation = !on }
}

// WithMode sets the execution mode of parallel calls.
func WithMode(m executor.Mode) Option { return func(c *Config) { c.Mode = m } }

// WithConcurrency bounds parallel calls.
func WithConcurrency(n int) Option { return func(c *Config) { c.Concurrency = n } }

// WithPermissions sets what happens to a call no policy decides.
func WithPermissions(p executor.Permissions) Option {
	return func(c *Config) { c.Permissions = p }
}

// WithApprover answers the calls a policy asks about.
func WithApprover(a core.Approver) Option { return func(c *Config) { c.Approver = a } }

// WithArtifactOffload keeps results larger than threshold bytes in store
// and hands the model a preview.
func WithArtifactOffload(store core.ArtifactStore, threshold int) Option {
	return func(c *Config) { c.ArtifactStore, c.OffloadThreshold = store, threshold }
}

// WithSandbox sets the profile every origin's commands run in.
func WithSandbox(p core.Sandbox) Option { return func(c *Config) { c.Sandbox = p } }

// WithSandboxBackend chooses the sandbox's backend: "auto", "bwrap" or
// "landlock".
func WithSandboxBackend(name string) Option { return func(c *Config) { c.SandboxBackend = name } }

// WithAllowHosts lets sandboxed commands reach hosts over HTTPS.
func WithAllowHosts(hosts ...string) Option {
	return func(c *Config) { c.AllowHosts = append(c.AllowHosts, hosts...) }
}

// WithModel opens the model of ask() from a spec, "PROVIDER:MODEL".
func WithModel(spec string) Option { return func(c *Config) { c.Model = spec } }

// WithProvider sets the model of ask().
func WithProvider(p provider.Provider) Option { return func(c *Config) { c.Provider = p } }

// WithObserver receives the agent's events.
func WithObserver(fn func(agent.Event)) Option { return func(c *Config) { c.Observer = fn } }

// WithBudget bounds what the agent's runs spend.
func WithBudget(l agent.Limits) Option { return func(c *Config) { c.Budget = l } }

// MCPServer is an upstream MCP server: a command to start, or a URL.
type MCPServer = mcp.ServerConfig

// WithMCPServers connects upstream MCP servers at start.
func WithMCPServers(servers ...MCPServer) Option {
	return func(c *Config) { c.MCPServers = append(c.MCPServers, servers...) }
}

// WithAudit appends a record of every call to the audit log at path
// (Config.AuditFile).
func WithAudit(path string) Option { return func(c *Config) { c.AuditFile = path } }

// WithRecordFile writes every exchange with the model to a file, for a
// replay:FILE provider.
func WithRecordFile(path string) Option { return func(c *Config) { c.RecordFile = path } }

// WithModelTimeout sets how long a model's server may send nothing.
func WithModelTimeout(d time.Duration) Option { return func(c *Config) { c.ModelTimeout = d } }

// WithJournal makes the shell one execution of a durable run (see
// Config.Journal).
func WithJournal(j *durable.Journal) Option { return func(c *Config) { c.Journal = j } }

// WithGlobals adds predeclared names to the scripts (see Config.Globals).
func WithGlobals(globals map[string]any) Option {
	return func(c *Config) {
		if c.Globals == nil {
			c.Globals = map[string]any{}
		}
		for k, v := range globals {
			c.Globals[k] = v
		}
	}
}

// WithTracerProvider traces the shell's agents (invoke_agent), model
// requests (chat) and tool calls (execute_tool, with the verdict and the
// hook that settled it) on tp's tracers. Without it nothing is traced.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *Config) { c.TracerProvider = tp }
}

// WithTraceContent puts each call's canonical arguments and its output,
// after every hook, on its span (off by default: they may hold what a
// trace store should not).
func WithTraceContent(on bool) Option { return func(c *Config) { c.TraceContent = on } }

// WithPricesFile reads a JSON price table over the built-in one.
func WithPricesFile(path string) Option { return func(c *Config) { c.PricesFile = path } }

// WithMaxSteps bounds the Starlark steps of each run and call.
func WithMaxSteps(n uint64) Option { return func(c *Config) { c.MaxSteps = n } }

// WithPinsFile keeps the pins of upstream tool definitions in path.
func WithPinsFile(path string) Option { return func(c *Config) { c.PinsFile = path } }

// WithSessions saves every conversation as a session of the workdir.
func WithSessions() Option { return func(c *Config) { c.SaveSessions = true } }

// check finds the values New cannot use before it sets anything up.
func (c Config) check() error {
	if _, ok := script.LookupLanguage(c.Lang); !ok {
		return optionErrorf("WithLang", "no language %q is registered; import its binding (script/starlark, script/lua) or package agentsh/all", c.Lang)
	}
	if c.GrepBackend != "" {
		if _, err := search.LookupGrep(c.GrepBackend); err != nil {
			return &OptionError{Option: "WithGrepBackend", Err: err}
		}
	}
	if c.GlobBackend != "" {
		if _, err := search.LookupGlob(c.GlobBackend); err != nil {
			return &OptionError{Option: "WithGlobBackend", Err: err}
		}
	}
	if c.Sandbox != "" {
		if _, err := core.ParseSandbox(string(c.Sandbox)); err != nil {
			return &OptionError{Option: "WithSandbox", Err: err}
		}
	}
	if b := c.SandboxBackend; b != "" && !slices.Contains(process.Backends, b) {
		return optionErrorf("WithSandboxBackend", "got %q, want auto, bwrap or landlock", b)
	}
	for _, h := range c.AllowHosts {
		if err := process.CheckHost(h); err != nil {
			return &OptionError{Option: "WithAllowHosts", Err: err}
		}
	}
	return nil
}

// SearchBackends names the search backends a program registered, for a
// help text: "native or ripgrep" for grep, "native, ripgrep or fd" for
// glob (WithGrepBackend, WithGlobBackend).
func SearchBackends() (grep, glob string) {
	return wording.OrList(search.GrepBackends()), wording.OrList(search.GlobBackends())
}

// WithGrepBackend chooses grep's backend by name ("native", "ripgrep").
func WithGrepBackend(name string) Option { return func(c *Config) { c.GrepBackend = name } }

// WithGlobBackend chooses glob's backend by name ("native", "ripgrep",
// "fd").
func WithGlobBackend(name string) Option { return func(c *Config) { c.GlobBackend = name } }

// WithMaxTurns bounds the model turns of one ask.
func WithMaxTurns(n int) Option { return func(c *Config) { c.MaxTurns = n } }
