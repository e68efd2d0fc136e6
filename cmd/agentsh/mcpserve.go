package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/mcp/serve"
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
	"listen":     func(o *options, v string) error { o.mcp.listen = v; return nil },
	"token-file": func(o *options, v string) error { o.mcp.tokenFile = v; return nil },
	"pins":       func(o *options, v string) error { o.mcp.pins = v; return nil },
	"accept":     func(o *options, v string) error { o.mcp.accept = v; return nil },
	"mcp-read-only": func(o *options, v string) error {
		o.mcp.readOnly = append(o.mcp.readOnly, v)
		return nil
	},
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
	if o.mcp.listen != "" {
		if err := serve.CheckListen(o.mcp.listen, token != ""); err != nil {
			return a.fail(usagef("%v", withFlagHint(err)))
		}
	} else if token != "" {
		return a.fail(usagef("--token-file needs --listen ADDR: a token guards HTTP; stdio is private to the client that started agentsh"))
	}

	hide := &listHooks{upstream: a.upstreamRecord}
	a.host.AddEvent(script.Event{Name: "list_tools", On: hide.add})
	srv := serve.New(a.exec, serve.Options{
		Name: "agentsh", Version: version(),
		Hide:     hide.hide,
		Fallback: headlessApprover(o.approve),
		Report:   func(err error) { fmt.Fprintf(a.io.err, "agentsh: mcp serve: %v\n", err) },
	})
	defer srv.Close()
	// Before the --load files, so that a script's on("approve", fn) and
	// config(offload = ...) replace these.
	a.exec.SetApprover(srv.Approver())
	if err := a.exec.SetArtifactOffload(executor.NewMemoryStore(), offloadThreshold); err != nil {
		return a.fail(err)
	}
	// Upstream tools (--mcp, a --load file's mcp_server) were checked
	// against the pins as they were listed: a changed one is not
	// registered, so not served.
	if err := a.loadPolicies(ctx); err != nil {
		return a.fail(err)
	}
	srv.Refresh()

	if o.mcp.listen == "" {
		t := &serve.StdioTransport{Reader: a.io.in, Writer: a.io.out}
		if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return a.fail(fmt.Errorf("mcp serve: %w", err))
		}
		return a.stopped()
	}
	ln, err := net.Listen("tcp", o.mcp.listen)
	if err != nil {
		return a.fail(fmt.Errorf("--listen: %w", err))
	}
	hs := serve.HTTPServer(srv.Handler(token))
	fmt.Fprintf(a.io.err, "agentsh: serving MCP on http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
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

// listHooks are the functions of on("list_tools", fn): fn(tool) gets a
// record with .name .description .read_only .idempotent and .upstream
// (an upstream tool's server, its name there and the server's hints, or
// None) and returns False to leave the tool out of tools/list (True or
// None keep it).
type listHooks struct {
	upstream func(name string) map[string]any // the .upstream of a tool (see upstreamRecord)

	mu  sync.Mutex
	fns []script.Func
}

func (l *listHooks) add(fn script.Func) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fns = append(l.fns, fn)
	return nil
}

func (l *listHooks) hide(ctx context.Context, t *core.Tool) (bool, error) {
	l.mu.Lock()
	fns := append([]script.Func(nil), l.fns...)
	l.mu.Unlock()
	var up any
	if l.upstream != nil {
		if r := l.upstream(t.Name); r != nil {
			up = r
		}
	}
	rec := script.Record{"name": t.Name, "description": t.Description, "read_only": t.ReadOnly, "idempotent": t.Idempotent, "upstream": up}
	for _, fn := range fns {
		out, err := fn.Call(ctx, rec)
		if err != nil {
			return true, fmt.Errorf("%s: %w", fn.Name(), err)
		}
		switch v := out.(type) {
		case nil:
		case bool:
			if !v {
				return true, nil
			}
		default:
			return true, fmt.Errorf("%s returned %v; a list_tools function returns True or None to list the tool, False to hide it", fn.Name(), out)
		}
	}
	return false, nil
}
