package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/hookadapter"
)

// runAgentsh runs agentsh in this process and returns the exit code and
// what it printed.
func runAgentsh(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli(args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// The agentsh this test runs is in the Go build directory: install
// refuses it, and says what to do.
func TestHookInstallRefusesTemporaryExe(t *testing.T) {
	project := t.TempDir()
	for _, agent := range []string{"claude-code", "gemini", "codex"} {
		code, out, errs := runAgentsh(t, "", "hook", "install", agent, "--workdir", project)
		if code != 1 || out != "" || !strings.Contains(errs, "go install ./cmd/agentsh") || !strings.Contains(errs, "--allow-temp-exe") {
			t.Errorf("%s: exit %d stdout %q stderr %q, want a refusal that says to go install", agent, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir(project); len(entries) != 0 {
		t.Errorf("a refused install wrote %v", entries)
	}
}

func TestHookInstallRecordsFlags(t *testing.T) {
	dir := t.TempDir()
	exe := writeExecutable(t, filepath.Join(dir, "agentsh"), "#!/bin/sh\n")
	policy := writePolicy(t, dir, "p.star", "")
	t.Chdir(dir)
	code, out, errs := runAgentsh(t, "", "hook", "install", "codex", "--exe", "agentsh", "--allow-temp-exe",
		"--load", "p.star", "--permissions", "deny-unlisted", "--timeout", "10s", "--max-steps", "1000", "--events", "events.jsonl", "--audit", "audit.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	want := hookadapter.Command(exe, "codex", []string{"--load", policy, "--permissions", "deny-unlisted", "--max-steps", "1000",
		"--timeout", "10s", "--events", filepath.Join(dir, "events.jsonl"), "--audit", filepath.Join(dir, "audit.jsonl")})
	var got struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".codex", "hooks.json"))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit"} {
		h := got.Hooks[ev][0].Hooks[0]
		// The agent waits 30 s longer than agentsh's own deadline.
		if h.Command != want || h.Timeout != 40 {
			t.Errorf("%s: %+v\nwant command %s, timeout 40", ev, h, want)
		}
	}
	for _, s := range []string{"added hook entries for PreToolUse, PostToolUse, UserPromptSubmit to " + filepath.Join(dir, ".codex", "hooks.json"),
		"Hooks need review"} {
		if !strings.Contains(out, s) {
			t.Errorf("stdout %q, want %q", out, s)
		}
	}
}

func TestHookInstallUsage(t *testing.T) {
	dir := t.TempDir()
	exe := writeExecutable(t, filepath.Join(dir, "agentsh"), "#!/bin/sh\n")
	notExe := writePolicy(t, dir, "plain", "")
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"hook", "install"}, 2, "hook install needs one agent"},
		{[]string{"hook", "uninstall", "codex", "gemini"}, 2, "hook uninstall needs one agent"},
		{[]string{"hook", "install", "cursor", "--allow-temp-exe"}, 2, `unknown agent "cursor"`},
		{[]string{"hook", "install", "codex", "--exe", filepath.Join(dir, "absent")}, 1, "--exe " + filepath.Join(dir, "absent")},
		{[]string{"hook", "install", "codex", "--exe", notExe, "--allow-temp-exe"}, 1, "is not executable"},
		{[]string{"hook", "install", "codex", "--exe", dir, "--allow-temp-exe"}, 1, "is not a regular file"},
		{[]string{"hook", "install", "codex", "--exe", exe, "--allow-temp-exe", "--load", filepath.Join(dir, "none.star")}, 1, "--load"},
		{[]string{"hook", "uninstall", "codex", "--exe", exe}, 2, "--exe names the agentsh"},
		{[]string{"hook", "codex", "--allow-temp-exe"}, 2, "--allow-temp-exe applies to agentsh hook install"},
		{[]string{"hook", "codex", "--user"}, 2, "--user chooses the settings file"},
		{[]string{"--events", "f", "run", "x.star"}, 2, "--events FILE applies to agentsh mcp serve and agentsh hook"},
	}
	for _, c := range cases {
		code, out, errs := runAgentsh(t, "", append(c.args, "--workdir", dir)...)
		if code != c.code || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit %d and %q", c.args, code, out, errs, c.code, c.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex")); !os.IsNotExist(err) {
		t.Errorf("a failed install wrote .codex")
	}
}

// install and uninstall with --user write under HOME (and CODEX_HOME).
// Without policies there is no after hook, so two entries: before a call
// and at a prompt.
func TestHookUninstallUser(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex-home"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	exe := writeExecutable(t, filepath.Join(home, "agentsh"), "#!/bin/sh\n")
	for agent, path := range map[string]string{
		"claude-code": filepath.Join(home, ".claude", "settings.json"),
		"gemini":      filepath.Join(home, ".gemini", "settings.json"),
		"codex":       filepath.Join(home, "codex-home", "hooks.json"),
	} {
		if code, out, errs := runAgentsh(t, "", "hook", "install", agent, "--user", "--exe", exe, "--allow-temp-exe"); code != 0 || !strings.Contains(out, path) {
			t.Fatalf("%s install: exit %d: %s%s", agent, code, out, errs)
		}
		if code, out, errs := runAgentsh(t, "", "hook", "uninstall", agent, "--user"); code != 0 || out != "agentsh: removed agentsh's 2 hook entries from "+path+"\n" {
			t.Errorf("%s uninstall: exit %d: %q %s", agent, code, out, errs)
		}
		if code, out, _ := runAgentsh(t, "", "hook", "uninstall", agent, "--user"); code != 0 || out != "agentsh: "+path+" has no agentsh hook entries; nothing changed\n" {
			t.Errorf("%s second uninstall: exit %d: %q", agent, code, out)
		}
		if b, _ := os.ReadFile(path); string(b) != "{}\n" {
			t.Errorf("%s: %q left", agent, b)
		}
	}
}

