package main

import (
	"context"
	"strings"
	"time"

	"github.com/agentsh/agentsh"
)

// endGrace bounds the session_end hooks of a run a signal or --timeout
// has already ended: short of the stopper's exit, so that the result is
// still written.
const endGrace = 500 * time.Millisecond

// endSession ends the conversation of a run that is done, for good: its
// session_end hooks run with ctx, or, when ctx has already ended (a
// signal, --timeout), for at most endGrace. The error is a hook's (or the
// session file's). Closing the shell does not run them again.
func (a *app) endSession(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	} else if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), endGrace)
		defer cancel()
	}
	return a.sh.Agent().End(ctx)
}

// parseMCPFlag reads --mcp NAME=COMMAND ARGS... or --mcp NAME=URL.
func parseMCPFlag(v string) (agentsh.MCPServer, error) {
	name, target, ok := strings.Cut(v, "=")
	if !ok || name == "" || strings.TrimSpace(target) == "" {
		return agentsh.MCPServer{}, usagef("--mcp: got %q, want NAME=COMMAND [ARGS...] or NAME=http://HOST/PATH", v)
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return agentsh.MCPServer{Name: name, URL: target}, nil
	}
	return agentsh.MCPServer{Name: name, Command: strings.Fields(target)}, nil
}

// applyMCPReadOnly gives the --mcp servers the tools --mcp-read-only
// NAME=TOOL[,TOOL...] declares read-only.
func (o *options) applyMCPReadOnly() error {
	for _, v := range o.mcp.readOnly {
		name, list, ok := strings.Cut(v, "=")
		var tools []string
		for _, t := range strings.Split(list, ",") {
			if t = strings.TrimSpace(t); t != "" {
				tools = append(tools, t)
			}
		}
		if !ok || name == "" || len(tools) == 0 {
			return usagef("--mcp-read-only: got %q, want NAME=TOOL[,TOOL...] naming tools of --mcp NAME=...", v)
		}
		found := false
		for i := range o.mcpServers {
			if o.mcpServers[i].Name == name {
				o.mcpServers[i].ReadOnly = append(o.mcpServers[i].ReadOnly, tools...)
				found = true
			}
		}
		if !found {
			return usagef("--mcp-read-only %s: no --mcp %s=... is given; name a server of --mcp (servers of mcp_server(...) take read_only = [...])", v, name)
		}
	}
	return nil
}
