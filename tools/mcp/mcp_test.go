package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
)

var testTools = []string{
	"mcp__t__audio", "mcp__t__block", "mcp__t__dotted_name", "mcp__t__echo", "mcp__t__fail",
	"mcp__t__image", "mcp__t__pid", "mcp__t__rendezvous", "mcp__t__resource", "mcp__t__structured",
	"mcp__t__write",
}

func TestAddRegistersEveryPage(t *testing.T) {
	reg := core.NewRegistry()
	c := NewClient(reg)
	defer c.Close()
	names, err := c.Add(ctxT(t), newMem(newState(false)).config("t"))
	if err != nil {
		t.Fatal(err)
	}
	// The server pages its list three at a time.
	if !reflect.DeepEqual(names, testTools) {
		t.Fatalf("names %q, want %q", names, testTools)
	}
	if got := reg.ToolNames(); !reflect.DeepEqual(got, testTools) {
		t.Fatalf("registry has %q", got)
	}
	if got := c.Servers(); !reflect.DeepEqual(got, []string{"t"}) {
		t.Fatalf("Servers() = %q", got)
	}
	if got := c.Tools("t"); !reflect.DeepEqual(got, testTools) {
		t.Fatalf("Tools(t) = %q", got)
	}
}

func TestDefinitions(t *testing.T) {
	reg := core.NewRegistry()
	c := NewClient(reg)
	defer c.Close()
	if _, err := c.Add(ctxT(t), newMem(newState(false)).config("t")); err != nil {
		t.Fatal(err)
	}
	echo := reg.GetTool("mcp__t__echo")
	if echo.Description != "Echoes text." {
		t.Errorf("description %q", echo.Description)
	}
	// The server annotates echo readOnlyHint and idempotentHint: hints,
	// which declare nothing (see TestHintsDeclareNothing).
	if echo.ConcurrencySafe != nil || echo.Idempotent || echo.ReadOnly {
		t.Errorf("echo: ConcurrencySafe %v, Idempotent %v, ReadOnly %v; want nil, false, false (hints are not declarations)", echo.ConcurrencySafe, echo.Idempotent, echo.ReadOnly)
	}
	var schema map[string]any
	if err := json.Unmarshal(echo.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}
	if !reflect.DeepEqual(schema, want) {
		t.Errorf("parameters %s", echo.Parameters)
	}
	write := reg.GetTool("mcp__t__write")
	if write.ConcurrencySafe != nil || write.Idempotent || write.ReadOnly {
		t.Errorf("write: ConcurrencySafe %v, Idempotent %v, ReadOnly %v; want nil, false, false", write.ConcurrencySafe, write.Idempotent, write.ReadOnly)
	}
	if d := reg.GetTool("mcp__t__dotted_name").Description; d != "Dotted title" {
		t.Errorf("a tool without a description should use its title, got %q", d)
	}
}