// readEvents reads a JSONL events file.
func readEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: a line that is not JSON (%v): %.200s", path, err, sc.Text())
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// agentsh hook --events FILE appends the decision, the observation and
// what the policies printed.
func TestHookEventsFile(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.star", `
def decide(call):
    print("deciding", call.name)
    if "denied" in call.args.get("command", ""):
        return deny("no denied markers")
before(decide)

def audit(call, result):
    print("ran", call.name, result.output)
after(audit)
`)
	events := filepath.Join(dir, "audit.jsonl")
	hook := func(in string) (int, string, string) {
		return runHook(t, t.TempDir(), in, "claude-code", "--load", policy, "--events", events)
	}
	pre := `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch denied.marker"}}`
	if code, out, errs := hook(pre); code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || errs != "" {
		t.Fatalf("pre-tool: exit %d stdout %q stderr %q; prints belong in the events file", code, out, errs)
	}
	post := `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"a.txt"}`
	if code, out, errs := hook(post); code != 0 || out != "" || errs != "" {
		t.Fatalf("post-tool: exit %d stdout %q stderr %q", code, out, errs)
	}
	if code, _, errs := hook(`{"hook_event_name":`); code != 2 || !strings.Contains(errs, "malformed") {
		t.Fatalf("malformed: exit %d stderr %q", code, errs)
	}
	evs := readEvents(t, events)
	if len(evs) != 5 {
		t.Fatalf("%d events, want 5: %v", len(evs), evs)
	}
	if evs[0]["event"] != "print" || evs[0]["text"] != "deciding bash" {
		t.Errorf("first: %v, want the pre-tool print", evs[0])
	}
	h := evs[1]
	ruling, _ := h["ruling"].(map[string]any)
	if h["event"] != "hook" || h["agent"] != "claude-code" || h["hook_event_name"] != "PreToolUse" || h["session_id"] != "s1" ||
		h["cwd"] == "" || h["tool_name"] != "Bash" || h["verdict"] != "deny" || h["exit_code"] != 0.0 ||
		!strings.HasPrefix(h["reason"].(string), "no denied markers (agentsh policy: decide at ") ||
		ruling["tool"] != "bash" || ruling["outcome"] != "deny" || ruling["hook"] != "decide" {
		t.Errorf("pre-tool hook event: %v", h)
	}
	if ds, _ := ruling["decisions"].([]any); len(ds) == 0 {
		t.Errorf("the ruling has no decision records: %v", ruling)
	}
	if evs[2]["text"] != "ran bash a.txt" {
		t.Errorf("third: %v, want the after hook's print", evs[2])
	}
	h = evs[3]
	result, _ := h["result"].(map[string]any)
	if h["hook_event_name"] != "PostToolUse" || h["verdict"] != "none" || result["tool"] != "bash" || result["output"] != "a.txt" || result["ok"] != true {
		t.Errorf("post-tool hook event: %v", h)
	}
	if ds, _ := result["decisions"].([]any); len(ds) != 1 {
		t.Errorf("the result's decisions %v, want the after hook's", result["decisions"])
	}
	h = evs[4]
	if h["event"] != "hook" || h["exit_code"] != 2.0 || h["hook_event_name"] != nil || !strings.Contains(h["stderr"].(string), "malformed claude-code hook input") {
		t.Errorf("malformed input's hook event: %v", h)
	}
	if st, _ := os.Stat(events); st.Mode().Perm() != 0o600 {
		t.Errorf("events file mode %v, want 0600", st.Mode().Perm())
	}

	// A file agentsh cannot append to blocks the call: no record, no call.
	code, out, errs := runHook(t, t.TempDir(), pre, "claude-code", "--load", policy, "--events", filepath.Join(dir, "no", "such", "dir"))
	if code != 2 || out != "" || !strings.Contains(errs, "--events") {
		t.Errorf("unwritable events file: exit %d stdout %q stderr %q, want exit 2", code, out, errs)
	}
}

// Hook processes run at once and append to one file: every
// line stays whole, and each process's prints come right before its hook
// event.
func TestHookEventsConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	// Long lines, many of them: a torn or interleaved write would show.
	policy := writePolicy(t, dir, "p.star", `
def decide(call):
    for i in range(100):
        print(call.args["command"], i, "x" * 16000)
    return deny("no")
before(decide)
`)
	events := filepath.Join(dir, "audit.jsonl")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "hook", "codex", "--load", policy, "--events", events)
			cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0", "XDG_STATE_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"call-%02d"}}`, i))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("process %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	evs := readEvents(t, events)
	if len(evs) != n*101 {
		t.Fatalf("%d events, want %d", len(evs), n*101)
	}
	seen := map[string]bool{}
	for b := 0; b < n; b++ {
		block := evs[b*101 : (b+1)*101]
		h := block[100]
		input, _ := h["tool_input"].(map[string]any)
		cmd, _ := input["command"].(string)
		if h["event"] != "hook" || seen[cmd] {
			t.Fatalf("block %d ends with %v", b, h["event"])
		}
		seen[cmd] = true
		for i, p := range block[:100] {
			if want := fmt.Sprintf("%s %d %s", cmd, i, strings.Repeat("x", 16000)); p["event"] != "print" || p["text"] != want {
				t.Fatalf("block %d (%s), line %d: %.80v", b, cmd, i, p)
			}
		}
	}
}
