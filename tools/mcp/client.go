package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/agentsh/agentsh/core"
)

// Client keeps MCP sessions and the tools they registered into a registry,
// and follows each server's tool list as it changes (see follow.go). It is
// safe for concurrent use.
type Client struct {
	reg  *core.Registry
	pins *Pins
	warn func(string)

	mu      sync.Mutex
	servers map[string]*entry // by server name; nil entry = being added
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithPins checks every listing of a server's tools against pins: a tool
// seen for the first time is pinned, a tool whose definition changed is
// held back (not registered) until a person accepts it (see Pins). A
// Client without pins registers every tool as listed.
func WithPins(p *Pins) ClientOption { return func(c *Client) { c.pins = p } }

// WithWarn receives what a person should know that no caller is there to
// be told: a tool held back, a tool whose name another tool holds, a
// listing that failed after the server said its tools changed, a
// ReadOnly name the server does not offer. fn is called on any
// goroutine, and must not call the Client.
func WithWarn(fn func(msg string)) ClientOption { return func(c *Client) { c.warn = fn } }

// NewClient returns a Client that registers remote tools into reg.
func NewClient(reg *core.Registry, opts ...ClientOption) *Client {
	c := &Client{reg: reg, servers: map[string]*entry{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *Client) warnf(format string, args ...any) {
	if c.warn != nil {
		c.warn(fmt.Sprintf(format, args...))
	}
}

// entry is one server added to the Client, and the tools it registered.
type entry struct {
	srv *server

	mu         sync.Mutex // held while a listing is applied
	closed     bool
	tools      map[string]*registered // by local name
	held       map[string]Held        // by local name
	warnedHeld map[string]string      // local name → the digest held back that was warned about
	taken      map[string]bool        // local names another tool holds, warned about
	listed     chan struct{}          // closed and replaced after every listing (tests wait on it)

	stop context.CancelFunc // ends follow
	done chan struct{}      // closed when follow has returned
}

// registered is a tool a server registered.
type registered struct {
	def    *Definition
	digest string
	tool   *core.Tool // the registry's, to tell it from another tool of the same name
}

// Add connects to a server, lists its tools (every page) and registers them
// as mcp__NAME__TOOL, except those held back by the pins (see WithPins).
// It returns the registered names, sorted. Registration is all or
// nothing: if a tool cannot be registered (a name already taken, a schema
// that does not compile) or the pins cannot be read, none is and the
// session is closed.
//
// From then on the Client follows the server's tool list: when the server
// sends notifications/tools/list_changed, or a lost connection is made
// again, the tools are listed again and the registry follows — new tools
// registered (pinned at first sight), vanished ones removed, changed ones
// held back. Calls already running keep the tool they started with.
//
// Every call of these tools goes through the executor pipeline like any
// other. ctx bounds the connection and first listing, not the session.
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

	e, names, err := c.open(ctx, cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.servers, cfg.Name)
		return nil, err
	}
	c.servers[cfg.Name] = e
	followCtx, stop := context.WithCancel(context.Background())
	e.stop = stop
	go c.follow(followCtx, e)
	return names, nil
}

// open connects to a server, lists its tools and registers those the pins
// let through. On failure nothing stays open or registered.
func (c *Client) open(ctx context.Context, cfg ServerConfig) (*entry, []string, error) {
	srv, tools, err := connect(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range tools {
		// Taken is found before any pin is looked at: the pin of that
		// name may be another server's.
		if c.reg.GetTool(u.tool.Name) != nil {
			_ = srv.close()
			return nil, nil, taken(cfg.Name, &u)
		}
	}
	ok, held, err := c.judge(srv, tools)
	if err == nil {
		list := make([]core.Tool, len(ok))
		for i, u := range ok {
			list[i] = u.tool
		}
		err = c.reg.RegisterTools(list...)
	}
	var dup *core.DuplicateToolError
	switch {
	case errors.As(err, &dup): // taken meanwhile
		for i := range ok {
			if ok[i].tool.Name == dup.Name {
				err = taken(cfg.Name, &ok[i])
			}
		}
	case err != nil:
		err = fmt.Errorf("mcp server %s: %w", cfg.Name, err)
	}
	if err != nil {
		_ = srv.close()
		return nil, nil, err
	}
	e := &entry{srv: srv, tools: map[string]*registered{}, held: held, warnedHeld: map[string]string{},
		taken: map[string]bool{}, listed: make(chan struct{}), done: make(chan struct{})}
	names := make([]string, len(ok))
	for i, u := range ok {
		names[i] = u.tool.Name
		e.tools[u.tool.Name] = &registered{def: u.def, digest: u.digest, tool: c.reg.GetTool(u.tool.Name)}
	}
	if unknown := srv.unknownReadOnly(tools); len(unknown) > 0 {
		c.warnf("mcp server %s: the tools declared read-only %q are not among the tools it offers; check their names with `agentsh tools`", cfg.Name, unknown)
	}
	e.warnHeld(c, held)
	return e, names, nil
}

// taken is the error of a tool whose local name another tool holds.
func taken(server string, u *upstream) error {
	return fmt.Errorf("mcp server %s: its tool %q would register as %s, a name another tool holds; give the server another name, or remove that tool",
		server, u.def.Tool, u.tool.Name)
}

// connect connects to a server and builds its tools. On failure nothing
// stays open.
func connect(ctx context.Context, cfg ServerConfig) (*server, []upstream, error) {
	srv := newServer(cfg)
	remote, err := srv.listTools(ctx, true)
	if err == nil {
		var tools []upstream
		tools, err = srv.buildTools(remote)
		if err == nil {
			return srv, tools, nil
		}
	}
	_ = srv.close()
	return nil, nil, err
}

// judge splits a listing into the tools to register and those the pins
// hold back.
func (c *Client) judge(srv *server, tools []upstream) (ok []upstream, held map[string]Held, err error) {
	held = map[string]Held{}
	if c.pins == nil {
		return tools, held, nil
	}
	live := make(map[string]*Definition, len(tools))
	for _, u := range tools {
		live[u.tool.Name] = u.def
	}
	changed, err := c.pins.check(live)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range tools {
		if parts, h := changed[u.tool.Name]; h {
			held[u.tool.Name] = Held{Tool: u.tool.Name, Server: srv.name(), Changed: parts, Pins: c.pins.Path(), digest: u.digest}
			continue
		}
		ok = append(ok, u)
	}
	return ok, held, nil
}

// warnHeld tells the person about each tool held back, once for each
// changed definition (a server that flips between two says so twice).
// e.mu is held, or e is not shared yet.
func (e *entry) warnHeld(c *Client, held map[string]Held) {
	names := make([]string, 0, len(held))
	for n := range held {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if e.warnedHeld[n] != held[n].digest {
			e.warnedHeld[n] = held[n].digest
			c.warnf("mcp server %s: %v", held[n].Server, held[n])
		}
	}
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

// entries returns the servers added, by name.
func (c *Client) entries() []*entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*entry
	for _, e := range c.servers {
		if e != nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].srv.name() < out[j].srv.name() })
	return out
}

