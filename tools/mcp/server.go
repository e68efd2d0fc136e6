package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Timings; variables so that tests may shorten them.
var (
	// terminateDuration is how long closing a command waits for it to exit
	// after its input is closed, before it is signalled.
	terminateDuration = 3 * time.Second
	// waitDelay bounds the wait for a command's output pipes after it exits.
	waitDelay = 2 * time.Second
	// lossGrace is how long a failed call waits to learn whether the
	// connection ended, when the error does not say so itself.
	lossGrace = time.Second
)

// implementation is how agentsh introduces itself to servers.
var implementation = &sdk.Implementation{Name: "agentsh", Version: "0"}

// server is one configured MCP server and its current connection. It
// connects on demand: after the connection is lost, the next call
// connects again (for a command, starting it again).
type server struct {
	cfg    ServerConfig
	client *sdk.Client

	dialing chan struct{} // one slot: held while connecting
	// toolsChanged has one slot: set when the server said its tools
	// changed, or a new connection may offer other tools (see follow).
	toolsChanged chan struct{}

	mu     sync.Mutex
	cur    *conn // nil when not connected
	closed bool
	calls  map[uint64]context.CancelFunc // calls in flight, cancelled by close
	nextID uint64
	dials  int // connections made
}

// conn is one session with a server.
type conn struct {
	cs     *sdk.ClientSession
	done   chan struct{} // closed when the session has ended
	stderr *tail         // the command's standard error; nil for other transports
}

func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// close ends the session. A command that exits with a status is not an
// error here: it was asked to stop, or had stopped already.
func (c *conn) close() error {
	err := c.cs.Close()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil
	}
	return err
}

func newServer(cfg ServerConfig) *server {
	cfg.Command = append([]string(nil), cfg.Command...)
	cfg.Env = append([]string(nil), cfg.Env...)
	if cfg.Headers != nil {
		h := make(map[string]string, len(cfg.Headers))
		for k, v := range cfg.Headers {
			h[k] = v
		}
		cfg.Headers = h
	}
	cfg.ReadOnly = append([]string(nil), cfg.ReadOnly...)
	s := &server{cfg: cfg, dialing: make(chan struct{}, 1), toolsChanged: make(chan struct{}, 1)}
	s.client = sdk.NewClient(implementation, &sdk.ClientOptions{
		// An empty capability set: agentsh offers servers no roots,
		// sampling or elicitation.
		Capabilities: &sdk.ClientCapabilities{},
		// The handler runs on the connection's reader: it only marks
		// the list as changed, however often the server says so.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { s.markToolsChanged() },
	})
	return s
}

// markToolsChanged asks for the tools to be listed again; marks made
// before the last listing started are one.
func (s *server) markToolsChanged() {
	select {
	case s.toolsChanged <- struct{}{}:
	default:
	}
}

func (s *server) name() string { return s.cfg.Name }

func (s *server) errClosed() error {
	return fmt.Errorf("mcp server %s: closed", s.cfg.Name)
}

// session returns the live connection, connecting first if there is none
// or the last one ended. Concurrent callers share one connection attempt.
func (s *server) session(ctx context.Context) (*conn, error) {
	if c, err := s.live(); c != nil || err != nil {
		return c, err
	}
	select {
	case s.dialing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.dialing }()
	if c, err := s.live(); c != nil || err != nil {
		return c, err // another caller connected meanwhile
	}
	c, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.close()
		return nil, s.errClosed()
	}
	s.cur = c
	s.dials++
	again := s.dials > 1
	s.mu.Unlock()
	if again {
		// A server started again may offer other tools.
		s.markToolsChanged()
	}
	return c, nil
}

// live returns the current connection if it has not ended; an ended one
// is discarded (and its process reaped).
func (s *server) live() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.errClosed()
	}
	c := s.cur
	if c == nil {
		return nil, nil
	}
	if !c.ended() {
		return c, nil
	}
	s.cur = nil
	go c.close()
	return nil, nil
}

