package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// Options configure a Server. The zero value shows every tool and refuses
// every ask that cannot be elicited.
type Options struct {
	// Name and Version introduce the server to clients; default "agentsh".
	Name, Version string
	// Hide reports whether a tool is left out of tools/list. A hidden tool
	// cannot be called either: the client gets "unknown tool". An error
	// hides the tool (and is reported). Hide is called whenever the
	// registry changes, on one goroutine at a time.
	Hide func(ctx context.Context, t *core.Tool) (bool, error)
	// Fallback answers the asks of clients that cannot elicit; nil
	// refuses them with core.ErrNeedsApproval.
	Fallback core.Approver
	// Report receives what the server cannot return to a client: a Hide
	// error, a tool whose schema is not an object schema. Nil drops them.
	Report func(error)
}

// Server serves an executor's registry over MCP. See the package doc.
type Server struct {
	exec *executor.Executor
	opts Options
	sdk  *sdk.Server

	changed chan struct{} // one slot: the registry changed since the last sync
	done    chan struct{} // closed by Close
	synced  chan struct{} // closed and replaced after every sync (for tests)
	stop    func()

	syncMu sync.Mutex // one sync at a time: Hide runs on one goroutine
	mu     sync.Mutex
	listed map[string]*core.Tool // the tools the sdk server offers, by name
	wg     sync.WaitGroup
	closed bool
}

// New returns a server for exec's registry, with the registry's current
// tools listed. Close it to stop following the registry.
func New(exec *executor.Executor, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "agentsh"
	}
	if opts.Version == "" {
		opts.Version = "0"
	}
	s := &Server{
		exec:    exec,
		opts:    opts,
		changed: make(chan struct{}, 1),
		done:    make(chan struct{}),
		synced:  make(chan struct{}),
		listed:  map[string]*core.Tool{},
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		// Tools, with list_changed; no logging capability.
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
		SupportedProtocolVersions: handshakeVersions(),
	})
	s.sync()
	// Syncing runs a script's Hide function, which cannot run inside the
	// registration that triggered it (the script holds its interpreter), so
	// changes are picked up by a goroutine of the server's own.
	s.stop = exec.Registry().OnChange(func() {
		select {
		case s.changed <- struct{}{}:
		default:
		}
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.done:
				return
			case <-s.changed:
				s.sync()
			}
		}
	}()
	return s
}

// SDK returns the go-sdk server, for transports other than Run's and
// Handler's.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one session over t (such as &sdk.StdioTransport{}) until the
// client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.sdk.Run(ctx, t)
}

// Close stops following the registry. Sessions end with their transports.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	close(s.done)
	s.wg.Wait()
	return nil
}

// Synced returns a channel closed after the next sync of the tool list
// with the registry; tests wait on it.
func (s *Server) Synced() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced
}

// Refresh lists the registry's tools again now, asking Hide about each;
// call it when what Hide decides has changed (a policy was loaded).
// Changes of the registry are followed without it.
func (s *Server) Refresh() { s.sync() }

// sync makes the listed tools those of the registry that are not hidden.
// The sdk server notifies the sessions of every change.
func (s *Server) sync() {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	reg := s.exec.Registry()
	want := map[string]*core.Tool{}
	for _, name := range reg.ToolNames() {
		t := reg.GetTool(name)
		if t == nil {
			continue
		}
		if s.opts.Hide != nil {
			hide, err := s.opts.Hide(context.Background(), t)
			if err != nil {
				s.report(fmt.Errorf("tool %s is hidden: %w", name, err))
				continue
			}
			if hide {
				continue
			}
		}
		want[name] = t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for name := range s.listed {
		if want[name] == nil {
			gone = append(gone, name)
			delete(s.listed, name)
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	for name, t := range want {
		if s.listed[name] == t {
			continue
		}
		def, err := definition(t)
		if err != nil {
			s.report(err)
			if s.listed[name] != nil {
				s.sdk.RemoveTools(name)
				delete(s.listed, name)
			}
			continue
		}
		s.sdk.AddTool(def, s.handle)
		s.listed[name] = t
	}
	close(s.synced)
	s.synced = make(chan struct{})
}

func (s *Server) report(err error) {
	if s.opts.Report != nil {
		s.opts.Report(err)
	}
}

// definition is t as an MCP tool. MCP wants "type": "object" in the
// input schema; a schema without a type gets it.
func definition(t *core.Tool) (*sdk.Tool, error) {
	schema := map[string]any{"type": "object"}
	if len(bytes.TrimSpace(t.Parameters)) > 0 {
		var m map[string]any
		if err := json.Unmarshal(t.Parameters, &m); err != nil || m == nil {
			return nil, fmt.Errorf("tool %s is not served: its parameters are not a JSON Schema object", t.Name)
		}
		if _, ok := m["type"]; !ok {
			m["type"] = "object" // the registry allows no other type
		}
		schema = m
	}
	return &sdk.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: schema,
		Annotations: Annotations(t),
	}, nil
}

// handle is tools/call: one call through the pipeline, as the model's.
func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	if bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = nil
	}
	// ctx ends when the client cancels the request or its connection
	// ends (the sdk cancels the requests in flight then).
	ctx = withSession(ctx, req.Session)
	res := s.exec.Invoke(ctx, core.Call{Name: req.Params.Name, Args: args, Origin: core.OriginMCP})
	return Result(res), nil
}

// Result is a pipeline result as an MCP tool result: the model-facing text
// as text content, image and audio blocks as their content types, other
// blocks' text as text; a failure is an isError result reading
// "error (KIND): message".
func Result(r *core.Result) *sdk.CallToolResult {
	if !r.OK() {
		return &sdk.CallToolResult{
			IsError: true,
			Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("error (%s): %v", r.Kind(), r.Err)}},
		}
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{}}
	if r.ForLLM != "" || len(r.Blocks) == 0 {
		out.Content = append(out.Content, &sdk.TextContent{Text: r.ForLLM})
	}
	for _, b := range r.Blocks {
		switch b.Type {
		case "image":
			out.Content = append(out.Content, &sdk.ImageContent{Data: b.Data, MIMEType: b.MIMEType})
		case "audio":
			out.Content = append(out.Content, &sdk.AudioContent{Data: b.Data, MIMEType: b.MIMEType})
		default:
			if b.Text != "" {
				out.Content = append(out.Content, &sdk.TextContent{Text: b.Text})
			}
		}
	}
	return out
}

// handshakeVersions are the protocol versions with an initialize
// handshake. An ask is answered by an elicitation the server sends in the
// middle of the call; from 2026-07-28 on the protocol forbids that (the
// call would have to end and be sent again with the answer, running the
// policy's hooks twice), so the server speaks the versions before it.
func handshakeVersions() []string {
	var vs []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}
