package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/hookadapter"
)

// The tools of each pinned client, from what it offers its model and
// from its own code, held to the hook adapters' maps: a client that
// gains a tool fails TestClientToolListsAreMapped until the tool is
// mapped onto what it does.

// offeredTools reads a main-loop request of client (a body its scripted
// endpoint got) for the tools it offers its model, under the names its
// hooks report them by, sorted.
func offeredTools(client string, body []byte) ([]string, error) {
	client, _, _ = strings.Cut(client, ":")
	var names []string
	var err error
	switch client {
	case "claude-code":
		names, err = claudeOffered(body)
	case "gemini":
		names, err = geminiOffered(body)
	case "codex":
		names, err = codexOffered(body)
	default:
		err = fmt.Errorf("no client %q", client)
	}
	sort.Strings(names)
	return slices.Compact(names), err
}

// claudeDeferred opens the reminder in which Claude Code lists the tools
// it defers: their names follow, one a line, up to an empty line.
const claudeDeferred = "The following deferred tools are now available via ToolSearch"

// claudeOffered: the tools of the request, and the deferred ones its
// reminder lists (loaded through ToolSearch, then called by name).
func claudeOffered(body []byte) ([]string, error) {
	var req struct {
		Tools    []struct{ Name string }
		Messages []struct{ Content json.RawMessage }
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("the request is not a Messages API request: %v", err)
	}
	var names []string
	search := false
	for _, t := range req.Tools {
		names = append(names, t.Name)
		search = search || t.Name == "ToolSearch"
	}
	found := false
	for _, m := range req.Messages {
		for _, text := range contentTexts(m.Content) {
			_, rest, ok := strings.Cut(text, claudeDeferred)
			if !ok {
				continue
			}
			found = true
			// The names end at an empty line (MCP servers still
			// connecting are listed after it).
			rest, _, _ = strings.Cut(rest, "</system-reminder>")
			lines := strings.Split(rest, "\n")
			for _, l := range lines[1:] { // the first is the rest of the sentence
				if l = strings.TrimSpace(l); l == "" {
					break
				}
				names = append(names, l)
			}
		}
	}
	if search && !found {
		return names, fmt.Errorf("Claude Code offers ToolSearch but its request has no %q reminder: the way it lists deferred tools changed; look at the request and read the deferred tools from where it lists them now", claudeDeferred)
	}
	return names, nil
}

// contentTexts are the texts of a message's content: a string, or the
// text blocks.
func contentTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct{ Text string }
	json.Unmarshal(raw, &blocks)
	var out []string
	for _, b := range blocks {
		out = append(out, b.Text)
	}
	return out
}

// geminiOffered: the function declarations of the request.
func geminiOffered(body []byte) ([]string, error) {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("the request is not a Gemini API request: %v", err)
	}
	var names []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			names = append(names, f.Name)
		}
	}
	return names, nil
}

// codexTool is a tool in a Responses API request: a function, a custom
// (freeform) tool, a namespace of tools, or a hosted tool (web_search)
// known by its type.
type codexTool struct {
	Type, Name, Description string
	Tools                   []codexTool
}

// codexDeferred opens the list of the namespaces whose tools code mode
// defers (an MCP server's: mcp__SERVER), one "- NAMESPACE: ..." a line.
const codexDeferred = "Deferred tool namespaces:"

