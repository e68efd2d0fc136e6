package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

// shortLimit is HTTPServer's every time limit in these tests: short, so
// a test outlasts it quickly, and long enough that a read or write a
// loaded machine delays is not cut by it.
const shortLimit = 300 * time.Millisecond

// shortLimits makes HTTPServer's time limits shortLimit for one test.
func shortLimits(t *testing.T) {
	saved := httpLimits
	httpLimits.header, httpLimits.body, httpLimits.write, httpLimits.idle = shortLimit, shortLimit, shortLimit, shortLimit
	t.Cleanup(func() { httpLimits = saved })
}

// outlast returns once the server's time limits have run out n times
// over: each time, a connection that sends nothing is closed by the
// server's header limit, all of which were set at once. It waits on that
// closing, not on a guess at how long the limits take on this machine;
// ctx guards the wait.
func outlast(ctx context.Context, addr string, closed <-chan string, n int) error {
	for range n {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		for waiting := true; waiting; {
			select {
			case c := <-closed:
				waiting = c != conn.LocalAddr().String()
			case <-ctx.Done():
				conn.Close()
				return errors.New("the server never closed a connection that sent nothing")
			}
		}
		conn.Close()
	}
	return nil
}

// startHTTP serves s over HTTPServer on a loopback port and returns its
// address, and a channel that gets the client's address of each
// connection the server closes. wrap, if not nil, wraps the handler.
func startHTTP(t *testing.T, s *Server, token string, wrap ...func(http.Handler) http.Handler) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan string, 64)
	h := s.Handler(token)
	for _, w := range wrap {
		h = w(h)
	}
	hs := HTTPServer(h)
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			select {
			case closed <- c.RemoteAddr().String():
			default:
			}
		}
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String(), closed
}

// closedByServer reports whether the server closes conn, reading what it
// answers first; deadline is only the guard of a test that fails.
func closedByServer(t *testing.T, conn net.Conn) (answer string, closed bool) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(deadline))
	b, err := io.ReadAll(conn) // a reset connection is closed too
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return string(b), false
	}
	return string(b), true
}

// TestHTTPHalfOpen: a connection that never finishes its request — no
// bytes, headers that never end, a body that never comes — is closed by
// the server, before and after the token check.
func TestHTTPHalfOpen(t *testing.T) {
	shortLimits(t)
	addr, _ := startHTTP(t, newServer(t, newExec(t, textTool("look", "seen", true)), Options{}), "s3cret")
	for _, c := range []struct{ name, sent string }{
		{"nothing", ""},
		{"a request line", "POST / HTTP/1.1\r\n"},
		{"headers without their end", "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"},
		{"a body that never comes", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, c.sent); err != nil {
			t.Fatal(err)
		}
		answer, closed := closedByServer(t, conn)
		conn.Close()
		if !closed {
			t.Errorf("%s: the connection is still open after %v (answered %q)", c.name, deadline, answer)
		}
	}
}

// TestHTTPSizes: headers and bodies past their caps are refused.
func TestHTTPSizes(t *testing.T) {
	addr, _ := startHTTP(t, newServer(t, newExec(t), Options{}), "")
	req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	// net/http allows 4 KiB over the cap.
	req.Header.Set("X-Padding", strings.Repeat("p", httpLimits.headerBytes+4<<10+1))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("headers of %d bytes: got %d, want 431", httpLimits.headerBytes, resp.StatusCode)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("x", MaxMessageBytes) + `"}}`
	req, _ = http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of %d bytes: got %d, want 413", len(body), resp.StatusCode)
	}
}

