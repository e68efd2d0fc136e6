package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The real clients with agentsh installed as their hook the way a person
// installs it, and a policy written by agentsh's tool names: every
// client's shell, file, patch, notebook and monitor tools are decided as
// the canonical calls they are, and what the policy refuses is not on
// disk. Each call touches only marker files in the temp project; a write
// outside aims beside the project, in the temp root.

// srcOnlyPolicy is the policy a newcomer writes first, by tool name: the
// clients' paths arrive relative to the project, so a prefix says where
// a write lands.
const srcOnlyPolicy = `
def src_only(call):
    path = call.args.get("path", "")
    if not path.startswith("src/"):
        return deny("writes only under src/, not " + path)

before(src_only, tools = ["write_file", "edit_file"])

def no_denied(call):
    command = call.args.get("command", "")
    if "denied" in command:
        return deny("no denied markers")
    if "asked" in command:
        return ask("asked markers need a person")

before(no_denied, tools = ["bash"])
`

// onDisk is what one call must leave, or not leave, in the temp root.
type onDisk struct {
	path string // relative to the temp root: project/... or beside it
	has  string // a text the file holds; "" for a file that must not exist
	not  string // a text the file must not hold
}

// clientCase is one client's calls and what they must leave on disk.
type clientCase struct {
	client string // as runClient takes it
	calls  func(root, project string) []clientCall
	disk   []onDisk
	setup  func(t *testing.T, root string) // before agentsh is installed
	// said are texts the client's output must hold (agentsh's reasons
	// where the disk cannot tell who refused, what a tool printed).
	said []string
	// told are texts the client must have sent the model: what its tools
	// printed, where its output does not show it.
	told []string
}