var codexDeferredNamespace = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_-]+):`)

// codexNested names the tools the code-mode exec tool's JavaScript can
// call, in its description.
var codexNested = regexp.MustCompile("(?m)^### `([^`]+)`")

// codexOffered: the tools of the request and of its additional_tools
// items (code mode), with namespaces, and the tools the exec tool's
// JavaScript calls, under the names Codex's hooks report (see
// codexHookName; a nested tool ns__name as the tool name of namespace ns).
func codexOffered(body []byte) ([]string, error) {
	var req struct {
		Tools []codexTool
		Input []struct {
			Type    string
			Tools   []codexTool
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("the request is not a Responses API request: %v", err)
	}
	var names []string
	var walk func(ns string, tools []codexTool)
	walk = func(ns string, tools []codexTool) {
		for _, t := range tools {
			switch {
			case t.Type == "namespace":
				walk(t.Name, t.Tools)
				continue
			case t.Name == "":
				names = append(names, t.Type)
				continue
			}
			names = append(names, codexHookName(ns, t.Name))
			if t.Type == "custom" && t.Name == "exec" {
				for _, m := range codexNested.FindAllStringSubmatch(t.Description, -1) {
					id := m[1]
					if ns, name, ok := strings.Cut(id, "__"); ok && ns != "mcp" {
						names = append(names, codexHookName(ns, name))
					} else {
						names = append(names, codexHookName("", id))
					}
				}
			}
		}
	}
	walk("", req.Tools)
	for _, item := range req.Input {
		switch item.Type {
		case "additional_tools":
			walk("", item.Tools)
		case "message":
			// Deferred namespaces (code mode's MCP servers) are named,
			// their tools are not: the namespace stands for them.
			for _, text := range contentTexts(item.Content) {
				if _, rest, ok := strings.Cut(text, codexDeferred); ok {
					rest, _, _ = strings.Cut(rest, "</tools>")
					for _, m := range codexDeferredNamespace.FindAllStringSubmatch(rest, -1) {
						names = append(names, m[1])
					}
				}
			}
		}
	}
	return names, nil
}

// codexHookName is the tool_name Codex's hooks report for tool name in
// namespace ns (measured): an MCP server's namespace (mcp__SERVER) joins
// its tools with __ (mcp__SERVER__TOOL), any other with nothing.
func codexHookName(ns, name string) string {
	switch {
	case name == "exec_command":
		return "Bash"
	case ns == "" || ns == "functions":
		return name
	case strings.HasPrefix(ns, "mcp__"):
		return ns + "__" + name
	}
	return ns + name
}

// claudeToolList opens the list of every tool name the Claude Code binary
// carries.
const claudeToolList = `["Agent","Artifact","AskUserQuestion","Bash",`

// claudeBinaryTools reads the list of tool names the Claude Code binary
// carries, a JavaScript array literal.
func claudeBinaryTools(bin string) ([]string, error) {
	lit, err := findInFile(bin, []byte(claudeToolList), 1<<14)
	if err != nil {
		return nil, err
	}
	if lit == nil {
		return nil, fmt.Errorf("%s does not carry the list of its tools that starts %s: a new version names its tools elsewhere; find the list (an array of every tool name) and update claudeToolList", bin, claudeToolList)
	}
	end := bytes.IndexByte(lit, ']')
	var names []string
	if end < 0 || json.Unmarshal(lit[:end+1], &names) != nil {
		return nil, fmt.Errorf("%s: the list of its tools that starts %s is not a JSON array of names: %.200q", bin, claudeToolList, lit)
	}
	return names, nil
}

// findInFile returns the first occurrence of prefix in the file at path
// with up to max bytes after it, or nil; the file is read in pieces (the
// Claude Code binary is hundreds of megabytes).
func findInFile(path string, prefix []byte, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keep := len(prefix) + max
	buf := make([]byte, keep+8<<20)
	have := 0
	for {
		n, err := io.ReadFull(f, buf[have:])
		have += n
		end := err != nil
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		if i := bytes.Index(buf[:have], prefix); i >= 0 {
			if have-i >= keep || end {
				return bytes.Clone(buf[i:min(have, i+keep)]), nil
			}
			have = copy(buf, buf[i:have]) // read the rest after it
			continue
		}
		if end {
			return nil, nil
		}
		have = copy(buf, buf[have-len(prefix):have]) // a prefix cut in two
	}
}

// geminiToolConstant is how Gemini CLI's bundle names a tool:
// NAME_TOOL_NAME = "name".
var geminiToolConstant = regexp.MustCompile(`(?:^|[^A-Za-z0-9_$])([A-Z][A-Z0-9_]*_TOOL_NAME) = "([^"\n]+)"$`)

// geminiNotTools are the *_TOOL_NAME constants of the bundle that name no
// tool.
var geminiNotTools = map[string]string{"GEN_AI_TOOL_NAME": "an OpenTelemetry attribute key"}

// geminiBundleTools reads the *_TOOL_NAME constants of Gemini CLI's
// bundle in dir.
func geminiBundleTools(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "*.js"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no bundle/*.js of @google/gemini-cli in %s (%v): the package is laid out differently; find where it names its tools", dir, err)
	}
	// The bundle is about 100 MB: find the constants' "_TOOL_NAME = "
	// first, and read each one's line around it.
	marker := []byte(`_TOOL_NAME = "`)
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i := bytes.Index(b, marker); i >= 0; {
			start := bytes.LastIndexByte(b[:i], '\n') + 1
			end := i + len(marker) + bytes.IndexAny(b[i+len(marker):], "\"\n") + 1
			if m := geminiToolConstant.FindSubmatch(b[max(start, i-100):end]); m != nil {
				if _, skip := geminiNotTools[string(m[1])]; !skip {
					names = append(names, string(m[2]))
				}
			}
			next := bytes.Index(b[end:], marker)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no *_TOOL_NAME constants in %s/…/bundle/*.js: Gemini CLI names its tools differently now; find where", dir)
	}
	return names, nil
}

// TestClientToolListsAreMapped holds the hook adapters' maps to the
// pinned clients: every tool a client offers its model (run headless
// against a scripted model, with no calls, and the MCP reference server
// as its MCP server when AGENTSH_MCP_EVERYTHING_DIR has it) or names in
// its own code is one its protocol knows. A tool the map lacks would
// reach policies as tools agentsh does not map: asked about, or denied.
func TestClientToolListsAreMapped(t *testing.T) {
	t.Parallel() // the real clients' runs wait on them and on the model
	none := func(string) []clientCall { return nil }
	everything, missing := findEverything()
	if missing != "" {
		t.Logf("the clients run without an MCP server: %s", missing)
	}
	// offered runs client, making calls when the MCP server is there, and
	// reads what its main-loop requests offer; mcpEcho is the reference
	// server's echo tool as the client names it.
	offered := func(t *testing.T, client string, calls []clientCall, mcpEcho string) (names, must []string) {
		t.Helper()
		setup := func(project string) {
			if everything != "" {
				addEverything(t, client, filepath.Dir(project), everything)
			}
		}
		model := none
		if everything != "" {
			model = func(string) []clientCall { return calls }
			must = append(must, mcpEcho)
		}
		run := runClient(t, client, model, nil, setup)
		if len(run.model.bodies) == 0 {
			t.Fatalf("%s made no main-loop request:\n%s", client, run.output)
		}
		for _, body := range run.model.bodies {
			more, err := offeredTools(client, body)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, more...)
		}
		slices.Sort(names)
		return slices.Compact(names), must
	}
	check := func(t *testing.T, agent, from string, names []string, must ...string) {
		t.Helper()
		proto, err := hookadapter.Lookup(agent)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, n := range names {
			have[n] = true
			c, err := hookadapter.MapCall(proto, n, json.RawMessage(`{}`), "")
			if err != nil {
				t.Fatalf("%s %s: %v", agent, n, err)
			}
			if !c.Known {
				t.Errorf("%s has the tool %s (%s), which the map of hookadapter does not know: map it onto what it does (kinds.go)", agent, n, from)
			}
		}
		for _, n := range must {
			if !have[n] {
				t.Errorf("%s: %s has no %s among %q: the list was not read right", agent, from, n, names)
			}
		}
	}
	t.Run("claude-code", func(t *testing.T) {
		bin := claudeCodeClient.find(t)
		t.Parallel()
		listed, err := claudeBinaryTools(bin)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "claude-code", "the list in its binary", listed, "Bash", "Write", "NotebookEdit", "Monitor")
		// Claude Code does not wait for an MCP server before its first
		// request; ToolSearch waits for it.
		echo := "mcp__" + everythingServer + "__echo"
		names, must := offered(t, "claude-code", []clientCall{{Name: "ToolSearch", Args: map[string]any{"query": "select:" + echo}}}, echo)
		check(t, "claude-code", "offered, or deferred to ToolSearch", names, append(must, "Bash", "ToolSearch", "NotebookEdit", "Monitor")...)
	})
	t.Run("gemini", func(t *testing.T) {
		geminiClient.find(t)
		t.Parallel()
		constants, err := geminiBundleTools(os.Getenv(geminiClient.env))
		if err != nil {
			t.Fatal(err)
		}
		check(t, "gemini", "a *_TOOL_NAME constant of its bundle", constants, "run_shell_command", "write_file", "replace")
		names, must := offered(t, "gemini", nil, "mcp_"+everythingServer+"_echo")
		check(t, "gemini", "offered", names, append(must, "run_shell_command", "write_file")...)
	})
	for _, c := range []struct {
		client, mcp string
		must        []string
		lacks       string // docs/hooks.md says it is not offered
	}{
		// An unknown model gets no apply_patch tool: a patch comes as a
		// here-document sent to exec_command.
		{"codex", "mcp__" + everythingServer + "__echo", []string{"Bash", "write_stdin", "view_image"}, "apply_patch"},
		// Code mode defers an MCP server's tools: only its namespace is
		// named.
		{"codex:gpt-6.2-sol", "mcp__" + everythingServer, []string{"exec", "apply_patch", "Bash"}, ""},
	} {
		t.Run(c.client, func(t *testing.T) {
			codexClient.find(t)
			t.Parallel()
			names, must := offered(t, c.client, nil, c.mcp)
			check(t, "codex", "offered to "+c.client, names, append(must, c.must...)...)
			if c.lacks != "" && slices.Contains(names, c.lacks) {
				t.Errorf("%s offers %s now: docs/hooks.md says it does not", c.client, c.lacks)
			}
		})
	}
}

// findInFile finds its text wherever it is: at the start, cut in two by
// the pieces it reads, with fewer than max bytes after it, or nowhere.
func TestFindInFile(t *testing.T) {
	const piece = 8 << 20
	prefix := []byte(`["A","B",`)
	for _, c := range []struct {
		name   string
		at     int // where the prefix goes in a file of size bytes
		size   int
		max    int
		want   string // what follows the prefix
		absent bool
	}{
		{name: "at the start", at: 0, size: 100, max: 4, want: "xxxx"},
		// The first read ends at piece + len(prefix) + max.
		{name: "across pieces", at: piece + 10, size: piece + 100, max: 5, want: "xxxxx"},
		{name: "near the end", at: 90, size: 100 + len(prefix), max: 50, want: "xxxxxxxxxx"},
		{name: "absent", at: -1, size: piece + 100, max: 5, absent: true},
	} {
		b := bytes.Repeat([]byte("x"), c.size)
		if c.at >= 0 {
			copy(b[c.at:], prefix)
		}
		path := filepath.Join(t.TempDir(), "bin")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := findInFile(path, prefix, c.max)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.absent && got != nil:
			t.Errorf("%s: found %q", c.name, got)
		case !c.absent && string(got) != string(prefix)+c.want:
			t.Errorf("%s: got %q, want %q", c.name, got, string(prefix)+c.want)
		}
	}
	if _, err := findInFile(filepath.Join(t.TempDir(), "missing"), prefix, 1); err == nil {
		t.Error("a missing file: no error")
	}
}

// offeredTools reads each client's request form, under the names the
// client's hooks report, and says so when a request is not one it can
// read.
func TestOfferedTools(t *testing.T) {
	reminder := "<system-reminder>\n" + claudeDeferred + ". Load them first:\nMonitor\nNotebookEdit\n\n" +
		"The following MCP servers are still connecting:\nev\n</system-reminder>"
	claude, _ := json.Marshal(map[string]any{
		"tools":    []any{map[string]any{"name": "Bash"}, map[string]any{"name": "ToolSearch"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": reminder}}}},
	})
	exec := "Run JavaScript.\n### `apply_patch`\nPatches.\n### `exec_command`\nRuns.\n### `clock__curr_time`\nTime.\n### `mcp__ev__echo`\nEcho.\n"
	codex, _ := json.Marshal(map[string]any{
		"tools": []any{
			map[string]any{"type": "function", "name": "exec_command"},
			map[string]any{"type": "web_search"},
			map[string]any{"type": "namespace", "name": "multi_agent_v1", "tools": []any{map[string]any{"type": "function", "name": "wait_agent"}}},
			map[string]any{"type": "namespace", "name": "mcp__ev", "tools": []any{map[string]any{"type": "function", "name": "get_sum"}}},
		},
		"input": []any{
			map[string]any{"type": "additional_tools", "tools": []any{map[string]any{"type": "namespace", "name": "functions", "tools": []any{
				map[string]any{"type": "custom", "name": "exec", "description": exec}, map[string]any{"type": "function", "name": "wait"}}}}},
			map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text",
				"text": "<tools>\n" + codexDeferred + "\n- mcp__docs: # Docs\n</tools>"}}},
		},
	})
	gemini := []byte(`{"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"mcp_ev_echo"}]}]}`)
	for _, c := range []struct {
		client string
		body   []byte
		want   string
	}{
		{"claude-code", claude, "Bash Monitor NotebookEdit ToolSearch"},
		{"codex:gpt-6.2-sol", codex, "Bash apply_patch clockcurr_time exec mcp__docs mcp__ev__echo mcp__ev__get_sum multi_agent_v1wait_agent wait web_search"},
		{"gemini", gemini, "mcp_ev_echo run_shell_command"},
	} {
		got, err := offeredTools(c.client, c.body)
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, %v; want %s", c.client, got, err, c.want)
		}
	}
	for _, c := range []struct {
		client, body, err string
	}{
		{"claude-code", `{"tools":[{"name":"ToolSearch"}],"messages":[]}`, "no \"The following deferred tools"},
		{"claude-code", `[1]`, "not a Messages API request"},
		{"gemini", `{"tools":"x"}`, "not a Gemini API request"},
		{"codex", `{"tools":[{"type":"namespace","tools":7}]}`, "not a Responses API request"},
		{"aider", `{}`, `no client "aider"`},
	} {
		if _, err := offeredTools(c.client, []byte(c.body)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s: %v, want an error with %q", c.client, c.body, err, c.err)
		}
	}
}