func TestResults(t *testing.T) {
	_, e := setup(t, newMem(newState(false)).config("t"))

	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"hi"}`), "echo: hi")
	wantOK(t, invoke(t, e, "mcp__t__dotted_name", ``), "dotted")

	res := invoke(t, e, "mcp__t__image", `{}`)
	wantOK(t, res, "a pixel")
	if len(res.Blocks) != 1 || res.Blocks[0].Type != "image" || res.Blocks[0].MIMEType != "image/png" || !bytes.Equal(res.Blocks[0].Data, tinyPNG) {
		t.Errorf("image blocks %+v", res.Blocks)
	}

	res = invoke(t, e, "mcp__t__audio", `{}`)
	wantOK(t, res, "")
	if len(res.Blocks) != 1 || res.Blocks[0].Type != "audio" || res.Blocks[0].MIMEType != "audio/wav" || string(res.Blocks[0].Data) != "RIFF....WAVE" {
		t.Errorf("audio blocks %+v", res.Blocks)
	}

	res = invoke(t, e, "mcp__t__fail", `{}`)
	if res.Kind() != core.KindFailed || res.Err.Error() != "boom\ndisk full" {
		t.Errorf("fail: kind %q, error %v; want failed with the text", res.Kind(), res.Err)
	}

	wantOK(t, invoke(t, e, "mcp__t__structured", `{}`), `{"a":"x","b":2}`)

	res = invoke(t, e, "mcp__t__resource", `{}`)
	wantOK(t, res, "alpha\n{\"beta\":1}\n[resource file:///c.bin: application/octet-stream, 3 bytes]")
	if len(res.Blocks) != 1 || res.Blocks[0].Type != "resource" || !bytes.Equal(res.Blocks[0].Data, []byte{0, 1, 2}) {
		t.Errorf("resource blocks %+v", res.Blocks)
	}
}

func TestValidationThroughExecutor(t *testing.T) {
	st := newState(false)
	_, e := setup(t, newMem(st).config("t"), executor.WithValidateArguments(true))
	res := invoke(t, e, "mcp__t__echo", `{"text":3}`)
	if res.Kind() != core.KindInvalidArguments {
		t.Fatalf("kind %q (%v), want invalid_arguments", res.Kind(), res.Err)
	}
	var ce *core.Error
	if !errors.As(res.Err, &ce) || len(ce.Violations) != 1 || ce.Violations[0].Pointer != "/text" {
		t.Fatalf("violations: %+v", ce)
	}
	res = invoke(t, e, "mcp__t__echo", `{}`)
	if res.Kind() != core.KindInvalidArguments {
		t.Fatalf("missing argument: kind %q (%v)", res.Kind(), res.Err)
	}
	if _, echoes := st.counts(); echoes != 0 {
		t.Fatalf("the server ran echo %d times for invalid arguments", echoes)
	}
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"ok"}`), "echo: ok")
}

func TestHooksApply(t *testing.T) {
	st := newState(false)
	_, e := setup(t, newMem(st).config("t"))
	err := e.AddBefore(core.BeforeHook{Name: "no-writes", Tools: []string{"mcp__*"},
		Func: func(_ context.Context, call *core.Call) (json.RawMessage, error) {
			if call.Name == "mcp__t__write" {
				return nil, errors.New("writes are not allowed")
			}
			return nil, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res := invoke(t, e, "mcp__t__write", `{}`); res.Kind() != core.KindRejected {
		t.Fatalf("kind %q, want rejected", res.Kind())
	}
	if writes, _ := st.counts(); writes != 0 {
		t.Fatal("a rejected call reached the server")
	}
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"a"}`), "echo: a")
}

func TestCancellationReachesServer(t *testing.T) {
	st := newState(false)
	_, e := setup(t, newMem(st).config("t"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *core.Result)
	go func() {
		res, _ := e.InvokeTool(ctx, "mcp__t__block", json.RawMessage(`{"id":"one"}`))
		done <- res
	}()
	select {
	case <-st.started:
	case <-time.After(testwait.Step):
		t.Fatal("the blocking tool did not start")
	}
	cancel()
	select {
	case res := <-done:
		if res.Kind() != core.KindCanceled {
			t.Fatalf("kind %q (%v), want canceled", res.Kind(), res.Err)
		}
	case <-time.After(testwait.Step):
		t.Fatal("the call did not return after cancellation")
	}
	select {
	case id := <-st.cancelled:
		if id != "one" {
			t.Fatalf("cancelled %q", id)
		}
	case <-time.After(testwait.Step):
		t.Fatal("the server never saw the cancellation")
	}
	// The session survives a cancelled call.
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"still here"}`), "echo: still here")
}

