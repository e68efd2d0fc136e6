package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/hookadapter"
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
	if a.opts.hookSetup() {
		if len(pos) != 2 {
			return a.fail(usagef("hook %s needs one agent: agentsh hook %s %s [--project|--user]", pos[0], pos[0], strings.Join(hookadapter.Agents(), "|")))
		}
		if pos[0] == "install" {
			return a.hookInstall(pos[1])
		}
		return a.hookUninstall(pos[1])
	}
	if len(pos) != 1 {
		fmt.Fprintf(a.io.err, "agentsh: hook needs one agent: agentsh hook %s --load POLICY\n", strings.Join(hookadapter.Agents(), "|"))
		return hookadapter.ExitBlock
	}
	if a.opts.timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, hookTimeout)
		defer cancel()
	}
	ho := agentsh.HookOptions{In: a.io.in, Out: a.io.out, Err: a.io.err, Scripts: a.opts.loads}
	if a.hookLog != nil {
		ho.Audit = func(rec hookadapter.Record) { a.events.emit(hookEvent(rec)) }
	}
	code := a.sh.Hook(ctx, pos[0], ho)
	if a.hookLog != nil {
		if err := a.hookLog.flush(); err != nil {
			// No record, no call: the audit trail is part of the policy.
			fmt.Fprintf(a.io.err, "agentsh: --events %s: %v, so the call is blocked\n", a.opts.events, err)
			return hookadapter.ExitBlock
		}
	}
	return code
}

// hookSettings is the settings file of agent that install and uninstall
// change: the project's (in --workdir, default the current directory) or,
// with --user, the user's.
func (a *app) hookSettings(agent string) (string, error) {
	scope, dir := hookadapter.ScopeProject, a.opts.workdir
	if a.opts.hookScope == "user" {
		scope = hookadapter.ScopeUser
	}
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return hookadapter.SettingsPath(agent, scope, dir)
}

// hookInstall writes agentsh's hook entries for agent, with the --load
// files, --permissions, --max-steps, --timeout and --events, replacing
// any it had there.
func (a *app) hookInstall(agent string) int {
	path, err := a.hookSettings(agent)
	if err != nil {
		return a.fail(usagef("hook install: %v", err))
	}
	exe, err := a.hookExe()
	if err != nil {
		return a.fail(fmt.Errorf("hook install: %w", err))
	}
	var args []string
	for _, f := range a.opts.loads {
		abs, err := existingFile("--load", f)
		if err != nil {
			return a.fail(fmt.Errorf("hook install: %w", err))
		}
		args = append(args, "--load", abs)
	}
	if p := a.opts.permissions; p != "" {
		args = append(args, "--permissions", p)
	}
	if n := a.opts.maxSteps; n > 0 {
		args = append(args, "--max-steps", strconv.FormatUint(n, 10))
	}
	deadline := hookTimeout
	if t := a.opts.timeout; t > 0 {
		deadline = t
		args = append(args, "--timeout", t.String())
	}
	if f := a.opts.events; f != "" {
		abs, err := filepath.Abs(f)
		if err != nil {
			return a.fail(err)
		}
		args = append(args, "--events", abs)
	}
	entry := hookadapter.Entry{Command: hookadapter.Command(exe, agent, args), Timeout: deadline + hookGrace}
	c, err := hookadapter.Install(agent, path, entry)
	if err != nil {
		return a.fail(fmt.Errorf("hook install: %w", err))
	}
	events := strings.Join(hookadapter.Events(agent), ", ")
	switch {
	case !c.Wrote:
		fmt.Fprintf(a.io.out, "agentsh: %s already runs these hooks (%s); nothing changed\n", c.Path, events)
	case c.Removed > 0:
		fmt.Fprintf(a.io.out, "agentsh: replaced agentsh's %s in %s with entries for %s\n", hookEntries(c.Removed), c.Path, events)
	default:
		fmt.Fprintf(a.io.out, "agentsh: added hook entries for %s to %s\n", events, c.Path)
	}
	fmt.Fprintf(a.io.out, "agentsh: each runs (for up to %s): %s\n", entry.Timeout, entry.Command)
	for _, note := range trustNotes(agent, a.opts.hookScope != "user", c.Wrote) {
		fmt.Fprintln(a.io.out, "agentsh: "+note)
	}
	a.hookElsewhere(agent, c.Path)
	return 0
}

