package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/provider"
	"github.com/agentsh/agentsh/provider/pricing"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/builtins"
	"github.com/agentsh/agentsh/tools/mcp"
)

type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// app is one agentsh process: registry, executor, host and interpreters.
type app struct {
	opts    *options
	io      stdio
	exec    *executor.Executor
	host    *script.Host
	interps map[string]script.Interp // by language name, created on first use
	agent   *agentSetup
	// provider answers ask() from the start (--model); record receives
	// the exchanges (--record).
	provider provider.Provider
	record   *recordFile // nil without --record
	argv     []string    // what scripts see as argv
	events   *events     // nil unless --json
	// eventsFile is --events FILE of mcp serve and hook.
	eventsFile *os.File
	// hookLog gathers the events of agentsh hook --events FILE.
	hookLog *hookLog

	runCtx context.Context // the non-interactive run's context
	// prices is the built-in price table with --prices FILE over it.
	prices *pricing.Table
	// pins are the pins of upstream tool definitions (mcppins.go).
	pins     *mcp.Pins
	pinsOnce sync.Once
	// closers release what the app set up besides the executor (the
	// sandbox's network proxy), last first.
	closers []func() error
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
			a.events = newEvents(w)
			extra = append(extra, executor.WithOnStart(a.events.toolStart), executor.WithOnEnd(a.events.toolEnd))
		}
	case o.command == "hook" && o.events != "" && !o.hookSetup():
		// The agent reads stdout; the policies' prints and the decision
		// go to --events FILE, in one block at the end (hookLog).
		f, err := a.openEvents()
		if err != nil {
			return nil, err
		}
		a.hookLog = &hookLog{f: f}
		a.events = newEvents(a.hookLog)
		out = a.events.printer()
	case o.command == "call" || o.command == "explain" || o.command == "hook":
		// stdout is the call's output alone; script prints go to stderr.
		out = std.err
		if o.jsonOut {
			a.events = newEvents(std.out)
		}
	case o.command == "ask" && o.printOnly:
		// stdout is the answer alone: what the --load files print goes to
		// stderr with the progress.
		out = std.err
	case o.jsonOut:
		a.events = newEvents(std.out)
		out = a.events.printer()
		extra = append(extra, executor.WithOnStart(a.events.toolStart), executor.WithOnEnd(a.events.toolEnd))
	}
	if o.model != "" {
		p, err := provider.Open(o.model)
		if err != nil {
			return nil, fmt.Errorf("--model: %w", err)
		}
		a.provider = p
		// A recording cut short says so at start, not only when the run
		// reaches its end.
		if w, ok := p.(interface{ Warnings() []string }); ok {
			for _, msg := range w.Warnings() {
				a.warn("replay_warning", msg)
			}
		}
	}
	if err := a.loadPrices(); err != nil {
		return nil, err
	}
	if o.record != "" {
		if err := checkRecordPath(o.record); err != nil {
			return nil, err
		}
		a.record = newRecordFile(o.record)
	}
	host, setup, err := a.newHost(out, true, extra...)
	if err != nil {
		a.close()
		return nil, err
	}
	a.host, a.exec, a.agent = host, host.Executor(), setup
	if a.exec.Permissions() == executor.PermissionsAllowAll {
		fmt.Fprintln(std.err, allowAllNotice)
	}
	return a, nil
}

// newHost returns a host on a new executor configured by the flags, with
// the built-in tools unless --no-builtins, and the agent. agentsh test
// makes one per test (main false: no --model, --record or --mcp).
func (a *app) newHost(out io.Writer, main bool, extra ...executor.Option) (*script.Host, *agentSetup, error) {
	o := a.opts
	execOpts := []executor.Option{executor.WithValidateArguments(true)}
	if o.mode != "" {
		m, _ := executor.ParseMode(o.mode) // checked by parseArgs
		execOpts = append(execOpts, executor.WithExecutionMode(m))
	}
	if o.concurrency >= 0 {
		execOpts = append(execOpts, executor.WithConcurrency(o.concurrency))
	}
	if o.permissions != "" {
		p, _ := executor.ParsePermissions(o.permissions) // checked by parseArgs
		execOpts = append(execOpts, executor.WithPermissions(p))
	}
	// Without a terminal (and until the REPL installs its prompt), asks
	// follow --approve; never is the default.
	execOpts = append(execOpts, executor.WithApprover(headlessApprover(o.approve)))
	exec := executor.New(core.NewRegistry(), append(execOpts, extra...)...)
	host := script.NewHost(exec, out)
	host.SetDeclarations(builtins.Tool)
	if !o.noBuiltins {
		if err := a.installTools(host); err != nil {
			_ = exec.Close()
			return nil, nil, err
		}
	}
	setup, err := a.installAgent(host, out, main)
	if err != nil {
		_ = exec.Close()
		return nil, nil, err
	}
	return host, setup, nil
}

func (a *app) close() {
	if a.agent != nil {
		_ = a.agent.close()
	}
	if a.exec != nil {
		_ = a.exec.Close()
	}
	if a.record != nil {
		_ = a.record.Close()
	}
	if a.eventsFile != nil {
		_ = a.eventsFile.Close()
	}
	for _, in := range a.interps {
		_ = in.Close()
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
}

// loadPolicies runs the --load files in order; their tools, hooks and
// middleware apply to everything that follows.
func (a *app) loadPolicies(ctx context.Context) error {
	for _, f := range a.opts.loads {
		if err := a.interp(a.langOf(f)).LoadFile(ctx, f); err != nil {
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
		a.events.error(err, code)
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

// agentsh runs the command line and returns the exit code.
func agentsh(args []string, std stdio) int {
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
		if o.jsonOut {
			ev := newEvents(std.out)
			ev.error(err, 2)
			if o.headlessCommand() {
				ev.result(resultEvent(nil, 2))
			}
			return 2
		}
		fmt.Fprintf(std.err, "agentsh: %v\n", withFlagHint(err))
		return 2
	}
	defer a.close()

	if o.command == "" && !o.hasCode && (o.interactive || isTerminal(std.in)) {
		return a.repl()
	}

	ctx, stop := runContext(o.timeout, std.err)
	defer stop()
	a.runCtx = ctx
	code := a.dispatch(ctx)
	if code == 0 && a.events != nil && o.serving() {
		// mcp serve ends its event stream with exit; the runs of scripts
		// and asks end theirs with result (finish).
		a.events.exit(0)
	}
	return code
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
		return a.finish(a.interp(a.langOf(o.positional[0])).LoadFile(ctx, o.positional[0]))
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
	return a.finish(a.interp(a.opts.lang).Run(ctx, "<stdin>", src))
}

// fail reports err and returns its exit code.
func (a *app) fail(err error) int {
	return a.report(err, stopCause(a.runCtx))
}
