package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
)

// serverEnv makes the test binary run the test server on stdio instead of
// the tests (see TestMain).
const serverEnv = "AGENTSH_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		st := newState(true)
		if err := newTestServer(st).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Closing a command's session should not take seconds in tests.
	terminateDuration = 500 * time.Millisecond
	os.Exit(m.Run())
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// state is what the test server's tools share.
type state struct {
	subprocess bool
	started    chan string // a blocking tool started (its id)
	cancelled  chan string // a blocking tool saw its context end

	mu      sync.Mutex
	writes  int
	echoes  int
	inside  int           // rendezvous calls in progress
	peak    int           // the most rendezvous calls ever in progress at once
	arrived chan struct{} // closed and replaced whenever inside grows
}

func newState(subprocess bool) *state {
	return &state{subprocess: subprocess, started: make(chan string, 16), cancelled: make(chan string, 16),
		arrived: make(chan struct{})}
}

func (s *state) counts() (writes, echoes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes, s.echoes
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func args(req *sdk.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

// newTestServer returns a server with one tool for every case the tests
// check.
func newTestServer(st *state) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ServerOptions{PageSize: 3})
	add := func(t *sdk.Tool, h sdk.ToolHandler) {
		if t.InputSchema == nil {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		s.AddTool(t, h)
	}
	add(&sdk.Tool{
		Name: "echo", Description: "Echoes text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		st.mu.Lock()
		st.echoes++
		st.mu.Unlock()
		return text("echo: " + fmt.Sprint(args(req)["text"])), nil
	})
	add(&sdk.Tool{
		Name: "write", Description: "Writes something.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		st.mu.Lock()
		st.writes++
		st.mu.Unlock()
		return text("wrote"), nil
	})
	add(&sdk.Tool{Name: "image", Description: "Returns an image."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a pixel"},
				&sdk.ImageContent{MIMEType: "image/png", Data: tinyPNG},
			}}, nil
		})
	add(&sdk.Tool{Name: "audio", Description: "Returns audio."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....WAVE")}}}, nil
		})
	add(&sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{
				&sdk.TextContent{Text: "boom"}, &sdk.TextContent{Text: "disk full"}}}, nil
		})
	add(&sdk.Tool{Name: "structured", Description: "Structured only."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"b": 2, "a": "x"}}, nil
		})
	add(&sdk.Tool{Name: "resource", Description: "Embedded resources."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "alpha"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b.json", MIMEType: "application/json", Blob: []byte(`{"beta":1}`)}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///c.bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}},
			}}, nil
		})
	add(&sdk.Tool{Name: "dotted.name", Title: "Dotted title"},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("dotted"), nil })
	add(&sdk.Tool{Name: "block", Description: "Blocks until cancelled."},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			id := fmt.Sprint(args(req)["id"])
			st.started <- id
			<-ctx.Done()
			st.cancelled <- id
			return nil, ctx.Err()
		})
	add(&sdk.Tool{
		Name: "rendezvous", Description: "Waits until n calls are inside at once.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		n := int(args(req)["n"].(float64))
		st.mu.Lock()
		st.inside++
		st.peak = max(st.peak, st.inside)
		close(st.arrived)
		st.arrived = make(chan struct{})
		st.mu.Unlock()
		defer func() {
			st.mu.Lock()
			st.inside--
			st.mu.Unlock()
		}()
		deadline := time.After(testwait.Step)
		for {
			st.mu.Lock()
			inside, peak, arrived := st.inside, st.peak, st.arrived
			st.mu.Unlock()
			if peak >= n {
				return text("met"), nil
			}
			select {
			case <-arrived:
			case <-deadline:
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("only %d of %d calls arrived", inside, n)}}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	})
	add(&sdk.Tool{Name: "pid", Description: "The server's process ID."},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(fmt.Sprint(os.Getpid())), nil
		})
	if st.subprocess {
		add(&sdk.Tool{Name: "env", Description: "The environment and directory."},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				wd, _ := os.Getwd()
				return text(os.Getenv("AGENTSH_MCP_TEST_GREETING") + " " + wd), nil
			})
		add(&sdk.Tool{Name: "crash", Description: "Exits the server."},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "crashing on purpose")
				os.Exit(3)
				return nil, nil
			})
	}
	return s
}

// memServer serves a go-sdk server in process; every connection gets a
// fresh pair of in-memory transports.
type memServer struct {
	srv *sdk.Server

	mu       sync.Mutex
	sessions []*sdk.ServerSession
	conns    []sdk.Connection // the server side of each connection
}

func (m *memServer) transport() (sdk.Transport, error) {
	ct, st := sdk.NewInMemoryTransports()
	rt := &recordingTransport{Transport: st}
	ss, err := m.srv.Connect(context.Background(), rt, nil)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.sessions = append(m.sessions, ss)
	m.conns = append(m.conns, rt.conn)
	m.mu.Unlock()
	return ct, nil
}

// recordingTransport keeps the connection it makes.
type recordingTransport struct {
	sdk.Transport
	conn sdk.Connection
}

func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn = c
	return c, err
}

// breakLast closes the newest connection under the server, as if its
// process died: nothing is answered, nothing is shut down in order.
func (m *memServer) breakLast(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	c := m.conns[len(m.conns)-1]
	m.mu.Unlock()
	if err := c.Close(); err != nil {
		t.Logf("breaking the connection: %v", err)
	}
}

// dials returns how many connections were made.
func (m *memServer) dials() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// closeLast closes the newest server session, as if the server went away.
func (m *memServer) closeLast(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	ss := m.sessions[len(m.sessions)-1]
	m.mu.Unlock()
	if err := ss.Close(); err != nil {
		t.Logf("closing server session: %v", err)
	}
}

func newMem(st *state) *memServer { return &memServer{srv: newTestServer(st)} }

func (m *memServer) config(name string) ServerConfig {
	return ServerConfig{Name: name, Transport: m.transport}
}

// stdioConfig runs the test server as a child process.
func stdioConfig(name string) ServerConfig {
	return ServerConfig{Name: name, Command: []string{os.Args[0], "-test.run=^$"}, Env: []string{serverEnv + "=1"}}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// setup adds cfg to a new client and returns an executor over its registry.
func setup(t *testing.T, cfg ServerConfig, opts ...executor.Option) (*Client, *executor.Executor) {
	t.Helper()
	reg := core.NewRegistry()
	c := NewClient(reg)
	if _, err := c.Add(ctxT(t), cfg); err != nil {
		t.Fatalf("Add: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, executor.New(reg, opts...)
}

func invoke(t *testing.T, e *executor.Executor, name, args string) *core.Result {
	t.Helper()
	res, _ := e.InvokeTool(ctxT(t), name, json.RawMessage(args))
	return res
}

func wantOK(t *testing.T, res *core.Result, want string) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("%s: unexpected error (%s): %v", res.Tool, res.Kind(), res.Err)
	}
	if res.ForLLM != want {
		t.Fatalf("%s: output %q, want %q", res.Tool, res.ForLLM, want)
	}
}

// serverOf returns the client's server of that name.
func serverOf(t *testing.T, c *Client, name string) *server {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.servers[name]
	if e == nil {
		t.Fatalf("no server %q", name)
	}
	return e.srv
}

// waitEnded waits until the client has seen its connection end.
func waitEnded(t *testing.T, s *server) {
	t.Helper()
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil {
		return
	}
	select {
	case <-c.done:
	case <-time.After(testwait.Step):
		t.Fatal("the client did not notice that the connection ended")
	}
}

func isLost(err error) bool {
	var lost *ConnectionLostError
	return errors.As(err, &lost)
}

func contains(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}
