package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
)

func TestListChanged(t *testing.T) {
	ex := newExec(t, textTool("a", "A", true))
	s := newServer(t, ex, Options{})
	notes := make(chan struct{}, 16)
	cs := connect(t, s, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		notes <- struct{}{}
	}})
	wait := func(what string) {
		t.Helper()
		select {
		case <-notes:
		case <-testCtx(t).Done():
			t.Fatalf("no notifications/tools/list_changed after %s", what)
		}
	}
	if err := ex.Registry().RegisterTools(textTool("b", "B", true)); err != nil {
		t.Fatal(err)
	}
	wait("a registration")
	// The notification may come before the last change is listed.
	for _, ok := listed(t, cs)["b"]; !ok; _, ok = listed(t, cs)["b"] {
		wait("a registration, again")
	}
	if got := text(call(t, cs, "b", nil)); got != "B" {
		t.Fatalf("new tool: got %q", got)
	}
	if err := ex.Registry().UnregisterTools("a"); err != nil {
		t.Fatal(err)
	}
	wait("a removal")
	for _, ok := listed(t, cs)["a"]; ok; _, ok = listed(t, cs)["a"] {
		wait("a removal, again")
	}
	if _, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "a"}); err == nil {
		t.Fatal("a removed tool could still be called")
	}
}

func TestHide(t *testing.T) {
	var ran bool
	ex := newExec(t, textTool("shown", "S", true),
		core.Tool{Name: "secret", ReadOnly: true, Func: func(context.Context, json.RawMessage) (any, error) { ran = true; return "leaked", nil }},
		textTool("broken", "B", true))
	var reported []error
	s := newServer(t, ex, Options{
		Hide: func(_ context.Context, tl *core.Tool) (bool, error) {
			switch tl.Name {
			case "broken":
				return false, errors.New("policy failed")
			}
			return tl.Name == "secret", nil
		},
		Report: func(err error) { reported = append(reported, err) },
	})
	cs := connect(t, s, nil)
	tools := listed(t, cs)
	if _, ok := tools["shown"]; !ok || len(tools) != 1 {
		t.Fatalf("got %v, want only shown (secret hidden, broken hidden by its error)", tools)
	}
	if _, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: "secret"}); err == nil || ran {
		t.Fatalf("a hidden tool was called: err %v, ran %v", err, ran)
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "broken") || !strings.Contains(reported[0].Error(), "policy failed") {
		t.Fatalf("reported %v, want the error of broken's Hide", reported)
	}
}

func TestSchemaGetsObjectType(t *testing.T) {
	ex := newExec(t, core.Tool{Name: "untyped", ReadOnly: true, Parameters: json.RawMessage(`{"properties": {"a": {"type": "string"}}}`),
		Func: func(context.Context, json.RawMessage) (any, error) { return "", nil }})
	cs := connect(t, newServer(t, ex, Options{}), nil)
	b, _ := json.Marshal(listed(t, cs)["untyped"].InputSchema)
	if got, want := string(b), `{"properties":{"a":{"type":"string"}},"type":"object"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// blocker is a tool that waits for its context to end and says so.
func blocker(started chan<- struct{}, ended chan<- error) core.Tool {
	return core.Tool{Name: "wait", ReadOnly: true, Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}
}

func TestCancelCall(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	cs := connect(t, newServer(t, newExec(t, blocker(started, ended)), Options{}), nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait"})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the tool's context ended with %v, want canceled", err)
		}
	case <-testCtx(t).Done():
		t.Fatal("cancelling the request did not cancel the call")
	}
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error to the client")
	}
}

func TestDisconnectCancels(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	s := newServer(t, newExec(t, blocker(started, ended)), Options{})
	// The connection itself goes away, as when a client process dies.
	c1, c2 := net.Pipe()
	ss, err := s.SDK().Connect(context.Background(), &sdk.IOTransport{Reader: c2, Writer: c2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(testCtx(t), &sdk.IOTransport{Reader: c1, Writer: c1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait"}) }()
	<-started
	_ = c1.Close()
	select {
	case <-ended:
	case <-testCtx(t).Done():
		t.Fatal("the client's disconnect did not cancel its call")
	}
	_ = ss.Wait()
}

// bearerTransport adds a token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(token string) *http.Client { return &http.Client{Transport: bearerTransport{token}} }

func TestHTTPToken(t *testing.T) {
	s := newServer(t, newExec(t, textTool("look", "seen", true)), Options{})
	hs := httptest.NewServer(s.Handler("s3cret"))
	t.Cleanup(hs.Close)
	for _, c := range []struct {
		name, token string
		ok          bool
	}{{"right", "s3cret", true}, {"wrong", "s3cret!", false}, {"prefix", "s3cre", false}, {"none", "", false}} {
		client := &http.Client{Transport: bearerTransport{c.token}}
		if c.token == "" {
			client = http.DefaultClient
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(testCtx(t),
			&sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: client, MaxRetries: -1}, nil)
		if !c.ok {
			if err == nil {
				_ = cs.Close()
				t.Errorf("%s token: connected, want refused", c.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s token: %v", c.name, err)
		}
		if got := text(call(t, cs, "look", nil)); got != "seen" {
			t.Errorf("over HTTP: got %q", got)
		}
		_ = cs.Close()
	}
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no token: got %d %q, want 401 with a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:8080", false, true},
		{"localhost:8080", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"192.168.1.5:8080", false, false},
		{"0.0.0.0:8080", true, true},
		{"nonsense", true, false},
	} {
		err := CheckListen(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, token %v): got %v, want ok %v", c.addr, c.token, err, c.ok)
		}
	}
}