// Tools returns the names of the tools a server registered, sorted, or nil
// if no server of that name was added.
func (c *Client) Tools(server string) []string {
	c.mu.Lock()
	e := c.servers[server]
	c.mu.Unlock()
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	names := make([]string, 0, len(e.tools))
	for n := range e.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Held returns the tools held back because their definitions changed
// since they were pinned, of every server, sorted by name.
func (c *Client) Held() []Held {
	var out []Held
	for _, e := range c.entries() {
		e.mu.Lock()
		for _, h := range e.held {
			out = append(out, h)
		}
		e.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

// HeldTool reports whether the tool of that local name is held back, and
// why.
func (c *Client) HeldTool(name string) (Held, bool) {
	for _, e := range c.entries() {
		e.mu.Lock()
		h, ok := e.held[name]
		e.mu.Unlock()
		if ok {
			return h, true
		}
	}
	return Held{}, false
}

// Definition returns the definition of a registered upstream tool, by its
// local name, as the server last listed it — with its annotations, the
// server's hints (Definition.Hints) — or false for a name no server of
// the Client registered.
func (c *Client) Definition(name string) (*Definition, bool) {
	for _, e := range c.entries() {
		e.mu.Lock()
		r := e.tools[name]
		e.mu.Unlock()
		if r != nil {
			d := *r.def
			return &d, true
		}
	}
	return nil, false
}

// Hook is a before hook on the upstream tools (mcp__*) that refuses a
// call of a tool held back, with the reason and what a person can do, in
// place of "unknown tool". (A call that resolved the tool before it was
// held back runs: a call resolves its tool once.)
func (c *Client) Hook() core.BeforeHook {
	return core.BeforeHook{Name: "mcp_pins", Tools: []string{"mcp__*"}, Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
		if call.Tool != nil {
			return nil, nil
		}
		if h, ok := c.HeldTool(call.Name); ok {
			return nil, core.Deny(h.Error())
		}
		return nil, nil
	}}
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

// remove stops following a server, unregisters its tools (those still
// its own) and closes its session.
func (c *Client) remove(e *entry) error {
	e.stop()
	e.mu.Lock()
	e.closed = true
	for n, r := range e.tools {
		if c.reg.GetTool(n) == r.tool {
			_ = c.reg.UnregisterTools(n) // fails only if removed meanwhile
		}
	}
	e.tools, e.held = nil, nil
	e.mu.Unlock()
	err := e.srv.close()
	<-e.done
	return err
}