// hookElsewhere says which other files the agent reads also run agentsh's
// hooks: each event would be decided twice.
func (a *app) hookElsewhere(agent, path string) {
	dir, _ := filepath.Abs(cmp.Or(a.opts.workdir, "."))
	scope, flag := hookadapter.ScopeUser, "--user"
	if a.opts.hookScope == "user" {
		scope, flag = hookadapter.ScopeProject, "--project"
	}
	otherScope, _ := hookadapter.SettingsPath(agent, scope, dir)
	for _, other := range hookadapter.Elsewhere(agent, dir, path) {
		how := "take those entries out by hand"
		if other == otherScope {
			how = "agentsh hook uninstall " + agent + " " + flag + " takes them out"
		}
		fmt.Fprintf(a.io.out, "agentsh: %s also runs agentsh hook %s, so the agent asks agentsh twice for every event; %s\n", other, agent, how)
	}
}

// trustNotes say when the agent will not run the entries at all, and the
// calls go ahead unchecked (as TestHookTrustRealClients measures).
func trustNotes(agent string, project, wrote bool) []string {
	var notes []string
	switch {
	case agent == "gemini" && project:
		notes = append(notes, "Gemini CLI runs a project's hooks only in a trusted folder: trust this one when Gemini CLI asks "+
			"(headless: GEMINI_CLI_TRUST_WORKSPACE=true); with --skip-trust it runs without them")
	case agent == "codex" && project:
		notes = append(notes, "Codex reads a project's .codex only in a trusted project: trust it when Codex asks, or run codex exec --trust once")
	}
	if agent == "codex" && wrote {
		notes = append(notes, "Codex runs a new or changed hook only once you trust it: start codex and trust these entries at \"Hooks need review\"; "+
			"until then codex exec skips them without a word and every call goes ahead unchecked")
	}
	return notes
}

// hookUninstall takes agentsh's hook entries for agent out of its
// settings.
func (a *app) hookUninstall(agent string) int {
	path, err := a.hookSettings(agent)
	if err != nil {
		return a.fail(usagef("hook uninstall: %v", err))
	}
	c, err := hookadapter.Uninstall(agent, path)
	if err != nil {
		return a.fail(fmt.Errorf("hook uninstall: %w", err))
	}
	if c.Removed == 0 {
		fmt.Fprintf(a.io.out, "agentsh: %s has no agentsh hook entries; nothing changed\n", c.Path)
		return 0
	}
	fmt.Fprintf(a.io.out, "agentsh: removed agentsh's %s from %s\n", hookEntries(c.Removed), c.Path)
	return 0
}

func hookEntries(n int) string {
	if n == 1 {
		return "1 hook entry"
	}
	return strconv.Itoa(n) + " hook entries"
}

// hookExe is the agentsh that installed entries run: --exe, else this
// one; a regular, executable file, and (unless --allow-temp-exe) one that
// is not in the Go build cache or a temp directory.
func (a *app) hookExe() (string, error) {
	exe, flag := a.opts.hook.exe, "--exe"
	if exe == "" {
		e, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("cannot find the agentsh executable (%v); name it with --exe PATH", err)
		}
		exe, flag = e, "the agentsh executable"
	}
	abs, err := existingFile(flag, exe)
	if err != nil {
		return "", err
	}
	if st, _ := os.Stat(abs); st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s %s is not executable; name agentsh's binary", flag, abs)
	}
	if !a.opts.hook.allowTempExe {
		if err := hookadapter.CheckExecutable(abs); err != nil {
			return "", err
		}
	}
	return abs, nil
}

// existingFile is path made absolute, when it names a regular file.
func existingFile(flag, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", flag, path, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s %s: %v", flag, path, err)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%s %s is not a regular file", flag, path)
	}
	return abs, nil
}
