package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// Client keeps MCP sessions and the tools they registered into a registry.
// It is safe for concurrent use.
type Client struct {
	reg *core.Registry

	mu      sync.Mutex
	servers map[string]*entry // by server name; nil entry = being added
}

type entry struct {
	srv   *server
	tools []string // registered names, sorted
}

// NewClient returns a Client that registers remote tools into reg.
func NewClient(reg *core.Registry) *Client {
	return &Client{reg: reg, servers: map[string]*entry{}}
}

// Add connects to a server, lists its tools (every page) and registers them
// as mcp__NAME__TOOL. It returns the registered names, sorted. Registration
// is all or nothing: if a tool cannot be registered (a name already taken,
// a schema that does not compile), none is and the session is closed.
//
// Every call of these tools goes through the executor pipeline like any
// other. ctx bounds the connection and listing, not the session.
func (c *Client) Add(ctx context.Context, cfg ServerConfig) ([]string, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if _, dup := c.servers[cfg.Name]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("mcp: server %q is already added", cfg.Name)
	}
	c.servers[cfg.Name] = nil // reserve the name
	c.mu.Unlock()

	srv, tools, err := open(ctx, cfg)
	if err == nil {
		err = c.reg.RegisterTools(tools...)
		if err != nil {
			err = fmt.Errorf("mcp server %s: %w", cfg.Name, err)
			_ = srv.close()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.servers, cfg.Name)
		return nil, err
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	c.servers[cfg.Name] = &entry{srv: srv, tools: names}
	return append([]string(nil), names...), nil
}

// open connects to a server and builds its tools. On failure nothing stays
// open.
func open(ctx context.Context, cfg ServerConfig) (*server, []core.Tool, error) {
	srv := newServer(cfg)
	remote, err := srv.listTools(ctx)
	if err == nil {
		var tools []core.Tool
		tools, err = srv.buildTools(remote)
		if err == nil {
			return srv, tools, nil
		}
	}
	_ = srv.close()
	return nil, nil, err
}

// Servers returns the names of the servers added, sorted.
func (c *Client) Servers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.servers))
	for n, e := range c.servers {
		if e != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Tools returns the names of the tools a server registered, sorted, or nil
// if no server of that name was added.
func (c *Client) Tools(server string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.servers[server]; e != nil {
		return append([]string(nil), e.tools...)
	}
	return nil
}

// Remove closes one server's session and unregisters its tools.
func (c *Client) Remove(server string) error {
	c.mu.Lock()
	e := c.servers[server]
	if e == nil {
		c.mu.Unlock()
		return fmt.Errorf("mcp: no server %q", server)
	}
	delete(c.servers, server)
	c.mu.Unlock()
	return c.remove(e)
}

// Close closes every session and unregisters their tools. Calls that
// already resolved one of the tools fail with a "closed" error. The Client
// may be used again afterwards.
func (c *Client) Close() error {
	c.mu.Lock()
	var entries []*entry
	for n, e := range c.servers {
		if e != nil {
			entries = append(entries, e)
			delete(c.servers, n)
		}
	}
	c.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].srv.name() < entries[j].srv.name() })
	var errs []error
	for _, e := range entries {
		errs = append(errs, c.remove(e))
	}
	return errors.Join(errs...)
}

// remove unregisters a server's tools (those still registered) and closes
// its session.
func (c *Client) remove(e *entry) error {
	for _, n := range e.tools {
		if c.reg.GetTool(n) != nil {
			_ = c.reg.UnregisterTools(n) // fails only if removed meanwhile
		}
	}
	return e.srv.close()
}
