package mcp

import (
	"context"
	"errors"
	"sort"
	"time"
)

// How the Client follows a server's tool list. The server's
// notifications/tools/list_changed (and a connection made again) only
// mark the list as changed, in a one-slot channel; one goroutine per
// server lists the tools again when it is marked. However often a server
// says its tools changed, the work is one listing at a time and at most
// one more after it, and no goroutine is started per notification.

// relistTimeout bounds one listing after list_changed; a variable so that
// tests may shorten it.
var relistTimeout = 30 * time.Second

// follow lists a server's tools again whenever they are marked changed,
// until ctx ends.
func (c *Client) follow(ctx context.Context, e *entry) {
	defer close(e.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.srv.toolsChanged:
		}
		c.relist(ctx, e)
	}
}

// relist lists a server's tools on its live connection and makes the
// registry follow. A listing that fails changes nothing: the tools stay
// as they were until the next listing. Without a live connection it does
// nothing; the call that connects again marks the list changed.
func (c *Client) relist(ctx context.Context, e *entry) {
	lctx, cancel := context.WithTimeout(ctx, relistTimeout)
	defer cancel()
	remote, err := e.srv.listTools(lctx, false)
	var tools []upstream
	if err == nil {
		tools, err = e.srv.buildTools(remote)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.markListed()
	switch {
	case e.closed, errors.Is(err, errNotConnected):
		return
	case err != nil:
		if ctx.Err() == nil {
			c.warnf("%v; its tools stay as they were until it lists them again", err)
		}
		return
	}
	// A tool whose name another holds (a script's, another server's) is
	// left out before any pin is looked at: the pin of that name may be
	// the other's. The person is told once.
	free := tools[:0:0]
	for i := range tools {
		n := tools[i].tool.Name
		if t := c.reg.GetTool(n); t != nil && (e.tools[n] == nil || e.tools[n].tool != t) {
			if !e.taken[n] {
				e.taken[n] = true
				c.warnf("%v", taken(e.srv.name(), &tools[i]))
			}
			continue
		}
		delete(e.taken, n)
		free = append(free, tools[i])
	}
	ok, held, err := c.judge(e.srv, free)
	if err != nil {
		c.warnf("mcp server %s: %v; its tools stay as they were until it lists them again", e.srv.name(), err)
		return
	}
	c.apply(e, ok, held)
}

// apply makes the registry hold the server's tools in ok: it removes the
// tools that vanished or are held back, registers the new ones and
// replaces those whose definition changed (and was accepted). e.mu is
// held.
func (c *Client) apply(e *entry, ok []upstream, held map[string]Held) {
	want := make(map[string]bool, len(ok))
	for _, u := range ok {
		want[u.tool.Name] = true
	}
	names := make([]string, 0, len(e.tools))
	for n := range e.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if want[n] {
			continue
		}
		if c.reg.GetTool(n) == e.tools[n].tool {
			_ = c.reg.UnregisterTools(n) // fails only if removed meanwhile
		}
		delete(e.tools, n)
	}
	for i := range ok {
		u := &ok[i]
		n := u.tool.Name
		r := e.tools[n]
		mine := r != nil && c.reg.GetTool(n) == r.tool
		if mine && r.digest == u.digest {
			continue
		}
		var err error
		if mine {
			err = c.reg.ReplaceTools(u.tool)
		} else {
			err = c.reg.RegisterTools(u.tool)
		}
		if err != nil { // taken since relist looked
			delete(e.tools, n)
			e.taken[n] = true
			c.warnf("%v", taken(e.srv.name(), u))
			continue
		}
		e.tools[n] = &registered{def: u.def, digest: u.digest, tool: c.reg.GetTool(n)}
	}
	e.held = held
	e.warnHeld(c, held)
}

// markListed wakes those waiting for a listing. e.mu is held.
func (e *entry) markListed() {
	close(e.listed)
	e.listed = make(chan struct{})
}