// TestHTTPStreamOutlivesLimits: the streams of a session stay open past
// every time limit while the client reads them: the server's GET stream
// delivers a notification without having been opened again, and the
// session still answers calls.
func TestHTTPStreamOutlivesLimits(t *testing.T) {
	shortLimits(t)
	ex := newExec(t, textTool("look", "seen", true))
	s := newServer(t, ex, Options{})
	var gets atomic.Int64
	addr, closed := startHTTP(t, s, "", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	notes := make(chan struct{}, 16)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { notes <- struct{}{} },
	}).Connect(testCtx(t), &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := text(call(t, cs, "look", nil)); got != "seen" {
		t.Fatalf("look: %q", got)
	}
	// Past every limit, several times over: the GET stream is idle, as is
	// the connection of the calls.
	if err := outlast(testCtx(t), addr, closed, 3); err != nil {
		t.Fatal(err)
	}
	if err := ex.Registry().RegisterTools(textTool("later", "added", true)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notes:
	case <-testCtx(t).Done():
		t.Fatal("no notifications/tools/list_changed: the GET stream was cut")
	}
	if got := text(call(t, cs, "later", nil)); got != "added" {
		t.Fatalf("later: %q", got)
	}
	if n := gets.Load(); n != 1 {
		t.Errorf("the client opened the GET stream %d times, want once: the server cut it", n)
	}
}

// TestHTTPSlowReader: a write the client does not read is given up, so a
// client that stops reading does not hold the server's handler.
func TestHTTPSlowReader(t *testing.T) {
	shortLimits(t)
	big := strings.Repeat("x", 8<<20)
	s := newServer(t, newExec(t, textTool("big", big, true)), Options{})
	addr, closed := startHTTP(t, s, "")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetReadBuffer(4 << 10)
	}
	post := func(body, session string) {
		t.Helper()
		req := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
		if session != "" {
			req += "Mcp-Session-Id: " + session + "\r\nMcp-Protocol-Version: 2025-06-18\r\n"
		}
		req += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
	}
	post(strings.TrimSpace(initialize), "")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if _, err := io.ReadAll(resp.Body); err != nil || session == "" {
		t.Fatalf("initialize: session %q, %v", session, err)
	}
	post(strings.TrimSpace(initialized), session)
	if resp, err := http.ReadResponse(br, nil); err != nil {
		t.Fatal(err)
	} else {
		_, _ = io.ReadAll(resp.Body)
	}
	// The call's result is 8 MiB; this client reads none of it.
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big"}}`, session)
	select {
	case c := <-closed:
		if c != conn.LocalAddr().String() {
			t.Fatalf("the server closed %s, want %s", c, conn.LocalAddr())
		}
	case <-testCtx(t).Done():
		t.Fatal("the server still writes to a client that stopped reading")
	}
}

// TestHTTPLongCall: a call that outlasts every time limit (as one that
// waits for an elicitation does) is not canceled by them.
func TestHTTPLongCall(t *testing.T) {
	shortLimits(t)
	var (
		addr   string
		closed <-chan string
	)
	slow := core.Tool{Name: "slow", ReadOnly: true, Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		if err := outlast(ctx, addr, closed, 3); err != nil { // the call lasts past every limit
			return nil, err
		}
		return "finished", nil
	}}
	addr, closed = startHTTP(t, newServer(t, newExec(t, slow), Options{}), "")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(testCtx(t),
		&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := text(call(t, cs, "slow", nil)); got != "finished" {
		t.Fatalf("a call longer than the limits: %q, want finished", got)
	}
}

// TestHTTPServerLimits: the limits are those docs/mcp.md states.
func TestHTTPServerLimits(t *testing.T) {
	hs := HTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout != 10*time.Second || hs.IdleTimeout != 2*time.Minute || hs.MaxHeaderBytes != 64<<10 ||
		hs.ReadTimeout != 0 || hs.WriteTimeout != 0 || httpLimits.body != time.Minute || httpLimits.write != time.Minute {
		t.Errorf("limits: header %v, idle %v, header bytes %d, read %v, write %v, body %v, each write %v",
			hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes, hs.ReadTimeout, hs.WriteTimeout, httpLimits.body, httpLimits.write)
	}
	b, err := os.ReadFile("../../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		"headers must arrive within 10 seconds and fit in 64 KiB (else 431), a body within a minute and in 16 MiB (else 413)",
		"a write the client does not read within a minute ends its connection",
		"idle between requests for two minutes is closed",
		"one longer than 16 MiB",
		"over the limit of " + strconv.Itoa(MaxMessageBytes) + " bytes",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/mcp.md does not say %q", want)
		}
	}
}
