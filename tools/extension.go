package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/builtins"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/search"
	"github.com/agentsh/agentsh/tools/web"
	"github.com/agentsh/agentsh/workpath"
)

// ExtensionConfig configures the built-in tools. Only WorkingDir is
// required; every nil operation gets the local default when the extension
// is initialised.
type ExtensionConfig struct {
	// WorkingDir is the directory every tool works in and may not leave.
	WorkingDir string

	Files   FileOps        // default: LocalFiles (os.Root)
	Exec    ExecOps        // default: process.LocalExec (Sandbox's off profile when set)
	Fetcher Fetcher        // default: web.HTTPFetcher with FetchPolicy
	Browser Browser        // default: the registered one (RegisterBrowser), if any
	Grep    search.Grepper // default: search.Native
	Glob    search.Globber // default: search.Native

	// FetchPolicy limits where fetch and browser may go. The zero value
	// denies link-local, cloud metadata and private addresses.
	FetchPolicy web.Policy
	// Shell lists commands bash may or may not run (a convenience, not
	// isolation; see process.ShellPolicy).
	Shell process.ShellPolicy
	// Runners run run_code's interpreted languages, by name ("starlark",
	// "lua"). python3, node and bash run through Exec.
	Runners map[string]CodeRunner
	// SecretFiles are glob patterns of files that may hold secrets
	// (workpath.Match's: *.pem, .env, .ssh/): grep never searches them,
	// whatever path or glob it is given, so a search cannot print what a
	// policy refuses read_file. The executor's (executor.SetSecretFiles,
	// config(secret_files = [...]) in scripts) count too.
	SecretFiles []string
	// Sandbox confines bash and run_code's python3, node and bash in the
	// profile the executor chose for the call (core.SandboxOf); a call
	// without one, or with off, runs through Exec. Without a Sandbox a
	// confined profile is an error: the call does not run.
	Sandbox Confiner
}

// Confiner runs processes in a sandbox profile; *process.Sandbox is the
// one agentsh uses.
type Confiner interface {
	Ops(p process.Profile) ExecOps
}

var _ Confiner = (*process.Sandbox)(nil)

// Extension is the built-in tools. Create it with NewExtension and install
// it with executor.Install, which calls Init.
type Extension struct {
	cfg      ExtensionConfig
	root     string // WorkingDir, absolute and clean
	realRoot string // root with symbolic links resolved

	files   FileOps
	exec    ExecOps
	fetcher Fetcher
	runners map[string]CodeRunner

	grep backendSlot[search.Grepper]
	glob backendSlot[search.Globber]

	mu      sync.Mutex // guards browser, started on first use
	browser Browser

	closers []func() error
}

var (
	_ core.Extension    = (*Extension)(nil)
	_ core.Initializer  = (*Extension)(nil)
	_ core.Closer       = (*Extension)(nil)
	_ core.ToolProvider = (*Extension)(nil)
)

// NewExtension returns the built-in tools for cfg. Problems with the
// configuration (a missing WorkingDir) are reported by Init.
func NewExtension(cfg ExtensionConfig) *Extension {
	return &Extension{cfg: cfg}
}

// Name is "tools".
func (x *Extension) Name() string { return "tools" }

// Init checks the working directory and sets up the default operations.
func (x *Extension) Init(ctx context.Context) error {
	if x.cfg.WorkingDir == "" {
		return errors.New("tools: WorkingDir is required")
	}
	root, err := filepath.Abs(x.cfg.WorkingDir)
	if err != nil {
		return fmt.Errorf("tools: working directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("tools: working directory: %v", unwrapPathError(err))
	}
	x.root, x.realRoot = root, real

	x.files = x.cfg.Files
	if x.files == nil {
		lf, err := OpenLocalFiles(root)
		if err != nil {
			return err
		}
		x.files = lf
		x.closers = append(x.closers, lf.Close)
	}
	x.exec = x.cfg.Exec
	if x.exec == nil && x.cfg.Sandbox != nil {
		x.exec = x.cfg.Sandbox.Ops(process.ProfileOff)
	}
	if x.exec == nil {
		x.exec = process.NewLocalExec(root)
	}
	x.fetcher = x.cfg.Fetcher
	if x.fetcher == nil {
		x.fetcher = web.NewHTTPFetcher(x.cfg.FetchPolicy)
	}
	native := search.NewNative(real)
	x.grep.set(native, "native")
	if x.cfg.Grep != nil {
		x.grep.set(x.cfg.Grep, "custom")
	}
	x.glob.set(native, "native")
	if x.cfg.Glob != nil {
		x.glob.set(x.cfg.Glob, "custom")
	}
	x.browser = x.cfg.Browser
	x.runners = x.cfg.Runners
	if err := workpath.CheckPatterns(x.cfg.SecretFiles); err != nil {
		return fmt.Errorf("tools: SecretFiles: %w", err)
	}
	return nil
}

// Close releases what Init opened.
func (x *Extension) Close() error {
	var errs []error
	for i := len(x.closers) - 1; i >= 0; i-- {
		errs = append(errs, x.closers[i]())
	}
	x.closers = nil
	x.mu.Lock()
	if c, ok := x.browser.(interface{ Close() error }); ok && x.cfg.Browser == nil {
		errs = append(errs, c.Close())
		x.browser = nil
	}
	x.mu.Unlock()
	return errors.Join(errs...)
}

// WorkingDir returns the absolute working directory (after Init).
func (x *Extension) WorkingDir() string { return x.root }

// toolBuilders holds each built-in tool's constructor by name; each tool's
// file adds its own. toolAvailable holds, for a tool that an extension
// may lack, whether it has it.
var (
	toolBuilders  = map[string]func(*Extension) core.Tool{}
	toolAvailable = map[string]func(*Extension) bool{}
)

// Tools returns the built-in tools, sorted by name: all of them but the
// browser, which is there when a Browser is configured or registered
// (RegisterBrowser; importing package tools/browser registers Chromium).
func (x *Extension) Tools() []core.Tool {
	names := make([]string, 0, len(toolBuilders))
	for n := range toolBuilders {
		if has := toolAvailable[n]; has == nil || has(x) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]core.Tool, len(names))
	for i, n := range names {
		out[i] = toolBuilders[n](x)
		d, _ := builtins.Lookup(n)
		out[i].ReadOnly, out[i].Effects, out[i].Sandboxed = d.ReadOnly, d.Effects, d.Sandboxed
	}
	return out
}
