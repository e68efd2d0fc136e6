package hookadapter

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestIsEntry(t *testing.T) {
	cases := []struct {
		command, agent string
		want           bool
	}{
		{"agentsh hook codex --load p.star", "codex", true},
		{"/usr/local/bin/agentsh hook codex", "codex", true},
		{"'/home/a b/agentsh' hook gemini --load '/x y/p.star'", "gemini", true},
		{`"/opt/agentsh-v2" hook claude-code`, "claude-code", true},
		{"AGENTSH_MAIN=1 XDG_STATE_HOME=/s /tmp/go-build1/b001/agentsh.test hook gemini", "gemini", true},
		{"env FOO=1 agentsh hook codex", "codex", true},
		{"bash -c 'agentsh hook codex --load p.star'", "codex", true},
		{Command("/usr/bin/agentsh", "codex", []string{"--load", "/p q/x.star"}), "codex", true},
		{"agentsh hook codex", "claude-code", false},    // another agent's entry
		{"agentsh hook install codex", "codex", false},  // not a hook
		{"echo agentsh hook codex", "codex", false},     // an argument, not the command
		{"my-policy.sh hook codex", "codex", false},     // not agentsh
		{"$AGENTSH hook codex", "codex", false},         // not static
		{"agentsh 'hook' codex", "codex", true},         // quotes removed
		{"agentsh hook $AGENT", "codex", false},         // not static
		{"agentsh hook codex; rm -rf x", "codex", true}, // runs agentsh hook codex
		{"if [ -x a ]; then agentsh hook codex; fi", "codex", true},
		{"", "codex", false},
		{"agentsh hook 'codex", "codex", false}, // does not parse
	}
	for _, c := range cases {
		if got := IsEntry(c.command, c.agent); got != c.want {
			t.Errorf("IsEntry(%q, %q) = %v, want %v", c.command, c.agent, got, c.want)
		}
	}
}

// TestCommandFailsClosed runs the entry command in sh with stand-ins for
// agentsh: a decision (0, 2) passes through as it is; anything else — a
// missing binary, a signal, exit 1 — becomes exit 2 with the reason on
// stderr.
func TestCommandFailsClosed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's a dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, script string // "" : no binary
		code         int
		stdout       string
		stderr       []string // substrings
		notStderr    string
	}{
		{"answers", "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"deny\"}'\n", 0, "{\"decision\":\"deny\"}\n", nil, "blocked"},
		{"blocks", "#!/bin/sh\necho 'agentsh: no' >&2\nexit 2\n", 2, "", []string{"agentsh: no"}, "exit status"},
		{"missing", "", 2, "", []string{"ended with exit status 127, so the call is blocked", "hook install codex"}, ""},
		{"killed", "#!/bin/sh\nkill -KILL $$\n", 2, "", []string{"ended with exit status 137, so the call is blocked"}, ""},
		{"exit 1", "#!/bin/sh\nexit 1\n", 2, "", []string{"ended with exit status 1, so the call is blocked"}, ""},
		{"not executable", "-", 2, "", []string{"ended with exit status 126"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exe := filepath.Join(dir, "agentsh "+strings.ReplaceAll(c.name, " ", "-"))
			switch c.script {
			case "":
			case "-":
				os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o644)
			default:
				os.WriteFile(exe, []byte(c.script), 0o755)
			}
			cmd := exec.Command("/bin/sh", "-c", Command(exe, "codex", []string{"--load", "/p q/it's.star"}))
			cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse"}`)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code || out.String() != c.stdout {
				t.Fatalf("exit %d stdout %q stderr %q, want exit %d stdout %q", code, out.String(), errb.String(), c.code, c.stdout)
			}
			for _, s := range c.stderr {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr %q, want it to name %q", errb.String(), s)
				}
			}
			if c.notStderr != "" && strings.Contains(errb.String(), c.notStderr) {
				t.Errorf("stderr %q names %q", errb.String(), c.notStderr)
			}
		})
	}
}

