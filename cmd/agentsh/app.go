package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/agent"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
)

type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// app is one agentsh process: the shell (package agentsh) and what the
// command line adds to it: the streams, the events, the run's context.
type app struct {
	opts   *options
	io     stdio
	sh     *agentsh.Shell
	argv   []string        // what scripts see as argv
	events *agentsh.Events // nil unless --json
	// eventsFile is --events FILE of mcp serve and hook.
	eventsFile *os.File
	// hookLog gathers the events of agentsh hook --events FILE.
	hookLog *agentsh.HookLog

	runCtx context.Context // the non-interactive run's context
}

func newApp(o *options, std stdio, argv []string) (*app, error) {
	a := &app{opts: o, io: std, argv: argv}
	var extra []executor.Option
	out := std.out
	switch {
	case o.serving():
		// stdout is the protocol stream: prints and events go elsewhere.
		out = std.err
		w, err := a.mcpEvents(std)
		if err != nil {
			return nil, err
		}
		if w != nil {
			a.events = agentsh.NewEvents(w)
			extra = append(extra, a.events.Observe()...)
		}
	case o.command == "hook" && o.events != "" && !o.hookSetup():
		// The agent reads stdout; the policies' prints and the decision
		// go to --events FILE, in one block at the end (hookLog).
		f, err := a.openEvents()
		if err != nil {
			return nil, err
		}
		a.hookLog = agentsh.NewHookLog(f)
		a.events = agentsh.NewEvents(a.hookLog)
		out = a.events.Printer()
	case o.command == "call" || o.command == "explain" || o.command == "hook":
		// stdout is the call's output alone; script prints go to stderr.
		out = std.err
		if o.jsonOut {
			a.events = agentsh.NewEvents(std.out)
		}
	case o.command == "ask" && o.printOnly:
		// stdout is the answer alone: what the --load files print goes to
		// stderr with the progress.
		out = std.err
	case o.jsonOut:
		a.events = agentsh.NewEvents(std.out)
		out = a.events.Printer()
		extra = append(extra, a.events.Observe()...)
	}
	cfg := a.config(out, extra)
	sh, err := agentsh.New(agentsh.WithConfig(cfg))
	if err != nil {
		a.close()
		return nil, flagError(err)
	}
	a.sh = sh
	if err := a.startSession(); err != nil {
		a.close()
		return nil, err
	}
	if a.sh.Executor().Permissions() == executor.PermissionsAllowAll {
		fmt.Fprintln(std.err, allowAllNotice)
	}
	return a, nil
}

// config is the shell the flags ask for: prints to out, the executor
// observed by extra.
func (a *app) config(out io.Writer, extra []executor.Option) agentsh.Config {
	o := a.opts
	mode, _ := executor.ParseMode(o.mode)                // checked by parseArgs
	perms, _ := executor.ParsePermissions(o.permissions) // checked by parseArgs
	display := agentsh.NewDisplay(progressOut(o, out, a.io.err))
	if a.events != nil {
		display = a.events.Agent
	}
	cfg := agentsh.Config{
		WorkDir: o.workdir, Lang: o.lang, Argv: a.argv, Output: out, Warn: a.warn,
		NoBuiltins: o.noBuiltins, GrepBackend: o.grepBackend, GlobBackend: o.globBackend,
		FetchAllowPrivate: o.fetchPrivate,
		Mode:              mode, Concurrency: max(o.concurrency, 0), Permissions: perms,
		// Without a terminal (and until the REPL installs its prompt),
		// asks follow --approve; never is the default.
		Approver:        headlessApprover(o.approve),
		ExecutorOptions: extra,
		Sandbox:         o.sandbox, SandboxBackend: o.sandboxBackend, AllowHosts: o.allowHosts,
		MaxSteps: o.maxSteps,
		Model:    o.model, ModelTimeout: o.modelWait, MaxTurns: o.maxTurns, ContextWindow: o.contextWindow,
		Observer:   a.sessionObserver(display),
		Budget:     agent.Limits{ToolCalls: o.maxToolCalls, Tokens: o.maxTokens, Cost: o.maxCost, Wall: o.maxWall},
		PricesFile: o.prices,
		// A durable run's journal keeps it; a session id would differ
		// between its executions.
		SaveSessions: o.journal == nil,
		Journal:      o.journal,
		MCPServers:   o.mcpServers,
		PinsFile:     o.mcp.pins,
		RecordFile:   o.record,
		AuditVia:     auditVia(o),
		// nil, and off, without OTEL_* variables
		TracerProvider: o.traces.TracerProvider(),
		TraceContent:   o.traces.Content(),
	}
	if !o.hookSetup() { // hook install writes --audit into the entries
		cfg.AuditFile = o.audit.file
	}
	if o.task != nil {
		cfg.Globals = map[string]any{"task": o.task}
	}
	return cfg
}

func (a *app) close() {
	if a.sh != nil {
		_ = a.sh.Close()
	}
	if a.eventsFile != nil {
		_ = a.eventsFile.Close()
	}
}

