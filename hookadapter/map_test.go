package hookadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/tools"
)

// project is a temp project with the built-in tools installed, the
// executor's working directory.
func project(t *testing.T, hooks ...core.BeforeHook) (*executor.Executor, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{"src/main.go": "package main\n\nfunc main() {}\n", "README.md": "# r\n"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ex := executor.New(nil, executor.WithBeforeHooks(hooks...))
	if err := ex.Install(context.Background(), tools.NewExtension(tools.ExtensionConfig{WorkingDir: dir})); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	dir, _ = filepath.EvalSymlinks(dir)
	return ex, ex.WorkDir()
}

// decide runs one pre-tool event of proto through the adapter and returns
// its answer, with /P in the input standing for the project.
func decide(t *testing.T, ex *executor.Executor, dir string, proto Protocol, tool, input, cwd string) Answer {
	t.Helper()
	input = strings.ReplaceAll(input, "/P", dir)
	if cwd == "" {
		cwd = dir
	}
	ev := &Event{Kind: KindPreTool, Name: "PreToolUse", Tool: tool, Input: json.RawMessage(input), Cwd: strings.ReplaceAll(cwd, "/P", dir)}
	a, _, err := preTool(context.Background(), Config{Protocol: proto, Exec: ex, Load: func(context.Context) error { return nil }}, ev)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, input, err)
	}
	return a
}

// spy records the canonical calls a policy sees and decides nothing.
type spy struct{ calls []string }

func (s *spy) hook() core.BeforeHook {
	return core.BeforeHook{Name: "spy", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		fx, _ := json.Marshal(c.Effects)
		s.calls = append(s.calls, c.Name+" "+string(c.Args)+" "+string(fx))
		return nil, nil
	}}
}

