package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// hookTimeout bounds one hook event unless --timeout says otherwise; it is
// shorter than the agents' own hook timeouts, so agentsh's blocking answer
// comes first.
const hookTimeout = 30 * time.Second

// hook runs: agentsh hook AGENT (one event on stdin, the agent's answer on
// stdout) and agentsh hook install claude-code [--project|--user]. Every
// failure of the first is exit 2, the agents' blocking outcome.
func (a *app) hook(ctx context.Context) int {
	pos := a.opts.positional
	if len(pos) > 0 && pos[0] == "install" {
		return a.hookInstall(pos[1:])
	}
	if len(pos) != 1 {
		fmt.Fprintf(a.io.err, "agentsh: hook needs one agent: agentsh hook %s --load POLICY\n", strings.Join(hookadapter.Agents(), "|"))
		return hookadapter.ExitBlock
	}
	proto, err := hookadapter.Lookup(pos[0])
	if err != nil {
		fmt.Fprintf(a.io.err, "agentsh: hook: %v\n", err)
		return hookadapter.ExitBlock
	}
	if a.opts.timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, hookTimeout)
		defer cancel()
	}
	// The agent runs the tool and validates its own input; agentsh's
	// schemas would only approximate the agent's.
	a.exec.SetValidateArguments(false)
	cfg := hookadapter.Config{
		Protocol: proto,
		Exec:     a.exec,
		Load:     a.loadPolicies,
		Prompt:   a.agent.session.Agent().SubmitPrompt,
	}
	if dir, err := hookadapter.DefaultStateDir(); err == nil {
		cfg.StateDir = dir
	}
	return hookadapter.Run(ctx, cfg, a.io.in, a.io.out, a.io.err)
}

// hookInstall merges agentsh's hook entries, with the --load files, into
// Claude Code's settings.
func (a *app) hookInstall(args []string) int {
	if len(args) != 1 || args[0] != "claude-code" {
		return a.fail(usagef("hook install supports claude-code: agentsh hook install claude-code [--project|--user] --load POLICY"))
	}
	exe, err := os.Executable()
	if err != nil {
		return a.fail(fmt.Errorf("hook install: cannot find the agentsh executable: %v", err))
	}
	parts := []string{hookadapter.ShellQuote(exe), "hook", "claude-code"}
	for _, f := range a.opts.loads {
		abs, err := filepath.Abs(f)
		if err != nil {
			return a.fail(err)
		}
		parts = append(parts, "--load", hookadapter.ShellQuote(abs))
	}
	if p := a.opts.permissions; p != "" {
		parts = append(parts, "--permissions", p)
	}
	var path string
	if a.opts.hookScope == "user" {
		home, err := os.UserHomeDir()
		if err != nil {
			return a.fail(fmt.Errorf("hook install --user: no home directory (%v); set HOME", err))
		}
		path = hookadapter.ClaudeCodeSettings(false, "", home)
	} else {
		dir := a.opts.workdir
		if dir == "" {
			dir = "."
		}
		path = hookadapter.ClaudeCodeSettings(true, dir, "")
	}
	changed, err := hookadapter.InstallClaudeCode(path, strings.Join(parts, " "))
	if err != nil {
		return a.fail(fmt.Errorf("hook install: %w", err))
	}
	if changed {
		fmt.Fprintf(a.io.out, "agentsh: added the hook entries to %s\n", path)
	} else {
		fmt.Fprintf(a.io.out, "agentsh: %s already runs these hooks\n", path)
	}
	return 0
}