func TestTimeoutMiddleware(t *testing.T) {
	st := newState(false)
	_, e := setup(t, newMem(st).config("t"), executor.WithMiddleware(executor.Timeout(100*time.Millisecond)))
	res := invoke(t, e, "mcp__t__block", `{"id":"slow"}`)
	if res.Kind() != core.KindTimeout {
		t.Fatalf("kind %q (%v), want timeout", res.Kind(), res.Err)
	}
	select {
	case <-st.cancelled:
	case <-time.After(testwait.Step):
		t.Fatal("the server never saw the cancellation")
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ server, remote, want string }{
		{"s", "read_file", "mcp__s__read_file"},
		{"s", "get-sum", "mcp__s__get-sum"},
		{"s", "fs.read file/x", "mcp__s__fs_read_file_x"},
		{"s", "héllo", "mcp__s__h_llo"},
	} {
		if got := ToolName(tc.server, tc.remote); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.remote, got, tc.want)
		}
	}
	long1 := strings.Repeat("x", 70) + "_one"
	long2 := strings.Repeat("x", 70) + "_two"
	n1, n2 := ToolName("server", long1), ToolName("server", long2)
	if len(n1) != 64 || len(n2) != 64 || n1 == n2 || !core.ValidToolName(n1) || !core.ValidToolName(n2) {
		t.Errorf("long names %q and %q should be distinct, valid and 64 long", n1, n2)
	}
	if ToolName("server", long1) != n1 {
		t.Error("ToolName is not deterministic")
	}
}

func TestNamesThroughServer(t *testing.T) {
	newSrv := func(names ...string) *memServer {
		s := sdk.NewServer(&sdk.Implementation{Name: "names", Version: "1"}, nil)
		for _, n := range names {
			s.AddTool(&sdk.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return text(req.Params.Name), nil
				})
		}
		return &memServer{srv: s}
	}
	long := strings.Repeat("a", 60)
	m := newSrv("fs.read", long+"1", long+"2")
	reg := core.NewRegistry()
	c := NewClient(reg)
	defer c.Close()
	names, err := c.Add(ctxT(t), m.config("n"))
	if err != nil {
		t.Fatal(err)
	}
	n1, n2 := ToolName("n", long+"1"), ToolName("n", long+"2")
	if want := []string{min(n1, n2), max(n1, n2), "mcp__n__fs_read"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	e := executor.New(reg)
	// Each local name calls its own remote tool.
	wantOK(t, invoke(t, e, n1, `{}`), long+"1")
	wantOK(t, invoke(t, e, n2, `{}`), long+"2")
	wantOK(t, invoke(t, e, "mcp__n__fs_read", `{}`), "fs.read")

	// A collision names both remote tools and registers nothing.
	_, err = c.Add(ctxT(t), newSrv("a.b", "a_b", "ok").config("clash"))
	if err == nil {
		t.Fatal("colliding names were accepted")
	}
	contains(t, err.Error(), `"a.b"`, `"a_b"`, "mcp__clash__a_b")
	if reg.GetTool("mcp__clash__ok") != nil || len(c.Servers()) != 1 {
		t.Fatal("a failed Add left something behind")
	}
}

func TestConfigErrors(t *testing.T) {
	c := NewClient(core.NewRegistry())
	defer c.Close()
	m := newMem(newState(false))
	for _, tc := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Name: "a.b", Transport: m.transport}, "invalid server name"},
		{ServerConfig{Name: "", Transport: m.transport}, "invalid server name"},
		{ServerConfig{Name: strings.Repeat("s", 33), Transport: m.transport}, "too long"},
		{ServerConfig{Name: "none"}, "exactly one of"},
		{ServerConfig{Name: "two", URL: "http://x", Command: []string{"x"}}, "exactly one of"},
		{ServerConfig{Name: "hdr", Command: []string{"x"}, Headers: map[string]string{"a": "b"}}, "only to a URL"},
		{ServerConfig{Name: "env", Command: []string{"x"}, Env: []string{"NOEQUALS"}}, "KEY=value"},
		{ServerConfig{Name: "missing", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}}, "mcp server missing: connect:"},
	} {
		_, err := c.Add(ctxT(t), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%+v): error %v, want %q", tc.cfg.Name, err, tc.want)
		}
	}
	if _, err := c.Add(ctxT(t), m.config("dup")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctxT(t), m.config("dup")); err == nil || !strings.Contains(err.Error(), "already added") {
		t.Errorf("adding a server twice: %v", err)
	}
}