// dial opens a new session.
func (s *server) dial(ctx context.Context) (*conn, error) {
	t, stderr, err := s.cfg.transport()
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: connect: %v", s.cfg.Name, err)
	}
	cs, err := s.client.Connect(ctx, t, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mcp server %s: connect: %w", s.cfg.Name, ctx.Err())
		}
		return nil, fmt.Errorf("mcp server %s: connect: %v%s", s.cfg.Name, err, stderr.note())
	}
	c := &conn{cs: cs, done: make(chan struct{}), stderr: stderr}
	go func() {
		_ = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

// drop forgets c if it is still the current connection, and closes it.
func (s *server) drop(c *conn) {
	s.mu.Lock()
	if s.cur == c {
		s.cur = nil
	}
	s.mu.Unlock()
	go c.close()
}

// close ends the connection for good: calls in flight are cancelled and
// later calls fail.
func (s *server) close() error {
	s.mu.Lock()
	c := s.cur
	s.cur, s.closed = nil, true
	calls := s.calls
	s.calls = nil
	s.mu.Unlock()
	for _, cancel := range calls {
		cancel()
	}
	if c == nil {
		return nil
	}
	if err := c.close(); err != nil {
		return fmt.Errorf("mcp server %s: close: %w", s.cfg.Name, err)
	}
	return nil
}

// MaxTools bounds the tools agentsh takes from one server, and the pages
// of one listing.
const MaxTools = 1024

// errNotConnected is listTools's error, without dial, when there is no
// live connection.
var errNotConnected = errors.New("not connected")

// listTools returns every tool the server offers, following pages. With
// dial it connects when there is no live connection; without, it fails
// with errNotConnected (then the next call connects, and lists again).
func (s *server) listTools(ctx context.Context, dial bool) ([]*sdk.Tool, error) {
	var c *conn
	var err error
	if dial {
		c, err = s.session(ctx)
	} else if c, err = s.live(); c == nil && err == nil {
		err = errNotConnected
	}
	if err != nil {
		return nil, err
	}
	var tools []*sdk.Tool
	seen := map[string]bool{}
	params := &sdk.ListToolsParams{}
	for pages := 1; ; pages++ {
		res, err := c.cs.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("mcp server %s: list tools: %w", s.cfg.Name, err)
		}
		tools = append(tools, res.Tools...)
		if len(tools) > MaxTools || pages > MaxTools {
			return nil, fmt.Errorf("mcp server %s: list tools: the server offers more than %d tools or pages; agentsh takes at most %d from one server", s.cfg.Name, MaxTools, MaxTools)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("mcp server %s: list tools: the server repeated page cursor %q", s.cfg.Name, res.NextCursor)
		}
		seen[res.NextCursor] = true
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
}

// call calls a remote tool and maps its result into a tool output.
func (s *server) call(ctx context.Context, remote string, args json.RawMessage) (any, error) {
	c, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	id, ok := s.track(cancel)
	if !ok {
		return nil, s.errClosed()
	}
	defer s.untrack(id)
	res, err := c.cs.CallTool(callCtx, &sdk.CallToolParams{Name: remote, Arguments: args})
	if err != nil {
		return nil, s.callError(ctx, callCtx, c, remote, err)
	}
	return output(res)
}

// track records a call in flight so that close can cancel it; false means
// the server is closed.
func (s *server) track(cancel context.CancelFunc) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, false
	}
	if s.calls == nil {
		s.calls = map[uint64]context.CancelFunc{}
	}
	s.nextID++
	s.calls[s.nextID] = cancel
	return s.nextID, true
}

func (s *server) untrack(id uint64) {
	s.mu.Lock()
	delete(s.calls, id)
	s.mu.Unlock()
}

// callError explains why a call did not return a result: the caller gave
// up, the server was closed, the server answered with an error, or the
// connection was lost (then the next call connects again).
func (s *server) callError(ctx, callCtx context.Context, c *conn, remote string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if callCtx.Err() != nil {
		return fmt.Errorf("%w (during the call)", s.errClosed())
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && !errors.Is(err, sdk.ErrConnectionClosed) {
		return fmt.Errorf("mcp server %s: tool %s: %w", s.cfg.Name, remote, err)
	}
	lost := errors.Is(err, sdk.ErrConnectionClosed) || c.ended()
	if !lost {
		select {
		case <-c.done:
			lost = true
		case <-time.After(lossGrace):
		case <-ctx.Done():
			return err
		}
	}
	if !lost {
		return fmt.Errorf("mcp server %s: tool %s: %w", s.cfg.Name, remote, err)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("%w (during the call)", s.errClosed())
	}
	s.drop(c)
	return &ConnectionLostError{Server: s.cfg.Name, Err: err, stderr: c.stderr.note()}
}

// ConnectionLostError is the error of a call whose connection to the server
// ended (the server crashed, exited or went away). The next call connects
// again.
type ConnectionLostError struct {
	Server string
	Err    error
	stderr string
}

func (e *ConnectionLostError) Error() string {
	return fmt.Sprintf("mcp server %s: connection lost: %v%s; it will be restarted on the next call", e.Server, e.Err, e.stderr)
}

func (e *ConnectionLostError) Unwrap() error { return e.Err }
