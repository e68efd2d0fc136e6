package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// Extension offers the tools of MCP servers to executor.Install (or
// agent.WithExtensions): Init connects to every server and lists its
// tools, Tools returns them, Close ends the sessions. The tools are those
// of the first listing: an Extension neither pins them nor follows
// notifications/tools/list_changed; a Client does both.
type Extension struct {
	cfgs []ServerConfig

	mu      sync.Mutex
	servers []*server
	tools   []core.Tool
}

var (
	_ core.Extension    = (*Extension)(nil)
	_ core.Initializer  = (*Extension)(nil)
	_ core.ToolProvider = (*Extension)(nil)
	_ core.Closer       = (*Extension)(nil)
)

// NewExtension returns an extension for the servers. Configuration errors
// are reported by Init.
func NewExtension(servers ...ServerConfig) *Extension {
	return &Extension{cfgs: append([]ServerConfig(nil), servers...)}
}

// Name is "mcp".
func (x *Extension) Name() string { return "mcp" }

// Init connects to the servers in order and lists their tools. If one
// fails, the sessions already open are closed.
func (x *Extension) Init(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.servers != nil {
		return errors.New("mcp: extension already initialised")
	}
	seen := map[string]bool{}
	for i := range x.cfgs {
		if err := x.cfgs[i].check(); err != nil {
			return err
		}
		if seen[x.cfgs[i].Name] {
			return fmt.Errorf("mcp: server %q is configured twice", x.cfgs[i].Name)
		}
		seen[x.cfgs[i].Name] = true
	}
	var servers []*server
	var tools []core.Tool
	for _, cfg := range x.cfgs {
		srv, ts, err := connect(ctx, cfg)
		if err != nil {
			for i := len(servers) - 1; i >= 0; i-- {
				_ = servers[i].close()
			}
			return err
		}
		servers = append(servers, srv)
		for _, u := range ts {
			tools = append(tools, u.tool)
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	x.servers, x.tools = servers, tools
	if x.servers == nil {
		x.servers = []*server{}
	}
	return nil
}

// Tools returns the servers' tools, sorted by name (after Init).
func (x *Extension) Tools() []core.Tool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]core.Tool(nil), x.tools...)
}

// Servers returns the configured server names, in configuration order.
func (x *Extension) Servers() []string {
	names := make([]string, len(x.cfgs))
	for i, c := range x.cfgs {
		names[i] = c.Name
	}
	return names
}

// Close ends every session; later calls of the tools fail with a "closed"
// error.
func (x *Extension) Close() error {
	x.mu.Lock()
	servers := x.servers
	x.mu.Unlock()
	var errs []error
	for i := len(servers) - 1; i >= 0; i-- {
		errs = append(errs, servers[i].close())
	}
	return errors.Join(errs...)
}
