package agentsh

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/tools/mcp/serve"
)

// ServeOptions are how ServeMCP serves the registry.
type ServeOptions struct {
	// Name and Version introduce the server; "" is "agentsh", "devel".
	Name, Version string
	// Listen serves streamable HTTP on the address; "" serves In and Out
	// (stdio).
	Listen string
	// Token is the bearer token HTTP clients must send; without it
	// Listen must be a loopback address.
	Token string
	In    io.Reader
	Out   io.Writer
	// Fallback answers the asks of clients that cannot elicit.
	Fallback core.Approver
	// Report receives what cannot be returned to a client.
	Report func(error)
	// Scripts are loaded once the server is set up, so that their
	// on("approve", fn), on("list_tools", fn) and config(offload = ...)
	// apply.
	Scripts []string
	// Listening is called with the address once HTTP is served.
	Listening func(net.Addr)
}

// offloadThreshold is the output size above which a served result is
// kept as an artifact and a preview is sent; config(offload = ...)
// changes it.
const offloadThreshold = 16 << 10

// ServeMCP serves the shell's registry as an MCP server until the
// client goes away (stdio) or ctx ends, and returns nil then. Every call
// a client makes goes through the pipeline as an MCP client's
// (core.OriginMCP); an ask elicits from a client that can, else goes to
// Fallback.
func (s *Shell) ServeMCP(ctx context.Context, o ServeOptions) error {
	if o.Listen != "" {
		if err := serve.CheckListen(o.Listen, o.Token != ""); err != nil {
			return &OptionError{Option: "ServeOptions.Listen", Err: err}
		}
	} else if o.Token != "" {
		return optionErrorf("ServeOptions.Token", "a token guards HTTP, and needs Listen; stdio is private to the client that started the server")
	}
	if o.Name == "" {
		o.Name = "agentsh"
	}
	list := script.OnListTools(s.host, s.Upstream)
	srv := serve.New(s.exec, serve.Options{Name: o.Name, Version: o.Version, Hide: list.Hide, Fallback: o.Fallback, Report: o.Report})
	defer srv.Close()
	// Before the scripts, so that their on("approve", fn) and
	// config(offload = ...) replace these.
	s.exec.SetApprover(srv.Approver())
	if err := s.exec.SetArtifactOffload(executor.NewMemoryStore(), offloadThreshold); err != nil {
		return err
	}
	// Upstream tools were checked against the pins as they were listed:
	// a changed one is not registered, so not served.
	for _, f := range o.Scripts {
		if err := s.Load(ctx, f); err != nil {
			return err
		}
	}
	srv.Refresh()

	if o.Listen == "" {
		err := srv.Run(ctx, &serve.StdioTransport{Reader: o.In, Writer: o.Out})
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return &OptionError{Option: "ServeOptions.Listen", Err: err}
	}
	hs := serve.HTTPServer(srv.Handler(o.Token))
	if o.Listening != nil {
		o.Listening(ln.Addr())
	}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Upstream describes an upstream tool of the shell's MCP servers: its
// server, the server's name for it and the server's hints (its
// annotations, which agentsh does not believe); nil for another tool.
func (s *Shell) Upstream(name string) map[string]any {
	d, ok := s.mcp.Definition(name)
	if !ok {
		return nil
	}
	var hints any
	if len(d.Annotations) > 0 {
		var m map[string]any
		if json.Unmarshal(d.Annotations, &m) == nil {
			hints = m
		}
	}
	return map[string]any{"server": d.Server, "tool": d.Tool, "hints": hints}
}
