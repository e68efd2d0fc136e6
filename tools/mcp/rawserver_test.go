package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawServer speaks MCP by hand, over in-memory pipes, for the servers the
// go-sdk will not be: one that floods its client with notifications, one
// whose listings fail or never end. It offers tools and list_changed.
type rawServer struct {
	t *testing.T
	// list answers the nth tools/list (n from 1), on the server's one
	// goroutine: it reads nothing else meanwhile.
	list func(n int) (result any, err error)
	// after, if set, runs after the nth answer is written, on the same
	// goroutine.
	after func(c *rawConn, n int)

	mu    sync.Mutex
	lists int
}

func (r *rawServer) config(name string) ServerConfig {
	return ServerConfig{Name: name, Transport: r.transport}
}

func (r *rawServer) listings() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists
}

func (r *rawServer) transport() (sdk.Transport, error) {
	ct, st := sdk.NewInMemoryTransports()
	conn, err := st.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	c := &rawConn{t: r.t, conn: conn}
	go r.serve(c)
	return ct, nil
}

// rawConn is the server's side of one connection.
type rawConn struct {
	t       *testing.T
	conn    sdk.Connection
	backlog []*jsonrpc.Request // requests read while waiting for a response
	nextID  int64
}

func (c *rawConn) write(msg jsonrpc.Message) bool {
	return c.conn.Write(context.Background(), msg) == nil
}

// notify sends one notification.
func (c *rawConn) notify(method string) bool {
	return c.write(&jsonrpc.Request{Method: method, Params: json.RawMessage(`{}`)})
}

// barrier pings the client and waits for its answer. The client handles
// what it receives in order, so when the answer comes, every notification
// sent before the ping has been handled. Requests that arrive meanwhile
// are answered afterwards.
func (c *rawConn) barrier() bool {
	c.nextID++
	id, _ := jsonrpc.MakeID(float64(c.nextID))
	if !c.write(&jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(`{}`)}) {
		return false
	}
	for {
		msg, err := c.conn.Read(context.Background())
		if err != nil {
			return false
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID == id {
				return true
			}
		case *jsonrpc.Request:
			c.backlog = append(c.backlog, m)
		}
	}
}

func (c *rawConn) next() (*jsonrpc.Request, bool) {
	if len(c.backlog) > 0 {
		req := c.backlog[0]
		c.backlog = c.backlog[1:]
		return req, true
	}
	for {
		msg, err := c.conn.Read(context.Background())
		if err != nil {
			return nil, false
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			return req, true
		}
	}
}

func (r *rawServer) serve(c *rawConn) {
	defer c.conn.Close()
	for {
		req, ok := c.next()
		if !ok {
			return
		}
		if !req.ID.IsValid() {
			continue // a notification
		}
		var result any
		var err error
		n := 0
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25",
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":   map[string]any{"name": "raw", "version": "1"}}
		case "tools/list":
			r.mu.Lock()
			r.lists++
			n = r.lists
			r.mu.Unlock()
			result, err = r.list(n)
		case "ping":
			result = map[string]any{}
		default: // server/discover among others
			err = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no method " + req.Method}
		}
		b, _ := json.Marshal(result)
		if err != nil {
			b = nil
		}
		if !c.write(&jsonrpc.Response{ID: req.ID, Result: b, Error: err}) {
			return
		}
		if n > 0 && r.after != nil {
			r.after(c, n)
		}
	}
}

// rawTools is a tools/list result of tools named names.
func rawTools(names ...string) map[string]any {
	tools := []any{}
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "description": "Tool " + n + ".", "inputSchema": map[string]any{"type": "object"}})
	}
	return map[string]any{"tools": tools}
}