func TestRegistryConflict(t *testing.T) {
	reg := core.NewRegistry()
	taken := core.Tool{Name: "mcp__t__echo", Func: func(context.Context, json.RawMessage) (any, error) { return "mine", nil }}
	if err := reg.RegisterTools(taken); err != nil {
		t.Fatal(err)
	}
	c := NewClient(reg)
	m := newMem(newState(false))
	if _, err := c.Add(ctxT(t), m.config("t")); err == nil || !strings.Contains(err.Error(), "would register as mcp__t__echo, a name another tool holds") {
		t.Fatalf("Add over a taken name: %v", err)
	}
	if got := reg.ToolNames(); len(got) != 1 || len(c.Servers()) != 0 {
		t.Fatalf("registry %q, servers %q after a failed Add", got, c.Servers())
	}
}

func TestCloseUnregisters(t *testing.T) {
	reg := core.NewRegistry()
	other := core.Tool{Name: "other", Func: func(context.Context, json.RawMessage) (any, error) { return "x", nil }}
	if err := reg.RegisterTools(other); err != nil {
		t.Fatal(err)
	}
	c := NewClient(reg)
	m := newMem(newState(false))
	if _, err := c.Add(ctxT(t), m.config("t")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctxT(t), m.config("u")); err != nil {
		t.Fatal(err)
	}
	echo := reg.GetTool("mcp__t__echo") // as a call that resolved it before Close
	if err := c.Remove("u"); err != nil {
		t.Fatal(err)
	}
	if reg.GetTool("mcp__u__echo") != nil || reg.GetTool("mcp__t__echo") == nil {
		t.Fatal("Remove(u) did not unregister exactly u's tools")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := reg.ToolNames(); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("after Close the registry has %q", got)
	}
	if len(c.Servers()) != 0 {
		t.Fatalf("Servers() = %q after Close", c.Servers())
	}
	_, err := echo.Func(context.Background(), json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "mcp server t: closed") {
		t.Fatalf("call after Close: %v", err)
	}
	// The client may be used again.
	if _, err := c.Add(ctxT(t), m.config("t")); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
}

func TestReconnectInProcess(t *testing.T) {
	m := newMem(newState(false))
	c, e := setup(t, m.config("t"))
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"1"}`), "echo: 1")

	m.closeLast(t) // the server goes away while idle
	waitEnded(t, serverOf(t, c, "t"))
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"2"}`), "echo: 2")
	if m.dials() != 2 {
		t.Fatalf("%d connections, want 2", m.dials())
	}
}