// Files the project starts with.
const (
	mainGo   = "package main\n\nfunc main() {}\n"
	readme   = "# demo\n"
	notebook = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`
)

func addFile(p string) string {
	return "*** Begin Patch\n*** Add File: " + p + "\n+added\n*** End Patch\n"
}

func heredoc(patch string) string { return "apply_patch <<'EOF'\n" + patch + "EOF\n" }

const (
	editMain   = "*** Begin Patch\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { println() }\n*** End Patch\n"
	editReadme = "*** Begin Patch\n*** Update File: README.md\n@@\n-# demo\n+# patched\n*** End Patch\n"
	delReadme  = "*** Begin Patch\n*** Delete File: README.md\n*** End Patch\n"
)

var clientCases = []clientCase{
	{
		client: "claude-code",
		calls: func(r, p string) []clientCall {
			bash := func(name, cmd string) clientCall {
				return clientCall{Name: name, Args: map[string]any{"command": cmd, "description": "marker", "timeout_ms": 5000}}
			}
			write := func(path string) clientCall {
				return clientCall{Name: "Write", Args: map[string]any{"file_path": path, "content": "written\n"}}
			}
			read := func(path string) clientCall { return clientCall{Name: "Read", Args: map[string]any{"file_path": path}} }
			edit := func(path string) clientCall {
				return clientCall{Name: "Edit", Args: map[string]any{"file_path": path, "old_string": "demo", "new_string": "edited"}}
			}
			nb := func(path string) clientCall {
				return clientCall{Name: "NotebookEdit", Args: map[string]any{"notebook_path": path, "cell_id": "c1", "new_source": "print(2)"}}
			}
			return []clientCall{
				// Monitor and NotebookEdit are deferred: loaded first.
				{Name: "ToolSearch", Args: map[string]any{"query": "select:NotebookEdit,Monitor"}},
				bash("Monitor", "printf 'ran-%s\\n' monitor"),
				bash("Monitor", "echo no > denied-monitor.marker"),
				bash("Bash", "printf 'ran-%s\\n' bash"),
				bash("Bash", "echo no > sandboxed-bash.marker"),
				bash("Bash", "echo no > denied-bash.marker"),
				bash("Bash", "echo no > asked-bash.marker"), // headless, Claude Code refuses an ask
				bash("Bash", "echo no > ../bash-outside.txt"),
				write(p + "/src/new.txt"),
				write("src/relative.txt"), // Claude Code makes it absolute
				write(p + "/top.txt"),
				write(p + "/../outside.txt"),
				write(r + "/abs-outside.txt"),
				read(p + "/src/demo.txt"), edit(p + "/src/demo.txt"),
				read(p + "/README.md"), edit(p + "/README.md"),
				read(p + "/notebook.ipynb"), nb(p + "/notebook.ipynb"),
				read(p + "/src/nb.ipynb"), nb(p + "/src/nb.ipynb"),
				// Claude Code refuses an edit of a file not read first,
				// before any hook.
				edit(p + "/src/unread.txt"), nb(p + "/src/unread.ipynb"),
			}
		},
		disk: []onDisk{
			{path: "project/denied-monitor.marker"},
			{path: "project/sandboxed-bash.marker"},
			{path: "project/denied-bash.marker"},
			{path: "project/asked-bash.marker"},
			{path: "bash-outside.txt"},
			{path: "project/src/new.txt", has: "written"},
			{path: "project/src/relative.txt", has: "written"},
			{path: "project/top.txt"},
			{path: "outside.txt"},
			{path: "abs-outside.txt"},
			{path: "project/src/demo.txt", has: "edited"},
			{path: "project/README.md", has: "demo", not: "edited"},
			{path: "project/notebook.ipynb", has: "print(1)", not: "print(2)"},
			{path: "project/src/nb.ipynb", has: "print(2)"},
			{path: "project/src/unread.txt", has: "demo", not: "edited"},
			{path: "project/src/unread.ipynb", has: "print(1)", not: "print(2)"},
		},
		said: []string{"File has not been read yet", "Monitor started", "ran-bash",
			"a policy allows this command only in the workspace sandbox"},
	},
	{
		client: "gemini",
		setup: func(t *testing.T, root string) {
			// A tool of Gemini CLI's own that no map knows: one found by
			// its tool discovery command, run by its call command.
			discover := writeExecutable(t, filepath.Join(root, "bin", "discover"), "#!/bin/sh\n"+
				`echo '[{"name":"touch_marker","description":"touches a marker","parametersJsonSchema":{"type":"object","properties":{}}}]'`+"\n")
			call := writeExecutable(t, filepath.Join(root, "bin", "call"), "#!/bin/sh\ncat >/dev/null\necho ok > discovered.marker\n")
			editJSON(t, filepath.Join(root, "home", ".gemini", "settings.json"), func(m map[string]any) {
				m["tools"] = map[string]any{"discoveryCommand": discover, "callCommand": call}
			})
		},
		calls: func(r, p string) []clientCall {
			shell := func(cmd string, dir string) clientCall {
				args := map[string]any{"command": cmd, "description": "marker"}
				if dir != "" {
					args["dir_path"] = dir
				}
				return clientCall{Name: "run_shell_command", Args: args}
			}
			write := func(path string) clientCall {
				return clientCall{Name: "write_file", Args: map[string]any{"file_path": path, "content": "written\n"}}
			}
			replace := func(path string) clientCall {
				return clientCall{Name: "replace", Args: map[string]any{"file_path": path, "old_string": "demo", "new_string": "edited", "instruction": "edit"}}
			}
			return []clientCall{
				shell("printf 'ran-%s\\n' shell", ""),
				shell("echo no > sandboxed-shell.marker", ""),
				shell("echo no > denied-shell.marker", ""),
				shell("echo no > asked-shell.marker", ""), // no ask in Gemini CLI: a deny
				shell("printf 'ran-%s\\n' \"${PWD##*/}\"", "src"),
				shell("echo no > ../shell-outside.txt", ""),
				write("src/relative.txt"),
				write(p + "/src/absolute.txt"),
				write("top.txt"),
				write(p + "/top-abs.txt"),
				write("../outside.txt"),
				write(r + "/abs-outside.txt"),
				replace("src/demo.txt"),
				replace("README.md"),
				{Name: "discovered_tool_touch_marker", Args: map[string]any{}},
			}
		},
		disk: []onDisk{
			{path: "project/sandboxed-shell.marker"},
			{path: "project/denied-shell.marker"},
			{path: "project/asked-shell.marker"},
			{path: "shell-outside.txt"},
			{path: "project/src/relative.txt", has: "written"},
			{path: "project/src/absolute.txt", has: "written"},
			{path: "project/top.txt"},
			{path: "project/top-abs.txt"},
			{path: "outside.txt"},
			{path: "abs-outside.txt"},
			{path: "project/src/demo.txt", has: "edited"},
			{path: "project/README.md", has: "demo", not: "edited"},
			{path: "project/discovered.marker"},
		},
		// Gemini CLI refuses a path outside the project itself, before any
		// hook.
		said: []string{"gemini's tool discovered_tool_touch_marker is not one agentsh maps", "Path not in workspace",
			"ran-shell", "ran-src", "a policy allows this command only in the workspace sandbox"},
	},
	{
		// An unknown model: exec_command, hooked as Bash, and apply_patch
		// as a here-document sent to it, which Codex applies itself.
		client: "codex",
		calls: func(r, p string) []clientCall {
			exec := func(cmd string) clientCall { return clientCall{Name: "exec_command", Args: map[string]any{"cmd": cmd}} }
			return []clientCall{
				exec("printf 'ran-%s\\n' exec"),
				exec("echo no > sandboxed-exec.marker"),
				exec("echo no > denied-exec.marker"),
				exec("echo no > asked-exec.marker"), // no ask in Codex: a deny
				{Name: "exec_command", Args: map[string]any{"cmd": "printf 'ran-%s\\n' \"${PWD##*/}\"", "workdir": p + "/src"}},
				exec("echo no > ../exec-outside.txt"),
				exec(heredoc(addFile("src/heredoc.txt"))),
				exec("cd src && " + heredoc(addFile("cd.txt"))),
				exec(heredoc(addFile("top-heredoc.txt"))),
				exec(heredoc(addFile("../heredoc-outside.txt"))),
				exec(heredoc(addFile(r + "/heredoc-abs-outside.txt"))),
				exec(heredoc(editReadme)),
				// Codex does not hook write_stdin: what goes into a running
				// session is not decided (as measured).
				{Name: "exec_command", Args: map[string]any{"cmd": "tr a-z A-Z", "tty": true, "yield_time_ms": 500}},
				{Name: "write_stdin", Args: map[string]any{"session_id": "$SESSION", "chars": "typed\n", "yield_time_ms": 500}},
			}
		},
		disk: []onDisk{
			{path: "project/sandboxed-exec.marker"},
			{path: "project/denied-exec.marker"},
			{path: "project/asked-exec.marker"},
			{path: "exec-outside.txt"},
			{path: "project/src/heredoc.txt", has: "added"},
			{path: "project/src/cd.txt", has: "added"},
			{path: "project/top-heredoc.txt"},
			{path: "heredoc-outside.txt"},
			{path: "heredoc-abs-outside.txt"},
			{path: "project/README.md", has: "demo", not: "patched"},
		},
		said: []string{"ran-exec", "ran-src", "a policy allows this command only in the workspace sandbox"},
		told: []string{"TYPED"},
	},
	{
		// Code mode: the apply_patch tool, called directly and from the
		// exec tool's JavaScript, whose nested calls are hooked one by one.
		client: "codex:gpt-6.2-sol",
		calls: func(r, p string) []clientCall {
			patch := func(text string) clientCall { return clientCall{Name: "apply_patch", Freeform: text} }
			js := func(code string) clientCall { return clientCall{Name: "exec", Freeform: code + "\ntext('ok');"} }
			return []clientCall{
				patch(addFile("src/patched.txt")),
				patch(addFile("top-patched.txt")),
				patch(addFile("../patch-outside.txt")),
				patch(addFile(r + "/patch-abs-outside.txt")),
				patch(editMain),
				patch(editReadme),
				patch(delReadme),
				js("text((await tools.exec_command({cmd: \"printf 'ran-%s\\\\n' js\"})).output);"),
				js("await tools.exec_command({cmd: 'echo no > denied-js.marker'});"),
				js("await tools.apply_patch(" + jsString(addFile("src/js.txt")) + ");"),
				js("await tools.apply_patch(" + jsString(addFile("../js-outside.txt")) + ");"),
			}
		},
		disk: []onDisk{
			{path: "project/src/patched.txt", has: "added"},
			{path: "project/top-patched.txt"},
			{path: "patch-outside.txt"},
			{path: "patch-abs-outside.txt"},
			{path: "project/src/main.go", has: "println()"},
			{path: "project/README.md", has: "demo", not: "patched"},
			{path: "project/denied-js.marker"},
			{path: "project/src/js.txt", has: "added"},
			{path: "js-outside.txt"},
		},
		told: []string{"ran-js"},
	},
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\n`).Replace(s) + "'"
}

