package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/script"
)

// agentsh mcp serve: the registry as an MCP server (package
// tools/mcp/serve); agentsh mcp pins is in mcppins.go.

// mcpOptions are the flags of agentsh mcp.
type mcpOptions struct {
	listen    string   // --listen ADDR: streamable HTTP instead of stdio
	tokenFile string   // --token-file FILE
	pins      string   // --pins FILE
	accept    string   // --accept NAME (mcp pins)
	readOnly  []string // --mcp-read-only NAME=TOOL,... (applied to the --mcp servers)
}

var mcpFlags = map[string]func(o *options, v string) error{
	"listen":        str(func(o *options) *string { return &o.mcp.listen }),
	"token-file":    str(func(o *options) *string { return &o.mcp.tokenFile }),
	"pins":          str(func(o *options) *string { return &o.mcp.pins }),
	"accept":        str(func(o *options) *string { return &o.mcp.accept }),
	"mcp-read-only": list(func(o *options) *[]string { return &o.mcp.readOnly }),
}

// offloadThreshold is the output size above which mcp serve keeps a
// result as an artifact and sends a preview; config(offload = ...) in a
// --load file changes it.
const offloadThreshold = 16 << 10

// mcpEvents is where mcp serve writes --json events: --events FILE, else
// stderr; nil without either.
func (a *app) mcpEvents(std stdio) (io.Writer, error) {
	if a.opts.events != "" {
		f, err := a.openEvents()
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	if a.opts.jsonOut {
		return std.err, nil
	}
	return nil, nil
}

// serving reports whether the command is agentsh mcp serve (or a
// mistaken agentsh mcp ...), whose stdout is the protocol stream; agentsh
// mcp pins writes to stdout like any command.
func (o *options) serving() bool {
	return o.command == "mcp" && (len(o.positional) == 0 || o.positional[0] != "pins")
}

// mcp runs agentsh mcp serve|pins.
func (a *app) mcp(ctx context.Context) int {
	args := a.opts.positional
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch {
	case sub == "serve" && len(args) == 1:
		return a.mcpServe(ctx)
	case sub == "pins":
		return a.pinsCommand(args[1:])
	}
	return a.fail(usagef("mcp: got %q, want agentsh mcp serve [--listen ADDR] or agentsh mcp pins [NAME...] [--accept NAME]", strings.Join(args, " ")))
}

func (a *app) mcpServe(ctx context.Context) int {
	o := a.opts
	var token string
	if o.mcp.tokenFile != "" {
		b, err := os.ReadFile(o.mcp.tokenFile)
		if err != nil {
			return a.fail(usagef("--token-file: %v", err))
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return a.fail(usagef("--token-file %s is empty: put a long random token in it", o.mcp.tokenFile))
		}
	}
	err := a.sh.ServeMCP(ctx, agentsh.ServeOptions{
		Version: version(), Listen: o.mcp.listen, Token: token, In: a.io.in, Out: a.io.out,
		Fallback:  headlessApprover(o.approve),
		Report:    func(err error) { fmt.Fprintf(a.io.err, "agentsh: mcp serve: %v\n", err) },
		Scripts:   o.loads,
		Listening: func(addr net.Addr) { fmt.Fprintf(a.io.err, "agentsh: serving MCP on http://%s/\n", addr) },
	})
	var script *script.Error
	var opt *agentsh.OptionError
	switch {
	case errors.As(err, &script):
		return a.fail(err)
	case errors.As(err, &opt):
		return a.fail(flagError(err))
	case err != nil:
		return a.fail(fmt.Errorf("mcp serve: %w", err))
	}
	return a.stopped()
}

// stopped is the exit code of a server that ended: 0 when its client
// went away, the signal's when it was stopped.
func (a *app) stopped() int {
	if stop := stopCause(a.runCtx); stop != nil {
		return a.report(stop, stop)
	}
	return 0
}