// TestCommandArgsReachAgentsh: the words of the entry arrive as they were
// given, whatever they hold.
func TestCommandArgsReachAgentsh(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "agentsh")
	os.WriteFile(exe, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n"), 0o755)
	args := []string{"--load", "/a b/c'd\"$(x)`y`.star", "--events", "/e\\f;g&h|i"}
	out, err := exec.Command("/bin/sh", "-c", Command(exe, "gemini", args)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "[hook][gemini]"
	for _, a := range args {
		want += "[" + a + "]"
	}
	if string(out) != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}

func TestCheckExecutable(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("GOCACHE", cache)
	refused := map[string]string{
		filepath.Join(cache, "93", "9343ad-d", "agentsh"): "the Go build cache",
		"/home/u/work/go-build123/b001/exe/agentsh":       "a Go build directory",
		filepath.Join(os.TempDir(), "x", "agentsh"):       "a temp directory",
		"/tmp/agentsh":         "a temp directory",
		"/var/tmp/bin/agentsh": "a temp directory",
		filepath.Join(os.TempDir(), "go-build1", "b001", "a.test"): "a Go build directory",
	}
	for exe, where := range refused {
		err := CheckExecutable(exe)
		if err == nil || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), "go install ./cmd/agentsh") ||
			!errors.Is(err, ErrTemporaryExe) || !strings.Contains(err.Error(), exe) {
			t.Errorf("CheckExecutable(%q) = %v, want an ErrTemporaryExe naming %s and go install", exe, err, where)
		}
	}
	for _, exe := range []string{"/usr/local/bin/agentsh", "/home/u/go/bin/agentsh", "/opt/tmpfoo/agentsh"} {
		if err := CheckExecutable(exe); err != nil {
			t.Errorf("CheckExecutable(%q) = %v, want nil", exe, err)
		}
	}
	// Through a symbolic link: the directory it names counts.
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if !within(filepath.Join(link, "agentsh"), real) || within("/usr/bin/agentsh", real) {
		t.Errorf("within does not follow the link %s → %s", link, real)
	}
}

// entryOf is the command agentsh's entries run in these tests.
func entryOf(policy string) Entry {
	return Entry{Command: Command("/usr/local/bin/agentsh", "x", []string{"--load", policy}), Timeout: 60 * time.Second}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return m
}

// agentshCommands lists the commands of agentsh's entries by event.
func agentshCommands(t *testing.T, agent, path string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	hooks, _ := readJSON(t, path)["hooks"].(map[string]any)
	for ev, list := range hooks {
		groups, _ := list.([]any)
		for _, g := range groups {
			hs, _ := g.(map[string]any)["hooks"].([]any)
			for _, h := range hs {
				cmd, _ := h.(map[string]any)["command"].(string)
				if IsEntry(cmd, agent) {
					out[ev] = append(out[ev], cmd)
				}
			}
		}
	}
	return out
}

func TestInstallEachAgent(t *testing.T) {
	cases := []struct {
		agent, file string
		events      []string
		timeout     float64 // 60 s in the agent's unit
		group       string  // the PreToolUse/BeforeTool group, as written
	}{
		{"claude-code", ".claude/settings.json", []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"}, 60,
			`{"matcher":"*","hooks":[{"type":"command","command":CMD,"timeout":60}]}`},
		{"gemini", ".gemini/settings.json", []string{"BeforeTool", "AfterTool", "BeforeAgent"}, 60000,
			`{"matcher":".*","hooks":[{"name":"agentsh","type":"command","command":CMD,"timeout":60000}]}`},
		{"codex", ".codex/hooks.json", []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"}, 60,
			`{"matcher":"*","hooks":[{"type":"command","command":CMD,"timeout":60}]}`},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			dir := t.TempDir()
			path, err := SettingsPath(c.agent, ScopeProject, dir)
			if err != nil || path != filepath.Join(dir, c.file) {
				t.Fatalf("SettingsPath = %q, %v; want %s", path, err, filepath.Join(dir, c.file))
			}
			e := Entry{Command: Command("/usr/local/bin/agentsh", c.agent, []string{"--load", "/p.star"}), Timeout: 60 * time.Second}
			ch, err := Install(c.agent, path, e)
			if err != nil || !ch.Wrote || ch.Removed != 0 {
				t.Fatalf("Install = %+v, %v", ch, err)
			}
			if got := Events(c.agent); strings.Join(got, " ") != strings.Join(c.events, " ") {
				t.Errorf("Events = %v, want %v", got, c.events)
			}
			cmds := agentshCommands(t, c.agent, path)
			for _, ev := range c.events {
				if len(cmds[ev]) != 1 || cmds[ev][0] != e.Command {
					t.Errorf("%s: %q, want one entry running %q", ev, cmds[ev], e.Command)
				}
			}
			var got struct{ Hooks map[string][]json.RawMessage }
			b, _ := os.ReadFile(path)
			json.Unmarshal(b, &got)
			cmd, _ := marshal(e.Command)
			if g := compact(t, got.Hooks[c.events[0]][0]); g != strings.Replace(c.group, "CMD", string(cmd), 1) {
				t.Errorf("group\n got %s\nwant %s", g, strings.Replace(c.group, "CMD", string(cmd), 1))
			}
			// The prompt event has no matcher.
			if g := compact(t, got.Hooks[c.events[2]][0]); strings.Contains(g, "matcher") {
				t.Errorf("%s group has a matcher: %s", c.events[2], g)
			}
		})
	}
}