// loadPolicies runs the --load files in order; their tools, hooks and
// middleware apply to everything that follows.
func (a *app) loadPolicies(ctx context.Context) error {
	for _, f := range a.opts.loads {
		if err := a.sh.Load(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// report prints err and returns the exit code for it.
func (a *app) report(err error, stop *stopped) int {
	code := 1
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		code = 2
	case stop != nil:
		code = stop.exitCode()
	}
	if a.events != nil {
		a.events.Error(withFlagHint(err), code)
		return code
	}
	a.printError(err, stop, code)
	return code
}

// printError prints err on stderr for a run that ends with exit code code.
func (a *app) printError(err error, stop *stopped, code int) {
	switch {
	case stop != nil && code != 2:
		fmt.Fprintln(a.io.err, "agentsh: interrupted")
	case errors.Is(err, context.DeadlineExceeded) && a.opts.timeout > 0:
		fmt.Fprintf(a.io.err, "agentsh: run timed out after %s\n%s\n", a.opts.timeout, detail(err))
	default:
		fmt.Fprintf(a.io.err, "%s\n", detail(err))
		if code == 2 {
			fmt.Fprintln(a.io.err, "run 'agentsh help' for usage")
		}
	}
}

// detail renders an error for a terminal: script errors with their
// backtrace.
func detail(err error) string {
	err = withFlagHint(err)
	var se *script.Error
	if errors.As(err, &se) {
		return se.Detail()
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return "agentsh: " + ue.msg
	}
	return "agentsh: " + err.Error()
}

// cli runs the command line and returns the exit code.
func cli(args []string, std stdio) int {
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(std.err, "agentsh: %v\nrun 'agentsh help' for usage\n", err)
		return 2
	}
	std = safeTerminals(std, o)
	defer flushTerminal(std.out, std.err) // after a.close: the session's last words
	switch o.command {
	case "help":
		io.WriteString(std.out, usage())
		return 0
	case "version":
		fmt.Fprintln(std.out, "agentsh", version())
		return 0
	case "sessions":
		return listSessions(o, std)
	case "audit":
		return auditCommand(o, std)
	case "policy":
		return policyCLI(o, std)
	}
	if o.traces, err = startTraces(std.err); err != nil {
		return startFailed(o, std, err)
	}
	defer o.traces.Shutdown() // after the last span ends and signals are let go; bounded
	if durableCommand(o) {
		return durableCLI(o, args, std)
	}
	if o.approve == approveDefer {
		// Without a journal to wait in, the ask would be refused as with
		// --approve never, silently.
		fmt.Fprintf(std.err, "agentsh: %v\nrun 'agentsh help' for usage\n", errDeferNeedsDurable)
		return 2
	}

	argv := []string{"agentsh"}
	if o.hasCode {
		argv = append([]string{"-c"}, o.positional...)
	}
	if o.command == "run" {
		if len(o.positional) == 0 {
			fmt.Fprintln(std.err, "agentsh: run needs a script: agentsh run FILE.star|FILE.lua [ARGS...]")
			return 2
		}
		argv = o.positional
	}
	a, err := newApp(o, std, argv)
	if err != nil {
		return startFailed(o, std, err)
	}
	defer a.close()

	if o.command == "" && !o.hasCode && (o.interactive || isTerminal(std.in)) {
		return a.repl()
	}

	ctx, stop := runContext(o.timeout, std.err)
	defer stop()
	a.runCtx = ctx
	ctx, end := o.traceCommand(ctx)
	code := a.dispatch(ctx)
	end(code)
	if code == 0 && a.events != nil && o.serving() {
		// mcp serve ends its event stream with exit; the runs of scripts
		// and asks end theirs with result (finish).
		a.events.Exit(0)
	}
	return code
}

// startFailed reports err, which stopped the shell before it started
// (bad flags or OTEL_* variables), and returns exit code 2.
func startFailed(o *options, std stdio, err error) int {
	if o.jsonOut {
		ev := agentsh.NewEvents(std.out)
		ev.Error(withFlagHint(err), 2)
		if o.headlessCommand() {
			ev.Result(nil, 2)
		}
		return 2
	}
	fmt.Fprintf(std.err, "agentsh: %v\n", withFlagHint(err))
	return 2
}

// dispatch runs the non-interactive commands.
func (a *app) dispatch(ctx context.Context) int {
	o := a.opts
	if o.command == "test" {
		return a.test(ctx) // the --load files run on every test's host
	}
	if o.command == "hook" {
		return a.hook(ctx) // loads the --load files itself: a failure blocks
	}
	if o.command == "mcp" {
		return a.mcp(ctx) // it loads the --load files itself
	}
	if err := a.loadPolicies(ctx); err != nil {
		return a.finish(err)
	}
	switch {
	case o.hasCode:
		return a.runSnippet(ctx, "<command-line>", o.code)
	case o.command == "run":
		return a.finish(a.sh.Load(ctx, o.positional[0]))
	case o.command == "ask":
		return a.finish(a.askCommand(ctx))
	case o.command == "call":
		return a.call(ctx)
	case o.command == "explain":
		return a.explain(ctx)
	case o.command == "tools":
		return a.tools()
	}
	src, err := io.ReadAll(a.io.in)
	if err != nil {
		return a.finish(fmt.Errorf("read stdin: %w", err))
	}
	return a.finish(a.sh.Run(ctx, "<stdin>", src))
}

// fail reports err and returns its exit code.
func (a *app) fail(err error) int {
	return a.report(err, stopCause(a.runCtx))
}