// Each agent's tools reach the policies as canonical calls: agentsh's
// names and fields, paths relative to the project, shells with where
// they run, patches as their file writes.
func TestCanonicalClientCalls(t *testing.T) {
	var s spy
	ex, dir := project(t, s.hook())
	fx := func(f string) string { return f }
	none := `{"reads":[],"writes":[],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`
	for _, c := range []struct {
		proto       Protocol
		tool, input string
		cwd         string
		want        string
	}{
		{claudeCode{}, "Write", `{"file_path":"/P/src/ok.txt","content":"x"}`, "",
			`write_file {"content":"x","path":"src/ok.txt"} {"reads":[],"writes":["src/ok.txt"],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{claudeCode{}, "Edit", `{"file_path":"/P/src/../src/main.go","old_string":"a","new_string":"b"}`, "",
			`edit_file {"new_string":"b","old_string":"a","path":"src/main.go"} {"reads":[],"writes":["src/main.go"],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{claudeCode{}, "NotebookEdit", `{"notebook_path":"/P/nb.ipynb","new_source":"x"}`, "",
			`edit_file {"new_source":"x","path":"nb.ipynb"} {"reads":[],"writes":["nb.ipynb"],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{claudeCode{}, "Monitor", `{"command":"tail -f log","description":"d","timeout_ms":5}`, "",
			`bash {"command":"tail -f log","description":"d","timeout_ms":5,"workdir":"."} {"reads":[],"writes":[],"deletes":[],"shell":[{"command":"tail -f log","dir":"."}],"code":[],"hosts":[],"unknown":false}`},
		{claudeCode{}, "PowerShell", `{"command":"Remove-Item x"}`, "",
			`run_code {"code":"Remove-Item x","language":"powershell"} {"reads":[],"writes":[],"deletes":[],"shell":[],"code":[{"language":"powershell","code":"Remove-Item x"}],"hosts":[],"unknown":false}`},
		{claudeCode{}, "TodoWrite", `{"todos":[]}`, "", `TodoWrite {"todos":[]} ` + fx(none)},
		{gemini{}, "run_shell_command", `{"command":"make","dir_path":"src"}`, "",
			`bash {"command":"make","workdir":"src"} {"reads":[],"writes":[],"deletes":[],"shell":[{"command":"make","dir":"src"}],"code":[],"hosts":[],"unknown":false}`},
		{gemini{}, "read_many_files", `{"include":["src/**/*.go","./README.md"]}`, "",
			`read_many_files {"include":["src/**/*.go","README.md"]} {"reads":["src/**/*.go","README.md"],"writes":[],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{gemini{}, "web_fetch", `{"prompt":"summarize https://Example.com/a and http://b.test:8080/x"}`, "",
			`web_fetch {"prompt":"summarize https://Example.com/a and http://b.test:8080/x"} {"reads":[],"writes":[],"deletes":[],"shell":[],"code":[],"hosts":["example.com","b.test"],"unknown":false}`},
		{codex{}, "Bash", `{"command":"rm -rf build"}`, "/P/src",
			`bash {"command":"rm -rf build","workdir":"src"} {"reads":[],"writes":[],"deletes":[],"shell":[{"command":"rm -rf build","dir":"src"}],"code":[],"hosts":[],"unknown":false}`},
		{codex{}, "apply_patch", `{"command":"*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: main.go\n*** End Patch\n"}`, "/P/src",
			`apply_patch {"patch":"*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: main.go\n*** End Patch\n","workdir":"src"} {"reads":[],"writes":["src/new.txt"],"deletes":["src/main.go"],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{codex{}, "Bash", `{"command":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\nEOF\n"}`, "",
			`apply_patch {"patch":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\nEOF\n","workdir":"."} {"reads":[],"writes":["a.txt"],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{codex{}, "Bash", `{"command":"cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\nEOF\n"}`, "",
			`apply_patch {"patch":"cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\nEOF\n","workdir":"src"} {"reads":[],"writes":["src/a.txt"],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{codex{}, "write_stdin", `{"session_id":3,"chars":"import shutil; shutil.rmtree('x')\n"}`, "",
			`write_stdin {"chars":"import shutil; shutil.rmtree('x')\n","session_id":3} {"reads":[],"writes":[],"deletes":[],"shell":[],"code":[{"language":"interactive","code":"import shutil; shutil.rmtree('x')\n"}],"hosts":[],"unknown":false}`},
		{codex{}, "shell", `{"command":["bash","-lc","ls -la"]}`, "",
			`bash {"command":"ls -la","workdir":"."} {"reads":[],"writes":[],"deletes":[],"shell":[{"command":"ls -la","dir":"."}],"code":[],"hosts":[],"unknown":false}`},
		{codex{}, "view_image", `{"path":"/P/README.md"}`, "",
			`read_file {"path":"README.md"} {"reads":["README.md"],"writes":[],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":false}`},
		{claudeCode{}, "BrandNewTool", `{"x":1}`, "", `BrandNewTool {"x":1} {"reads":[],"writes":[],"deletes":[],"shell":[],"code":[],"hosts":[],"unknown":true}`},
	} {
		s.calls = nil
		decide(t, ex, dir, c.proto, c.tool, c.input, c.cwd)
		if len(s.calls) == 0 || s.calls[0] != c.want {
			t.Errorf("%s %s %s:\n got %q\nwant %q", c.proto.Name(), c.tool, c.input, s.calls, c.want)
		}
	}
}

// A tool nobody mapped may do anything: it asks at least, and where the
// agent has no ask, it is denied. A mapped tool the policy has no opinion
// of gets none. MCP tools keep their names and get the policy's verdict.
func TestUnmappedTools(t *testing.T) {
	ex, dir := project(t)
	for _, c := range []struct {
		proto Protocol
		tool  string
		want  core.Verdict
	}{
		{claudeCode{}, "BrandNewTool", core.VerdictAsk},
		{gemini{}, "brand_new_tool", core.VerdictAsk},
		{codex{}, "brand_new_tool", core.VerdictAsk},
		{claudeCode{}, "TodoWrite", core.VerdictNone},
		{claudeCode{}, "mcp__srv__tool", core.VerdictNone},
		{codex{}, "mcp__srv__tool", core.VerdictNone},
		// Gemini CLI's MCP tools are mcp_SERVER_TOOL; in the others that
		// form is no MCP tool.
		{gemini{}, "mcp_srv_tool", core.VerdictNone},
		{claudeCode{}, "mcp_srv_tool", core.VerdictAsk},
		{codex{}, "mcp_srv_tool", core.VerdictAsk},
		// Gemini CLI's discovered tools run a command of the user's: unknown.
		{gemini{}, "discovered_tool_touch", core.VerdictAsk},
	} {
		a := decide(t, ex, dir, c.proto, c.tool, `{}`, "")
		if a.Verdict != c.want {
			t.Errorf("%s %s: %s (%s), want %s", c.proto.Name(), c.tool, a.Verdict, a.Reason, c.want)
		}
		var out bytes.Buffer
		ev := &Event{Kind: KindPreTool, Name: "PreToolUse"}
		c.proto.Answer(ev, a, &out, &bytes.Buffer{})
		if c.want == core.VerdictAsk && c.proto.Name() != "claude-code" && !strings.Contains(out.String(), "deny") {
			t.Errorf("%s %s: answer %s, want a deny (no ask in this agent)", c.proto.Name(), c.tool, out.String())
		}
	}
	// A policy's deny stands, an allow does not lift the ask.
	deny := core.BeforeHook{Name: "no", Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("nope") }}
	allow := core.BeforeHook{Name: "yes", Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Allow("sure") }}
	for hook, want := range map[*core.BeforeHook]core.Verdict{&deny: core.VerdictDeny, &allow: core.VerdictAsk} {
		ex, dir := project(t, *hook)
		if a := decide(t, ex, dir, claudeCode{}, "BrandNewTool", `{}`, ""); a.Verdict != want {
			t.Errorf("%s: %s, want %s", hook.Name, a.Verdict, want)
		}
	}
	// A policy decides an MCP tool by its name, in the agent's form.
	noMCP := core.BeforeHook{Name: "no_mcp", Tools: []string{"mcp_*"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("no mcp") }}
	ex, dir = project(t, noMCP)
	if a := decide(t, ex, dir, gemini{}, "mcp_srv_tool", `{}`, ""); a.Verdict != core.VerdictDeny || !strings.Contains(a.Reason, "no mcp") {
		t.Errorf("mcp_srv_tool under a deny of mcp_*: %s %q", a.Verdict, a.Reason)
	}
}

// An allow only in a sandbox is an ask for an agent's shell call: the
// agent runs it, outside agentsh's sandbox. An allow with no sandbox
// stands, and so does a deny.
func TestSandboxedAllowAsks(t *testing.T) {
	confined := core.BeforeHook{Name: "confined", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return nil, &core.VerdictError{Verdict: core.VerdictAllow, Reason: "builds run in the sandbox", Sandbox: core.SandboxWorkspace}
	}}
	plain := core.BeforeHook{Name: "plain", Func: func(context.Context, *core.Call) (json.RawMessage, error) {
		return nil, core.Allow("reads only")
	}}
	for _, c := range []struct {
		hook   core.BeforeHook
		want   core.Verdict
		reason string
	}{
		{confined, core.VerdictAsk, "a policy allows this command only in the workspace sandbox (confined: builds run in the sandbox), but the agent that asked runs it outside agentsh's sandbox"},
		{plain, core.VerdictAllow, "reads only (agentsh policy: plain)"},
	} {
		ex, dir := project(t, c.hook)
		for _, proto := range []Protocol{claudeCode{}, gemini{}, codex{}} {
			tool := map[string]string{"claude-code": "Bash", "gemini": "run_shell_command", "codex": "Bash"}[proto.Name()]
			a := decide(t, ex, dir, proto, tool, `{"command":"make"}`, "")
			if a.Verdict != c.want || !strings.Contains(a.Reason, c.reason) {
				t.Errorf("%s %s under %s: %s (%s), want %s with %q", proto.Name(), tool, c.hook.Name, a.Verdict, a.Reason, c.want, c.reason)
			}
		}
		// A tool that runs no command has no sandbox to ask about.
		if a := decide(t, ex, dir, claudeCode{}, "Read", `{"file_path":"/P/README.md"}`, ""); a.Verdict != core.VerdictAllow {
			t.Errorf("Read under %s: %s (%s), want allow", c.hook.Name, a.Verdict, a.Reason)
		}
	}
}

// writesOnlyInSrc is the policy a newcomer writes first, by tool name.
var writesOnlyInSrc = core.BeforeHook{Name: "src", Tools: []string{"write_file", "edit_file"},
	Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
		var a struct{ Path string }
		json.Unmarshal(c.Args, &a)
		if !strings.HasPrefix(a.Path, "src/") {
			return nil, core.Deny("writes only under src/, not " + a.Path)
		}
		return nil, nil
	}}

// A patch is decided as each file it writes: a policy written for
// write_file and edit_file holds for Codex's patches too.
func TestPatchDecidedAsWrites(t *testing.T) {
	ex, dir := project(t, writesOnlyInSrc)
	for _, c := range []struct {
		input, cwd string
		want       core.Verdict
		reason     string
	}{
		{`{"command":"*** Begin Patch\n*** Add File: src/a.txt\n+x\n*** End Patch\n"}`, "", core.VerdictNone, ""},
		{`{"command":"*** Begin Patch\n*** Add File: src/a.txt\n+x\n*** Add File: README2.md\n+y\n*** End Patch\n"}`, "", core.VerdictDeny, "not README2.md"},
		{`{"command":"*** Begin Patch\n*** Update File: README.md\n@@\n-# r\n+# s\n*** End Patch\n"}`, "", core.VerdictDeny, "not README.md"},
		{`{"command":"*** Begin Patch\n*** Update File: src/main.go\n*** Move to: main.go\n@@\n-func main() {}\n+func main() { }\n*** End Patch\n"}`, "", core.VerdictDeny, "not main.go"},
		{`{"command":"*** Begin Patch\n*** Delete File: README.md\n*** End Patch\n"}`, "", core.VerdictDeny, "not README.md"},
		{`{"command":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"}`, "/P/src", core.VerdictNone, ""},
		{`{"command":"*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n"}`, "", core.VerdictDeny, "outside the working directory"},
		{`{"command":"*** Begin Patch\n*** Add File: /etc/cron.d/x\n+x\n*** End Patch\n"}`, "", core.VerdictDeny, "outside the working directory"},
		{`{"command":"not a patch"}`, "", core.VerdictDeny, "cannot be read"},
	} {
		a := decide(t, ex, dir, codex{}, "apply_patch", c.input, c.cwd)
		if a.Verdict != c.want || !strings.Contains(a.Reason, c.reason) {
			t.Errorf("%s in %q: %s %q, want %s with %q", c.input, c.cwd, a.Verdict, a.Reason, c.want, c.reason)
		}
	}
	// An update's hunk is an edit_file with its old and new text.
	var s spy
	ex, dir = project(t, s.hook())
	decide(t, ex, dir, codex{}, "apply_patch", `{"command":"*** Begin Patch\n*** Update File: src/main.go\n@@\n package main\n-x\n+y\n*** End Patch\n"}`, "")
	want := `edit_file {"new_string":"package main\ny\n","old_string":"package main\nx\n","path":"src/main.go"}`
	found := false
	for _, c := range s.calls {
		found = found || strings.HasPrefix(c, want)
	}
	if !found {
		t.Errorf("the hunk was decided as %q, want %s", s.calls, want)
	}
}

// A rewrite goes back in the agent's own form: its field names, Claude
// Code's paths absolute, the added workdir dropped; a rewrite of what
// the agent has no field for is refused.
func TestRewriteBack(t *testing.T) {
	rewrite := func(f func(map[string]any)) core.BeforeHook {
		return core.BeforeHook{Name: "rw", Func: func(_ context.Context, c *core.Call) (json.RawMessage, error) {
			var m map[string]any
			json.Unmarshal(c.Args, &m)
			f(m)
			b, _ := json.Marshal(m)
			return b, nil
		}}
	}
	ex, dir := project(t, rewrite(func(m map[string]any) {
		if _, ok := m["content"]; ok {
			m["content"] = "clean"
		}
		if _, ok := m["command"]; ok {
			m["command"] = "ls -la"
		}
	}))
	a := decide(t, ex, dir, claudeCode{}, "Write", `{"file_path":"/P/src/./x.txt","content":"dirty"}`, "")
	var got map[string]any
	json.Unmarshal(a.Input, &got)
	if want := map[string]any{"file_path": filepath.Join(dir, "src/x.txt"), "content": "clean"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Write rewritten to %s, want %v", a.Input, want)
	}
	a = decide(t, ex, dir, claudeCode{}, "Bash", `{"command":"ls","description":"d"}`, "")
	if string(a.Input) != `{"command":"ls -la","description":"d"}` {
		t.Errorf("Bash rewritten to %s, want the command alone changed", a.Input)
	}
	ex, dir = project(t, rewrite(func(m map[string]any) { m["workdir"] = "src" }))
	a = decide(t, ex, dir, claudeCode{}, "Bash", `{"command":"ls"}`, "")
	if a.Verdict != core.VerdictDeny || !strings.Contains(a.Reason, "cannot apply") {
		t.Errorf("a changed workdir: %s %q, want a deny saying Claude Code cannot apply it", a.Verdict, a.Reason)
	}
}

// A shell running outside the project (Codex reports a command's own
// directory as the cwd) is refused, as agentsh's bash refuses it.
func TestShellOutsideProject(t *testing.T) {
	ex, dir := project(t)
	a := decide(t, ex, dir, codex{}, "Bash", `{"command":"ls"}`, "/")
	if a.Verdict != core.VerdictDeny || !strings.Contains(a.Reason, "outside the working directory") {
		t.Errorf("a command in /: %s %q", a.Verdict, a.Reason)
	}
}

// Codex reports a namespace's tool as the namespace and the name run
// together: each maps as the tool of that name does, so a policy on the
// canonical tool holds for it, and none is left unknown.
func TestCodexNamespacedTools(t *testing.T) {
	var s spy
	ex, dir := project(t, s.hook())
	for ns, names := range codexNamespaces {
		for _, name := range names {
			bare, ok := codexTools[name]
			if !ok || bare.Name == "" {
				t.Errorf("codexNamespaces names %s.%s, which codexTools does not map", ns, name)
				continue
			}
			s.calls = nil
			a := decide(t, ex, dir, codex{}, ns+name, `{}`, "")
			if a.Verdict != core.VerdictNone || len(s.calls) == 0 || !strings.HasPrefix(s.calls[0], bare.Name+" ") {
				t.Errorf("%s: %s %q, decided as %q; want no opinion, as %s", ns+name, a.Verdict, a.Reason, s.calls, bare.Name)
			}
		}
	}
	for tool, want := range map[string]string{"clocksleep": "sleep", "clockcurr_time": "curr_time",
		"collaborationspawn_agent": "task", "multi_agent_v1spawn_agent": "task", "multi_agent_v1send_input": "send_input"} {
		if got := codexTools[tool]; got.Name != want {
			t.Errorf("%s maps to %q, want %q", tool, got.Name, want)
		}
	}
	// A policy written for the canonical tool decides the namespaced one.
	noSleep := core.BeforeHook{Name: "no_sleep", Tools: []string{"sleep"},
		Func: func(context.Context, *core.Call) (json.RawMessage, error) { return nil, core.Deny("no sleeping") }}
	ex, dir = project(t, noSleep)
	if a := decide(t, ex, dir, codex{}, "clocksleep", `{"duration_ms":1}`, ""); a.Verdict != core.VerdictDeny {
		t.Errorf("clocksleep under a deny of sleep: %s %q", a.Verdict, a.Reason)
	}
	// Acting tools stay acting: a model's call asks by default.
	if m := codexTools["collaborationsend_message"]; m.ReadOnly || m.Name != "send_message" {
		t.Errorf("collaborationsend_message maps to %+v, want send_message, not read-only", m)
	}
}

// Claude Code's placeholder for deferred loading is known (it offers it);
// it changes nothing.
func TestClaudeDeferredPlaceholder(t *testing.T) {
	m, ok := claudeTools["DeferredToolPlaceholder"]
	if !ok || !m.ReadOnly {
		t.Errorf("DeferredToolPlaceholder maps to %+v (known %v), want a read-only tool of its own", m, ok)
	}
	ex, dir := project(t)
	if a := decide(t, ex, dir, claudeCode{}, "DeferredToolPlaceholder", `{}`, ""); a.Verdict != core.VerdictNone {
		t.Errorf("DeferredToolPlaceholder: %s %q, want no opinion", a.Verdict, a.Reason)
	}
}

// The recorded events of the pinned clients (testdata/hookevents) are
// each protocol's input, and name only tools its map knows; so do the
// tools the clients offer.
func TestRecordedClientEvents(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/hookevents/*")
	seen := 0
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() {
			continue
		}
		agent, _, _ := strings.Cut(filepath.Base(dir), "-gpt")
		proto, err := Lookup(agent)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			ev, err := proto.Parse([]byte(line))
			if err != nil || ev.Kind != KindPreTool {
				t.Errorf("%s line %d: %v, kind %v", dir, i+1, err, ev)
				continue
			}
			c, err := MapCall(proto, ev.Tool, ev.Input, ev.Cwd)
			if err != nil || !c.Known {
				t.Errorf("%s line %d: %s is not a tool the map knows (%v)", dir, i+1, ev.Tool, err)
			}
			// Claude Code gives its hooks absolute paths, even for a
			// relative file_path the model sent (docs/hooks.md).
			var in map[string]any
			json.Unmarshal(ev.Input, &in)
			for _, k := range []string{"file_path", "notebook_path"} {
				if p, ok := in[k].(string); ok && agent == "claude-code" && !strings.HasPrefix(p, "$ROOT/") {
					t.Errorf("%s line %d: %s %q is not absolute", dir, i+1, k, p)
				}
			}
			seen++
		}
		var offered []string
		if b, err = os.ReadFile(filepath.Join(dir, "offered.json")); err != nil || json.Unmarshal(b, &offered) != nil || len(offered) == 0 {
			t.Errorf("%s/offered.json: %v %q", dir, err, b)
		}
		for _, name := range offered {
			if c, err := MapCall(proto, name, json.RawMessage(`{}`), ""); err != nil || !c.Known {
				t.Errorf("%s offers %s, which its map does not know", dir, name)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no recorded events in ../testdata/hookevents")
	}
}