// compact is a JSON object on one line, its keys in their order.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	o, err := parseObject(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	out, _ := marshal(o)
	return string(out)
}

// A settings file with the user's own settings and hooks, in an order
// that is not sorted, and an agentsh entry by hand next to the user's
// hook in one group.
const userSettings = `{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "mine.sh && echo <ok>"},
        {"type": "command", "command": "agentsh hook claude-code --load /old.star", "timeout": 5}
      ]}
    ],
    "SessionStart": [{"hooks": [{"type": "command", "command": "agentsh hook claude-code --load /old.star"}]}]
  },
  "env": {"A": "1"}
}
`

func TestInstallKeepsEverythingElse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(userSettings), 0o600)
	e := entryOf("/p.star")
	e.Command = Command("/usr/local/bin/agentsh", "claude-code", []string{"--load", "/p.star"})
	ch, err := Install("claude-code", path, e)
	if err != nil || !ch.Wrote || ch.Removed != 2 {
		t.Fatalf("Install = %+v, %v; want the 2 hand-made entries replaced", ch, err)
	}
	b, _ := os.ReadFile(path)
	s := string(b)
	// Order kept: model, hooks, env; Stop, PreToolUse, then the new events.
	for _, in := range [][2]string{{`"model"`, `"hooks"`}, {`"hooks"`, `"env"`}, {`"Stop"`, `"PreToolUse"`}, {`"PreToolUse"`, `"PostToolUse"`}} {
		if strings.Index(s, in[0]) > strings.Index(s, in[1]) {
			t.Errorf("%s no longer comes before %s:\n%s", in[0], in[1], s)
		}
	}
	if !strings.Contains(s, `"mine.sh && echo <ok>"`) {
		t.Errorf("the user's hook changed (or was escaped):\n%s", s)
	}
	if strings.Contains(s, "SessionStart") {
		t.Errorf("SessionStart held only agentsh's entry and should be gone:\n%s", s)
	}
	m := readJSON(t, path)
	if m["model"] != "opus" || m["env"].(map[string]any)["A"] != "1" {
		t.Errorf("settings lost: %s", s)
	}
	pre := m["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(pre) != 2 {
		t.Fatalf("PreToolUse: %v, want the user's group and agentsh's", pre)
	}
	user := pre[0].(map[string]any)
	if user["matcher"] != "Bash" || len(user["hooks"].([]any)) != 1 {
		t.Errorf("the user's group %v, want matcher Bash with mine.sh alone", user)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	if got := agentshCommands(t, "claude-code", path); len(got) != 3 {
		t.Errorf("agentsh entries %v, want one per event", got)
	}

	// Again: nothing to do, the file is byte for byte the same.
	if ch, err := Install("claude-code", path, e); err != nil || ch.Wrote || ch.Removed != 3 {
		t.Errorf("second Install = %+v, %v; want no write", ch, err)
	}
	if b2, _ := os.ReadFile(path); string(b2) != s {
		t.Errorf("second Install changed the file")
	}

	// With other policies: one set, running the new ones.
	e2 := e
	e2.Command = Command("/usr/local/bin/agentsh", "claude-code", []string{"--load", "/q.star"})
	if ch, err := Install("claude-code", path, e2); err != nil || !ch.Wrote || ch.Removed != 3 {
		t.Fatalf("Install with other policies = %+v, %v", ch, err)
	}
	for ev, cmds := range agentshCommands(t, "claude-code", path) {
		if len(cmds) != 1 || cmds[0] != e2.Command {
			t.Errorf("%s: %q, want one entry running the new command", ev, cmds)
		}
	}

	// Uninstall: exactly agentsh's entries go.
	if ch, err := Uninstall("claude-code", path); err != nil || !ch.Wrote || ch.Removed != 3 {
		t.Fatalf("Uninstall = %+v, %v", ch, err)
	}
	m = readJSON(t, path)
	hooks := m["hooks"].(map[string]any)
	if len(hooks) != 2 || hooks["Stop"] == nil || len(hooks["PreToolUse"].([]any)) != 1 {
		t.Errorf("after uninstall: %v, want Stop and the user's PreToolUse group", hooks)
	}
	after, _ := os.ReadFile(path)
	if ch, err := Uninstall("claude-code", path); err != nil || ch.Wrote || ch.Removed != 0 {
		t.Errorf("second Uninstall = %+v, %v", ch, err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(after) {
		t.Errorf("an Uninstall with nothing to remove changed the file")
	}
}

func TestUninstallLeavesNoTrace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".codex", "hooks.json")
	if ch, err := Uninstall("codex", path); err != nil || ch.Wrote || ch.Removed != 0 {
		t.Fatalf("Uninstall of no file = %+v, %v", ch, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("Uninstall created %s", filepath.Dir(path))
	}
	e := entryOf("/p.star")
	e.Command = Command("/usr/local/bin/agentsh", "codex", nil)
	if _, err := Install("codex", path, e); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall("codex", path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{}\n" {
		t.Errorf("after install and uninstall: %q, want {}", b)
	}
}

// A settings file linked from elsewhere stays a link; its target changes.
func TestInstallFollowsLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte(`{"theme":"dark"}`), 0o644)
	link := filepath.Join(dir, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	e := entryOf("/p.star")
	e.Command = Command("/usr/local/bin/agentsh", "gemini", nil)
	ch, err := Install("gemini", link, e)
	if err != nil || ch.Path != target {
		t.Fatalf("Install = %+v, %v; want the target changed", ch, err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link", link)
	}
	if m := readJSON(t, target); m["theme"] != "dark" || m["hooks"] == nil {
		t.Errorf("target: %v", m)
	}
}

func TestInstallRefusesMalformed(t *testing.T) {
	cases := []struct{ name, content, err string }{
		{"array", `[1]`, "is not a JSON object"},
		{"not json", `{"a":`, "is not a JSON object"},
		{"comments", "{\n// mine\n\"a\": 1}", "is not a JSON object"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"duplicate key", `{"hooks": {}, "hooks": {}}`, `the key "hooks" appears twice`},
		{"hooks not object", `{"hooks": []}`, `"hooks" is not a JSON object`},
		{"hooks null", `{"hooks": null}`, `"hooks" is not a JSON object`},
		{"event not list", `{"hooks": {"PreToolUse": {"matcher": "*"}}}`, "hooks.PreToolUse is not a list"},
		{"event null", `{"hooks": {"PostToolUse": null}}`, "hooks.PostToolUse is not a list"},
		{"duplicate event", `{"hooks": {"Stop": [], "Stop": []}}`, `the key "Stop" appears twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			os.WriteFile(path, []byte(c.content), 0o640)
			for _, op := range []string{"install", "uninstall"} {
				var err error
				if op == "install" {
					_, err = Install("claude-code", path, entryOf("/p.star"))
				} else {
					_, err = Uninstall("claude-code", path)
				}
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s: %v, want an error naming %s and %q", op, err, path, c.err)
				}
				if b, _ := os.ReadFile(path); string(b) != c.content {
					t.Errorf("%s changed the file: %q", op, b)
				}
			}
		})
	}
	// Groups in shapes not agentsh's stay as they are.
	path := filepath.Join(t.TempDir(), "settings.json")
	odd := `{"hooks": {"Stop": "x", "Notification": [1, {"hooks": "y"}, {"hooks": [2, {"command": 3}]}]}}`
	os.WriteFile(path, []byte(odd), 0o644)
	if _, err := Install("claude-code", path, entryOf("/p.star")); err != nil {
		t.Fatal(err)
	}
	var got struct{ Hooks map[string]json.RawMessage }
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &got)
	if compactRaw(got.Hooks["Stop"]) != `"x"` || compactRaw(got.Hooks["Notification"]) != `[1,{"hooks":"y"},{"hooks":[2,{"command":3}]}]` {
		t.Errorf("odd groups changed: %s", b)
	}
}

func compactRaw(raw json.RawMessage) string {
	var o any
	json.Unmarshal(raw, &o)
	b, _ := marshal(o)
	return string(b)
}

func TestInstallRefusesOddFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, path := range []string{fifo, dir} {
		if _, err := Install("codex", path, entryOf("/p.star")); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("Install(%s) = %v, want a refusal", path, err)
		}
	}
	if _, err := Install("cursor", filepath.Join(dir, "s.json"), entryOf("/p.star")); err == nil || !strings.Contains(err.Error(), `unknown agent "cursor"`) {
		t.Errorf("unknown agent: %v", err)
	}
}

func TestSettingsPathUser(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	for agent, want := range map[string]string{
		"claude-code": filepath.Join(home, ".claude", "settings.json"),
		"gemini":      filepath.Join(home, ".gemini", "settings.json"),
		"codex":       filepath.Join(home, ".codex", "hooks.json"),
	} {
		if got, err := SettingsPath(agent, ScopeUser, "/ignored"); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %s", agent, got, err, want)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "/cfg/claude")
	t.Setenv("CODEX_HOME", "/cfg/codex")
	if got, _ := SettingsPath("claude-code", ScopeUser, ""); got != "/cfg/claude/settings.json" {
		t.Errorf("CLAUDE_CONFIG_DIR: %s", got)
	}
	if got, _ := SettingsPath("codex", ScopeUser, ""); got != "/cfg/codex/hooks.json" {
		t.Errorf("CODEX_HOME: %s", got)
	}
}

func TestElsewhere(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	e := Entry{Command: Command("/usr/local/bin/agentsh", "codex", nil), Timeout: time.Minute}
	user, _ := SettingsPath("codex", ScopeUser, project)
	proj, _ := SettingsPath("codex", ScopeProject, project)
	if _, err := Install("codex", user, e); err != nil {
		t.Fatal(err)
	}
	if got := Elsewhere("codex", project, user); len(got) != 0 {
		t.Errorf("Elsewhere = %v, want none: the file installed is left out", got)
	}
	if got := Elsewhere("codex", project, proj); len(got) != 1 || got[0] != user {
		t.Errorf("Elsewhere = %v, want %s", got, user)
	}
	// Codex's config.toml: a [hooks] table running agentsh counts; one
	// running something else does not.
	toml := filepath.Join(project, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(toml), 0o755)
	os.WriteFile(toml, []byte("[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"mine.sh hook codex\"\n"), 0o644)
	if got := Elsewhere("codex", project, user); len(got) != 0 {
		t.Errorf("Elsewhere = %v, want none", got)
	}
	os.WriteFile(toml, []byte("[[hooks.PreToolUse.hooks]]\ncommand = \"agentsh hook codex --load \\\"/p q.star\\\"\"\n"), 0o644)
	if got := Elsewhere("codex", project, user); len(got) != 1 || got[0] != toml {
		t.Errorf("Elsewhere = %v, want %s", got, toml)
	}
	// Claude Code's settings.local.json.
	local := filepath.Join(project, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(local), 0o755)
	os.WriteFile(local, []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"agentsh hook claude-code"}]}]}}`), 0o644)
	if got := Elsewhere("claude-code", project, filepath.Join(project, ".claude", "settings.json")); len(got) != 1 || got[0] != local {
		t.Errorf("Elsewhere = %v, want %s", got, local)
	}
}

// Entry.NoAfter leaves out exactly the event after a tool call, for
// every agent; installing again with it takes out the old after entry.
func TestInstallNoAfter(t *testing.T) {
	after := map[string]string{"claude-code": "PostToolUse", "gemini": "AfterTool", "codex": "PostToolUse"}
	for agent, ev := range after {
		t.Run(agent, func(t *testing.T) {
			path, _ := SettingsPath(agent, ScopeProject, t.TempDir())
			cmd := Command("/bin/agentsh", agent, nil)
			if _, err := Install(agent, path, Entry{Command: cmd, Timeout: time.Minute}); err != nil {
				t.Fatal(err)
			}
			e := Entry{Command: cmd + " --no-after-hooks", Timeout: time.Minute, NoAfter: true}
			c, err := Install(agent, path, e)
			if err != nil || c.Removed != 3 {
				t.Fatalf("Install: %+v, %v; want the 3 earlier entries replaced", c, err)
			}
			b, _ := os.ReadFile(path)
			if strings.Contains(string(b), `"`+ev+`"`) {
				t.Errorf("%s still holds %s:\n%s", path, ev, b)
			}
			if got := e.Events(agent); len(got) != 2 || slices.Contains(got, ev) {
				t.Errorf("Events %v, want the two events besides %s", got, ev)
			}
			if len(Events(agent)) != 3 {
				t.Errorf("Events(%s) %v, want all three", agent, Events(agent))
			}
		})
	}
}
