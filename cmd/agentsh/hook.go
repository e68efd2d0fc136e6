package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh"
)

// hookTimeout bounds one hook event unless --timeout says otherwise; it is
// shorter than the agents' own hook timeouts, so agentsh's blocking answer
// comes first.
const hookTimeout = 30 * time.Second

// hookGrace is how much longer than agentsh's own deadline the installed
// entries let the agent wait for the hook: long enough that agentsh's
// blocking answer comes before the agent's timeout, which Claude Code,
// Gemini CLI and Codex all take as "go ahead".
const hookGrace = 30 * time.Second

// hookOptions are the flags of agentsh hook install.
type hookOptions struct {
	exe          string // --exe PATH: the agentsh the entries run
	allowTempExe bool   // --allow-temp-exe: even from the Go build cache or a temp directory
	// --no-after-hooks: the entries that run this leave out the event
	// after a tool call (written by hook install).
	noAfter bool
}

func init() {
	valueFlags["exe"] = func(o *options, v string) error { o.hook.exe = v; return nil }
}

// hookSetup reports whether the command is hook install or uninstall.
func (o *options) hookSetup() bool {
	return o.command == "hook" && len(o.positional) > 0 && (o.positional[0] == "install" || o.positional[0] == "uninstall")
}

// checkHookFlags refuses the flags of hook install elsewhere.
func checkHookFlags(o *options) error {
	install := o.hookSetup() && o.positional[0] == "install"
	switch {
	case o.hookScope != "" && !o.hookSetup():
		return usagef("--%s chooses the settings file of agentsh hook install and uninstall", o.hookScope)
	case o.hook.exe != "" && !install:
		return usagef("--exe names the agentsh that agentsh hook install writes into the entries")
	case o.hook.allowTempExe && !install:
		return usagef("--allow-temp-exe applies to agentsh hook install")
	case o.hook.noAfter && (o.command != "hook" || o.hookSetup()):
		return usagef("--no-after-hooks is written by agentsh hook install into entries that leave out the event after a call; it applies to agentsh hook AGENT")
	case o.events != "" && o.command != "hook" && o.command != "mcp":
		return usagef("--events FILE applies to agentsh mcp serve and agentsh hook; use --json for the events of %s", o.command)
	}
	return nil
}

// hook runs: agentsh hook AGENT (one event on stdin, the agent's answer on
// stdout), agentsh hook install AGENT and agentsh hook uninstall AGENT.
// Every failure of the first is exit 2, the agents' blocking outcome.
func (a *app) hook(ctx context.Context) int {
	pos := a.opts.positional
	agents := strings.Join(agentsh.HookAgents(), "|")
	if a.opts.hookSetup() {
		if len(pos) != 2 {
			return a.fail(usagef("hook %s needs one agent: agentsh hook %s %s [--project|--user]", pos[0], pos[0], agents))
		}
		return a.hookSetup(pos[0], pos[1])
	}
	if len(pos) != 1 {
		fmt.Fprintf(a.io.err, "agentsh: hook needs one agent: agentsh hook %s --load POLICY\n", agents)
		return agentsh.HookExitBlock
	}
	if a.opts.timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, hookTimeout)
		defer cancel()
	}
	ho := agentsh.HookOptions{In: a.io.in, Out: a.io.out, Err: a.io.err, Scripts: a.opts.loads, NoAfter: a.opts.hook.noAfter}
	if a.hookLog != nil {
		ho.Events = a.events
	}
	code := a.sh.Hook(ctx, pos[0], ho)
	if a.hookLog != nil {
		if err := a.hookLog.Flush(); err != nil {
			// No record, no call: the audit trail is part of the policy.
			fmt.Fprintf(a.io.err, "agentsh: --events %s: %v, so the call is blocked\n", a.opts.events, err)
			return agentsh.HookExitBlock
		}
	}
	return code
}

// hookSetup runs hook install (with the --load files, --permissions,
// --max-steps, --timeout, --events and --audit in the entries) and hook uninstall,
// and says what changed.
func (a *app) hookSetup(cmd, agent string) int {
	o := a.opts
	hi := agentsh.HookInstall{Agent: agent, User: o.hookScope == "user", WorkDir: o.workdir, Scripts: o.loads,
		Exe: o.hook.exe, AllowTempExe: o.hook.allowTempExe, Timeout: hookTimeout + hookGrace}
	var (
		c   agentsh.HookChange
		err error
	)
	if cmd == "uninstall" {
		c, err = agentsh.UninstallHook(hi)
	} else {
		hi.Permissions, hi.MaxSteps, hi.Deadline, hi.EventsFile, hi.AuditFile = o.permissions, o.maxSteps, o.timeout, o.events, o.audit.file
		if t := o.timeout; t > 0 {
			hi.Timeout = t + hookGrace
		}
		c, err = agentsh.InstallHook(hi)
	}
	var oe *agentsh.OptionError
	switch {
	case errors.As(err, &oe) && oe.Option == "HookInstall.Agent":
		return a.fail(usagef("hook %s: %v", cmd, oe.Err))
	case err != nil:
		if text, ok := flagText(err); ok {
			return a.fail(fmt.Errorf("hook %s: %s", cmd, text))
		}
		return a.fail(fmt.Errorf("hook %s: %w", cmd, err))
	}
	out := a.io.out
	if cmd == "uninstall" {
		if c.Removed == 0 {
			fmt.Fprintf(out, "agentsh: %s has no agentsh hook entries; nothing changed\n", c.Path)
		} else {
			fmt.Fprintf(out, "agentsh: removed agentsh's %s from %s\n", hookEntries(c.Removed), c.Path)
		}
		return 0
	}
	events := strings.Join(c.Events, ", ")
	switch {
	case !c.Wrote:
		fmt.Fprintf(out, "agentsh: %s already runs these hooks (%s); nothing changed\n", c.Path, events)
	case c.Removed > 0:
		fmt.Fprintf(out, "agentsh: replaced agentsh's %s in %s with entries for %s\n", hookEntries(c.Removed), c.Path, events)
	default:
		fmt.Fprintf(out, "agentsh: added hook entries for %s to %s\n", events, c.Path)
	}
	fmt.Fprintf(out, "agentsh: each runs (for up to %s): %s\n", hi.Timeout, c.Command)
	if c.NoAfter {
		fmt.Fprintf(out, "agentsh: the policies have no after hook, so no entry runs after a call; install again when one gains an after hook (until then it blocks every call)\n")
	}
	for _, note := range c.Notes {
		fmt.Fprintln(out, "agentsh: "+note)
	}
	flag := "--user"
	if hi.User {
		flag = "--project"
	}
	for _, other := range c.Elsewhere {
		how := "take those entries out by hand"
		if other == c.OtherScope {
			how = "agentsh hook uninstall " + agent + " " + flag + " takes them out"
		}
		fmt.Fprintf(out, "agentsh: %s also runs agentsh hook %s, so the agent asks agentsh twice for every event; %s\n", other, agent, how)
	}
	return 0
}

func hookEntries(n int) string {
	if n == 1 {
		return "1 hook entry"
	}
	return strconv.Itoa(n) + " hook entries"
}
