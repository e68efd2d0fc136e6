package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/testwait"
)

// deadline guards waits for events; it is never what a test measures.
const deadline = testwait.Step

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

func textTool(name, out string, readOnly bool) core.Tool {
	return core.Tool{Name: name, Description: "says " + out, ReadOnly: readOnly,
		Func: func(context.Context, json.RawMessage) (any, error) { return out, nil }}
}

// newExec returns an executor with tools, closed at the end of the test.
func newExec(t testing.TB, tools ...core.Tool) *executor.Executor {
	t.Helper()
	ex := executor.New(core.NewRegistry(), executor.WithValidateArguments(true))
	if err := ex.Registry().RegisterTools(tools...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	return ex
}

// newServer serves ex with opts, its Approver installed.
func newServer(t testing.TB, ex *executor.Executor, opts Options) *Server {
	t.Helper()
	s := New(ex, opts)
	ex.SetApprover(s.Approver())
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// connect runs a session of s in memory and returns the client's side.
func connect(t testing.TB, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, opts)
	cs, err := c.Connect(testCtx(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text joins the text content of res.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func listed(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}