// TestClientCallsOnDisk runs each pinned client headless against a
// scripted model with agentsh hook installed as a person installs it
// (hook install --exe, with srcOnlyPolicy and deny_patterns.star) and
// checks on disk what each call left: a shell call ran or not as the
// policy says (a known-safe one runs, and what it prints reaches the
// model; one deny_patterns.star allows only in agentsh's sandbox is
// refused, since the client runs it outside), a write in the client's
// own path form landed only under src/, a write outside the project never
// landed, and the notebook, monitor and patch tools were decided as the
// writes and shells they are.
// Claude Code is installed in the project; Gemini CLI and Codex for the
// user, since they run a project's entries only in a trusted folder
// (TestHookTrustRealClients).
func TestClientCallsOnDisk(t *testing.T) {
	t.Parallel() // the real clients' runs wait on them and on the model
	denyPatterns, err := filepath.Abs("../../scripts/policies/deny_patterns.star")
	if err != nil {
		t.Fatal(err)
	}
	everything, missing := findEverything()
	if missing != "" {
		t.Logf("the clients run without an MCP server: %s", missing)
	}
	for _, c := range clientCases {
		t.Run(c.client, func(t *testing.T) {
			t.Parallel()
			var root string
			setup := func(project string) {
				root = filepath.Dir(project)
				for name, content := range map[string]string{
					"src/main.go": mainGo, "src/demo.txt": readme, "src/unread.txt": readme, "README.md": readme,
					"notebook.ipynb": notebook, "src/nb.ipynb": notebook, "src/unread.ipynb": notebook,
				} {
					p := filepath.Join(project, name)
					os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				os.MkdirAll(filepath.Join(root, "bin"), 0o755)
				if c.setup != nil {
					c.setup(t, root)
				}
				if everything != "" {
					addEverything(t, c.client, root, everything)
				}
				installAgentsh(t, c.client, project, writePolicy(t, root, "src_only.star", srcOnlyPolicy), denyPatterns)
			}
			said := slices.Clone(c.said)
			calls := func(project string) []clientCall {
				calls := c.calls(filepath.Dir(project), project)
				if everything != "" {
					// An MCP server's tool keeps its name and gets the
					// policy's verdict (none here): it runs.
					calls = append(calls, mcpEcho(c.client, "mcp-echo-ok")...)
					said = append(said, "Echo: mcp-echo-ok")
				}
				return calls
			}
			run := runClient(t, c.client, calls, nil, setup)
			for _, d := range c.disk {
				b, err := os.ReadFile(filepath.Join(root, d.path))
				switch {
				case d.has == "" && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("%s is there (%q, %v): the call that wrote it should have been refused", d.path, b, err)
				case d.has == "":
				case err != nil:
					t.Errorf("%s: %v: the call that writes it should have run", d.path, err)
				case !strings.Contains(string(b), d.has):
					t.Errorf("%s holds %q, want it to hold %q", d.path, b, d.has)
				case d.not != "" && strings.Contains(string(b), d.not):
					t.Errorf("%s holds %q: the call that wrote %q should have been refused", d.path, b, d.not)
				}
			}
			// No other file lands beside the project: the directories
			// there are the clients' own (TMPDIR is the temp root).
			entries, _ := os.ReadDir(root)
			for _, e := range entries {
				if !e.IsDir() && e.Name() != "src_only.star" {
					t.Errorf("%s landed beside the project", e.Name())
				}
			}
			for _, s := range said {
				if !strings.Contains(run.output, s) {
					t.Errorf("the client did not say %q:\n%s", s, run.output)
				}
			}
			run.model.mu.Lock()
			sent := string(bytes.Join(run.model.bodies, nil))
			run.model.mu.Unlock()
			for _, s := range c.told {
				if !strings.Contains(sent, s) {
					t.Errorf("the client did not tell the model %q", s)
				}
			}
			if t.Failed() {
				t.Logf("the client said:\n%s", run.output)
			}
		})
	}
}

// installAgentsh runs agentsh hook install for client with the policies
// loaded, as a person does, the entries running this test binary as
// agentsh (root/bin/agentsh).
func installAgentsh(t *testing.T, client, project string, policies ...string) {
	t.Helper()
	root := filepath.Dir(project)
	exe := filepath.Join(root, "bin", "agentsh")
	writeAgentshShim(t, exe, root)
	args := []string{"--exe", exe, "--allow-temp-exe"}
	for _, p := range policies {
		args = append(args, "--load", p)
	}
	switch client, _, _ := strings.Cut(client, ":"); client {
	case "claude-code":
		installHook(t, nil, append([]string{"claude-code", "--project", "--workdir", project}, args...)...)
	case "gemini":
		installHook(t, []string{"HOME=" + filepath.Join(root, "home")}, append([]string{"gemini", "--user"}, args...)...)
	case "codex":
		installHook(t, []string{"CODEX_HOME=" + filepath.Join(root, "home")}, append([]string{"codex", "--user"}, args...)...)
	}
}
