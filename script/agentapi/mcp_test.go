package agentapi_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/script/agentapi"
)

// fakeMCP records the servers it is asked to connect.
type fakeMCP struct {
	mu    sync.Mutex
	added []agentapi.MCPServer
}

func (f *fakeMCP) Add(ctx context.Context, s agentapi.MCPServer) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.Name == "broken" {
		return nil, errors.New("connection refused")
	}
	f.added = append(f.added, s)
	return []string{"mcp__" + s.Name + "__read", "mcp__" + s.Name + "__write"}, nil
}

func (f *fakeMCP) servers() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.added {
		out = append(out, fmt.Sprintf("%s command=%q url=%q env=%q read_only=%q", s.Name, s.Command, s.URL, s.Env, s.ReadOnly))
	}
	return out
}

// TestMCPServer: mcp_server passes the command list, URL, environment and
// the tools declared read-only through to the connector and returns the names of the tools it added.
func TestMCPServer(t *testing.T) {
	fake := &fakeMCP{}
	e := newEnv(t, agentapi.Config{MCP: fake})
	e.runStar(`
print(mcp_server("fs", command = ["fs-server", "--root", "."], env = ["TOKEN=1", "MODE=ro"]))
print(mcp_server("web", url = "http://localhost:8080/mcp", read_only = ["search", "mcp__web__fetch_page"]))
print(mcp_server(name = "plain", command = ["plain-server"]))
`)
	e.runLua(`
local names = mcp_server("lfs", {command = {"fs-server", "--lua"}, env = {"A=b"}})
print(table.concat(names, ","))
print(mcp_server("lweb", {url = "https://example.com/mcp", read_only = {"search"}})[1])
`)
	wantLines(t, e.lines(),
		`["mcp__fs__read", "mcp__fs__write"]`,
		`["mcp__web__read", "mcp__web__write"]`,
		`["mcp__plain__read", "mcp__plain__write"]`,
		"mcp__lfs__read,mcp__lfs__write",
		"mcp__lweb__read")
	wantLines(t, fake.servers(),
		`fs command=["fs-server" "--root" "."] url="" env=["TOKEN=1" "MODE=ro"] read_only=[]`,
		`web command=[] url="http://localhost:8080/mcp" env=[] read_only=["search" "mcp__web__fetch_page"]`,
		`plain command=["plain-server"] url="" env=[] read_only=[]`,
		`lfs command=["fs-server" "--lua"] url="" env=["A=b"] read_only=[]`,
		`lweb command=[] url="https://example.com/mcp" env=[] read_only=["search"]`)
}

// TestMCPServerErrors: exactly one of command and url; lists of strings;
// the connector's error names the server.
func TestMCPServerErrors(t *testing.T) {
	fake := &fakeMCP{}
	e := newEnv(t, agentapi.Config{MCP: fake})
	const either = `give either command = [PROGRAM, ARGS...] or url = "http://..."`
	for _, tc := range []struct{ lang, src, want string }{
		{"star", `mcp_server("none")`, "mcp_server none: " + either},
		{"star", `mcp_server("both", command = ["x"], url = "http://h/mcp")`, "mcp_server both: " + either},
		{"star", `mcp_server("empty", command = [])`, "mcp_server empty: " + either},
		{"lua", `mcp_server("none")`, "mcp_server none: " + either},
		{"lua", `mcp_server("both", {command = {"x"}, url = "http://h/mcp"})`, "mcp_server both: " + either},
		{"star", `mcp_server("s", command = "fs-server --root .")`, "mcp_server: command must be a list of strings"},
		{"star", `mcp_server("s", command = ["fs", 1])`, "mcp_server: command[1] must be a string"},
		{"star", `mcp_server("s", command = ["fs"], env = "A=1")`, "mcp_server: env must be a list of strings"},
		{"star", `mcp_server("s", url = 3)`, "mcp_server: url got an int, want a string"},
		{"star", `mcp_server("s", command = ["fs"], read_only = "search")`, "mcp_server: read_only must be a list of strings"},
		{"lua", `mcp_server("s", {command = {"fs"}, read_only = {1}})`, "mcp_server: read_only[0] must be a string"},
		{"star", `mcp_server(command = ["fs"])`, `mcp_server: missing argument "name"`},
		{"star", `mcp_server("broken", command = ["fs"])`, "mcp_server broken: connection refused"},
	} {
		wantErr(t, tc.lang+": "+tc.src, e.exec(tc.lang, tc.src), tc.want)
	}
	if got := fake.servers(); len(got) != 0 {
		t.Errorf("connected %q; want nothing", got)
	}

	// Without a connector there is no mcp_server.
	e = newEnv(t, agentapi.Config{})
	err := e.execStar(context.Background(), `mcp_server("fs", command = ["x"])`)
	wantErr(t, "no connector", err, "undefined: mcp_server")
	e.runLua(`print(mcp_server == nil)`)
	wantLines(t, e.lines(), "true")
}