func TestReconnectInProcessDuringCall(t *testing.T) {
	st := newState(false)
	m := newMem(st)
	_, e := setup(t, m.config("t"))
	done := make(chan *core.Result)
	go func() { done <- invoke(t, e, "mcp__t__block", `{"id":"x"}`) }()
	<-st.started
	// The server's connection breaks with the call in flight.
	m.breakLast(t)
	res := <-done
	if res.Kind() != core.KindFailed || !isLost(res.Err) {
		t.Fatalf("kind %q, error %v; want a lost connection", res.Kind(), res.Err)
	}
	t.Logf("broken connection: %v (%s)", res.Err, res.Duration)
	contains(t, res.Err.Error(), "mcp server t: connection lost: ", "; it will be restarted on the next call")
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"back"}`), "echo: back")
}

func TestStdio(t *testing.T) {
	dir := t.TempDir()
	cfg := stdioConfig("s")
	cfg.Env = append(cfg.Env, "AGENTSH_MCP_TEST_GREETING=hello")
	cfg.Dir = dir
	var stderr syncBuffer
	cfg.Stderr = &stderr
	c, e := setup(t, cfg)

	wantOK(t, invoke(t, e, "mcp__s__echo", `{"text":"over stdio"}`), "echo: over stdio")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := invoke(t, e, "mcp__s__env", `{}`)
	if res.Err != nil || (res.ForLLM != "hello "+dir && res.ForLLM != "hello "+real) {
		t.Fatalf("env: %q, %v", res.ForLLM, res.Err)
	}
	res = invoke(t, e, "mcp__s__image", `{}`)
	if res.Err != nil || len(res.Blocks) != 1 || !bytes.Equal(res.Blocks[0].Data, tinyPNG) {
		t.Fatalf("image over stdio: %v %+v", res.Err, res.Blocks)
	}
	pid1 := invoke(t, e, "mcp__s__pid", `{}`).ForLLM

	// The server crashes during a call: that call fails clearly...
	res = invoke(t, e, "mcp__s__crash", `{}`)
	if res.Kind() != core.KindFailed || !isLost(res.Err) {
		t.Fatalf("crash: kind %q, error %v; want a lost connection", res.Kind(), res.Err)
	}
	t.Logf("crash: %v (%s)", res.Err, res.Duration)
	contains(t, res.Err.Error(), "mcp server s: connection lost: ", "crashing on purpose", "; it will be restarted on the next call")
	if !strings.Contains(stderr.String(), "crashing on purpose") {
		t.Errorf("Stderr did not receive the server's standard error: %q", stderr.String())
	}
	// ...and the next one starts it again.
	pid2 := invoke(t, e, "mcp__s__pid", `{}`)
	if pid2.Err != nil || pid2.ForLLM == pid1 {
		t.Fatalf("after a crash: pid %q (before %q), %v", pid2.ForLLM, pid1, pid2.Err)
	}

	// The process is killed while idle: the next call restarts it.
	proc, err := os.FindProcess(atoi(t, pid2.ForLLM))
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, serverOf(t, c, "s"))
	pid3 := invoke(t, e, "mcp__s__pid", `{}`)
	if pid3.Err != nil || pid3.ForLLM == pid2.ForLLM {
		t.Fatalf("after a kill: pid %q (before %q), %v", pid3.ForLLM, pid2.ForLLM, pid3.Err)
	}

	// Killed without the client noticing first: at most one call fails,
	// with a clear error.
	proc, _ = os.FindProcess(atoi(t, pid3.ForLLM))
	_ = proc.Kill()
	var last *core.Result
	for range 2 {
		last = invoke(t, e, "mcp__s__echo", `{"text":"again"}`)
		if last.Err == nil {
			break
		}
		if !isLost(last.Err) {
			t.Fatalf("after a kill: %v", last.Err)
		}
	}
	wantOK(t, last, "echo: again")

	// Cancellation over stdio.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, _ := e.InvokeTool(ctx, "mcp__s__block", json.RawMessage(`{"id":"stdio"}`))
	if r.Kind() != core.KindTimeout {
		t.Fatalf("block over stdio: kind %q, %v", r.Kind(), r.Err)
	}
	wantOK(t, invoke(t, e, "mcp__s__echo", `{"text":"after cancel"}`), "echo: after cancel")

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestParallel(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() ServerConfig
	}{
		{"in-process", func() ServerConfig { return newMem(newState(false)).config("p") }},
		{"stdio", func() ServerConfig { return stdioConfig("p") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := setup(t, tc.cfg())
			const n = 4
			var calls []core.Call
			for i := range n {
				calls = append(calls, core.Call{Name: "mcp__p__rendezvous", Args: json.RawMessage(`{"n":4}`)})
				calls = append(calls, core.Call{Name: "mcp__p__echo", Args: json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i))})
				calls = append(calls, core.Call{Name: "mcp__p__write", Args: json.RawMessage(`{}`)})
			}
			results := e.ExecuteAll(ctxT(t), calls, executor.InMode(executor.ModeParallel))
			for i, res := range results {
				switch calls[i].Name {
				case "mcp__p__rendezvous":
					wantOK(t, res, "met") // all four were in flight at once
				case "mcp__p__echo":
					wantOK(t, res, fmt.Sprintf("echo: %d", i/3))
				default:
					wantOK(t, res, "wrote")
				}
			}
		})
	}
}

func TestHTTP(t *testing.T) {
	st := newState(false)
	srv := newTestServer(st)
	var mu sync.Mutex
	var auth []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the client's Close: the event stream holds a request open
	_, e := setup(t, ServerConfig{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer secret"}})
	wantOK(t, invoke(t, e, "mcp__web__echo", `{"text":"over http"}`), "echo: over http")
	res := invoke(t, e, "mcp__web__image", `{}`)
	if res.Err != nil || len(res.Blocks) != 1 {
		t.Fatalf("image over http: %v", res.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 {
		t.Fatal("no requests reached the server")
	}
	for _, a := range auth {
		if a != "Bearer secret" {
			t.Fatalf("a request had Authorization %q", a)
		}
	}
}

func TestExtension(t *testing.T) {
	m := newMem(newState(false))
	x := NewExtension(m.config("t"), stdioConfig("s"))
	if x.Name() != "mcp" {
		t.Fatalf("Name() = %q", x.Name())
	}
	reg := core.NewRegistry()
	e := executor.New(reg)
	if err := e.Install(ctxT(t), x); err != nil {
		t.Fatal(err)
	}
	if reg.GetTool("mcp__t__echo") == nil || reg.GetTool("mcp__s__crash") == nil {
		t.Fatalf("installed tools: %q", reg.ToolNames())
	}
	wantOK(t, invoke(t, e, "mcp__t__echo", `{"text":"x"}`), "echo: x")
	wantOK(t, invoke(t, e, "mcp__s__echo", `{"text":"y"}`), "echo: y")
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	res := invoke(t, e, "mcp__s__echo", `{"text":"z"}`)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "mcp server s: closed") {
		t.Fatalf("call after Close: %v", res.Err)
	}

	// A server that cannot start fails Install and closes the others.
	bad := NewExtension(newMem(newState(false)).config("ok"), ServerConfig{Name: "bad", Command: []string{filepath.Join(t.TempDir(), "nope")}})
	reg2 := core.NewRegistry()
	if err := executor.New(reg2).Install(ctxT(t), bad); err == nil || !strings.Contains(err.Error(), "mcp server bad: connect") {
		t.Fatalf("Install with a bad server: %v", err)
	}
	if reg2.Len() != 0 {
		t.Fatalf("a failed Install registered %q", reg2.ToolNames())
	}
	if err := NewExtension(m.config("d"), m.config("d")).Init(ctxT(t)); err == nil {
		t.Fatal("a server configured twice was accepted")
	}
}

func TestHTTPReconnect(t *testing.T) {
	serve := func(l net.Listener) *http.Server {
		srv := newTestServer(newState(false))
		hs := &http.Server{Handler: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)}
		go hs.Serve(l)
		return hs
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	first := serve(l)
	c, e := setup(t, ServerConfig{Name: "web", URL: "http://" + addr})
	wantOK(t, invoke(t, e, "mcp__web__echo", `{"text":"1"}`), "echo: 1")

	// The server goes down: calls fail, naming the server.
	_ = first.Close()
	res := invoke(t, e, "mcp__web__echo", `{"text":"2"}`)
	if res.Kind() != core.KindFailed {
		t.Fatalf("server down: kind %q, %v", res.Kind(), res.Err)
	}
	contains(t, res.Err.Error(), "mcp server web")

	// It comes back without the old session: at most one call fails, as a
	// lost connection, then a new session serves.
	if l, err = net.Listen("tcp", addr); err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	second := serve(l)
	defer second.Close()
	var last *core.Result
	for range 2 {
		last = invoke(t, e, "mcp__web__echo", `{"text":"3"}`)
		if last.Err == nil {
			break
		}
		if !isLost(last.Err) {
			t.Fatalf("server back: %v", last.Err)
		}
		t.Logf("server back: %v", last.Err)
	}
	wantOK(t, last, "echo: 3")
	if err := c.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
}

func TestCloseDuringCall(t *testing.T) {
	st := newState(false)
	c, e := setup(t, newMem(st).config("t"))
	done := make(chan *core.Result)
	go func() { done <- invoke(t, e, "mcp__t__block", `{"id":"closing"}`) }()
	<-st.started
	if err := c.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	res := <-done
	if res.Err == nil || isLost(res.Err) || !strings.Contains(res.Err.Error(), "mcp server t: closed") {
		t.Fatalf("a call cut by Close: %v", res.Err)
	}
	select {
	case <-st.cancelled:
	case <-time.After(testwait.Step):
		t.Fatal("the server never saw the call cancelled")
	}
}
