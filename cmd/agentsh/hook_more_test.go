package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// PostToolUse feeds the after hooks with the agent's response; a failing
// after hook is reported (exit 2); UserPromptSubmit runs user_prompt.
func TestHookClaudeCodePostToolAndPrompt(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.star", `
def audit(call, result):
    if result.output == "explode":
        fail("audit broke")
    state.set("last", call.name + " " + call.args["path"] + " " + result.output)

after(audit)

def guard(d):
    if "password" in d["prompt"]:
        fail("no passwords in prompts")
    if "shout" in d["prompt"]:
        return d["prompt"].upper()

on("user_prompt", guard)
`)
	state := t.TempDir()
	post := `{"session_id":"p1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a.txt"},"tool_response":"hello"}`
	code, out, errs := runHook(t, state, post, "claude-code", "--load", policy)
	if code != 0 || out != "" {
		t.Fatalf("post: exit %d stdout %q stderr %q", code, out, errs)
	}
	// The after hook's state persisted under the session: a later
	// process of the same session reads it.
	reader := writePolicy(t, dir, "r.star", `
before(lambda call: deny("last: " + state.get("last", "none")))
`)
	pre := `{"session_id":"p1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	_, out, _ = runHook(t, state, pre, "claude-code", "--load", reader)
	if !strings.Contains(out, "last: read_file a.txt hello") { // the canonical path
		t.Fatalf("stdout %q, want the state the after hook stored", out)
	}
	post = strings.Replace(post, `"hello"`, `"explode"`, 1)
	code, _, errs = runHook(t, state, post, "claude-code", "--load", policy)
	if code != 2 || !strings.Contains(errs, "audit broke") {
		t.Fatalf("post with failing audit: exit %d stderr %q, want 2 and the failure", code, errs)
	}
	prompt := func(p string) string {
		return `{"session_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"` + p + `"}`
	}
	if code, out, errs := runHook(t, state, prompt("fix the bug"), "claude-code", "--load", policy); code != 0 || out != "" {
		t.Fatalf("prompt: exit %d stdout %q stderr %q", code, out, errs)
	}
	if code, _, errs := runHook(t, state, prompt("my password is x"), "claude-code", "--load", policy); code != 2 || !strings.Contains(errs, "no passwords in prompts") {
		t.Fatalf("refused prompt: exit %d stderr %q", code, errs)
	}
	if code, _, errs := runHook(t, state, prompt("shout"), "claude-code", "--load", policy); code != 2 || !strings.Contains(errs, `rewrote the prompt to "SHOUT"`) {
		t.Fatalf("rewritten prompt: exit %d stderr %q", code, errs)
	}
}

// budget.lua's counter holds across hook processes of one session, is
// separate per session, and loses no update when processes overlap.
func TestHookStatePersistsPerSession(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "count.lua", `
before(function(call)
  local n = state.incr("calls")
  if n > 3 then return deny("over budget: call " .. n) end
end)
`)
	state := t.TempDir()
	ev := func(session string) string {
		return `{"session_id":"` + session + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	}
	for i := 1; i <= 3; i++ {
		if _, out, errs := runHook(t, state, ev("a"), "claude-code", "--load", policy); out != "" {
			t.Fatalf("call %d: stdout %q stderr %q, want no opinion", i, out, errs)
		}
	}
	if _, out, _ := runHook(t, state, ev("a"), "claude-code", "--load", policy); !strings.Contains(out, "over budget: call 4") {
		t.Fatalf("call 4: stdout %q, want the budget's deny", out)
	}
	if _, out, _ := runHook(t, state, ev("b"), "claude-code", "--load", policy); out != "" {
		t.Fatalf("another session: stdout %q, want its own count", out)
	}
	// A session id is not a path.
	if _, out, _ := runHook(t, state, ev("../../../escape"), "claude-code", "--load", policy); out != "" {
		t.Fatalf("hostile id: stdout %q", out)
	}
	filepath.WalkDir(filepath.Dir(state), func(p string, d os.DirEntry, err error) error {
		if strings.Contains(p, "escape") {
			t.Errorf("a file named after the session id: %s", p)
		}
		return nil
	})
	// A damaged state file blocks rather than resetting the counters.
	files, _ := filepath.Glob(filepath.Join(state, "agentsh", "hook", "claude-code", "*.json"))
	if len(files) != 3 {
		t.Fatalf("state files %v, want 3", files)
	}
	os.WriteFile(files[0], []byte("{"), 0o600)
	os.WriteFile(files[1], []byte("{"), 0o600)
	os.WriteFile(files[2], []byte("{"), 0o600)
	if code, _, errs := runHook(t, state, ev("a"), "claude-code", "--load", policy); code != 2 || !strings.Contains(errs, "damaged") {
		t.Fatalf("damaged state: exit %d stderr %q", code, errs)
	}
}

// Concurrent hook processes of one session: each counts once.
func TestHookStateConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	policy := writePolicy(t, dir, "count.star", `
def count(call):
    state.incr("calls")
    return deny("call " + str(state.get("calls")))
before(count)
`)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	const n = 12
	ev := `{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	var wg sync.WaitGroup
	outs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "hook", "claude-code", "--load", policy)
			cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "XDG_STATE_HOME="+state)
			cmd.Stdin = strings.NewReader(ev)
			b, err := cmd.Output()
			if err != nil {
				t.Errorf("process %d: %v", i, err)
			}
			outs[i] = string(b)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, o := range outs {
		var got struct {
			HookSpecificOutput struct{ PermissionDecisionReason string }
		}
		json.Unmarshal([]byte(o), &got)
		reason, _, _ := strings.Cut(got.HookSpecificOutput.PermissionDecisionReason, " (")
		if seen[reason] {
			t.Errorf("%q twice: an update was lost", reason)
		}
		seen[reason] = true
	}
	for i := 1; i <= n; i++ {
		if !seen["call "+strconv.Itoa(i)] {
			t.Errorf("no process saw call %d: %v", i, seen)
		}
	}
}

func TestHookGeminiAndCodex(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, dir, "p.star", hookPolicy)
	cases := []struct {
		agent, in, want string
		code            int
	}{
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch denied.marker","dir_path":"sub"}}`,
			`{"decision":"deny","reason":"no denied markers (agentsh policy: decide at ` + policy + `:2)"}`, 0},
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch ask.marker"}}`,
			`{"decision":"deny","reason":"needs approval, which a Gemini CLI hook cannot ask for: markers need a person (agentsh policy: decide at ` + policy + `:2)"}`, 0},
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch allowed.marker"}}`,
			`{"decision":"allow","reason":"markers are fine (agentsh policy: decide at ` + policy + `:2)"}`, 0},
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch rewrite.marker","dir_path":"sub"}}`,
			`{"hookSpecificOutput":{"tool_input":{"command":"touch rewritten.marker","dir_path":"sub","timeout_ms":5000}}}`, 0},
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"x/.env"}}`,
			`{"decision":"deny","reason":"no secrets: x/.env (agentsh policy: decide at ` + policy + `:2)"}`, 0},
		{"gemini", `{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, ``, 0},
		{"gemini", `{"hook_event_name":"BeforeTool","tool_input":{}}`, ``, 2},
		{"codex", `{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch denied.marker"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no denied markers (agentsh policy: decide at ` + policy + `:2)"}}`, 0},
		{"codex", `{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch ask.marker"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"needs approval, which a Codex hook cannot ask for: markers need a person (agentsh policy: decide at ` + policy + `:2)"}}`, 0},
		{"codex", `{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch rewrite.marker"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"a policy rewrote the arguments to {\"command\":\"touch rewritten.marker\",\"timeout_ms\":5000}, which a Codex hook cannot apply"}}`, 0},
		{"codex", `{"session_id":"c","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, ``, 0},
		{"codex", `not json`, ``, 2},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			code, out, errs := runHook(t, t.TempDir(), c.in, c.agent, "--load", policy)
			if code != c.code || strings.TrimSpace(out) != c.want {
				t.Fatalf("exit %d stdout %s stderr %q\nwant exit %d stdout %s", code, out, errs, c.code, c.want)
			}
		})
	}
}

// install merges into the settings file, keeping what is there, and is
// idempotent; --user writes under HOME.
func TestHookInstallClaudeCode(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	settings := filepath.Join(project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine.sh"}]}],"Stop":[{"hooks":[{"type":"command","command":"stop.sh"}]}]}}`), 0o600)
	policy := writePolicy(t, project, "p.star", "")
	run := func(args ...string) (int, string) {
		var out, errb strings.Builder
		code := cli(append([]string{"hook", "install", "claude-code", "--workdir", project, "--load", policy, "--allow-temp-exe"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errb})
		return code, out.String() + errb.String()
	}
	if code, msg := run("--project"); code != 0 || !strings.Contains(msg, "added hook entries") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, _ := os.ReadFile(settings)
	var got struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "opus" || len(got.Hooks["Stop"]) != 1 || got.Hooks["PreToolUse"][0].Hooks[0].Command != "mine.sh" {
		t.Fatalf("lost existing settings: %s", b)
	}
	for _, ev := range []string{"PreToolUse", "UserPromptSubmit"} {
		gs := got.Hooks[ev]
		last := gs[len(gs)-1].Hooks[0]
		if !strings.Contains(last.Command, " hook claude-code --load "+policy+" --no-after-hooks") || last.Timeout != 60 {
			t.Errorf("%s: %+v", ev, gs)
		}
	}
	if gs, ok := got.Hooks["PostToolUse"]; ok {
		t.Errorf("PostToolUse %+v, want no entry: the policy has no after hook", gs)
	}
	if st, _ := os.Stat(settings); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	if code, msg := run(); code != 0 || !strings.Contains(msg, "already runs these hooks") {
		t.Fatalf("second install: exit %d: %s", code, msg)
	}
	if b2, _ := os.ReadFile(settings); string(b2) != string(b) {
		t.Errorf("second install changed the file")
	}
	if code, msg := run("--user"); code != 0 || !strings.Contains(msg, filepath.Join(home, ".claude", "settings.json")) {
		t.Fatalf("--user: exit %d: %s", code, msg)
	}
	os.WriteFile(settings, []byte(`[1]`), 0o600)
	if code, msg := run(); code == 0 || !strings.Contains(msg, "is not a JSON object") {
		t.Fatalf("bad settings: exit %d: %s", code, msg)
	}
	if b, _ := os.ReadFile(settings); string(b) != `[1]` {
		t.Errorf("bad settings were overwritten: %s", b)
	}
}

// hook install leaves out the event after a call when no policy has an
// after hook (the agent starts agentsh once per call, not twice), keeps
// it for one that has (or with --events, which logs each result), and an
// entry installed without it blocks every call once a policy gains an
// after hook, rather than skip it.
func TestHookInstallAfterEvent(t *testing.T) {
	project := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	settings := filepath.Join(project, ".claude", "settings.json")
	plain := writePolicy(t, project, "plain.star", "")
	audit := filepath.Join(project, "audit.star")
	os.WriteFile(audit, []byte("after(lambda call, result: None)\n"), 0o644)
	install := func(args ...string) (int, string, map[string]json.RawMessage) {
		var out, errb strings.Builder
		code := cli(append([]string{"hook", "install", "claude-code", "--workdir", project, "--allow-temp-exe"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errb})
		var got struct{ Hooks map[string]json.RawMessage }
		b, _ := os.ReadFile(settings)
		json.Unmarshal(b, &got)
		return code, out.String() + errb.String(), got.Hooks
	}
	for _, c := range []struct {
		name      string
		args      []string
		wantAfter bool
	}{
		{"no after hook", []string{"--load", plain}, false},
		{"an after hook", []string{"--load", plain, "--load", audit}, true},
		{"--events", []string{"--load", plain, "--events", filepath.Join(project, "events.jsonl")}, true},
	} {
		code, msg, hooks := install(c.args...)
		_, hasAfter := hooks["PostToolUse"]
		switch {
		case code != 0:
			t.Errorf("%s: exit %d: %s", c.name, code, msg)
		case hasAfter != c.wantAfter:
			t.Errorf("%s: PostToolUse installed %v, want %v: %s", c.name, hasAfter, c.wantAfter, msg)
		case strings.Contains(string(hooks["PreToolUse"]), "--no-after-hooks") == c.wantAfter:
			t.Errorf("%s: the entry's command %s, want --no-after-hooks exactly when there is no after entry", c.name, hooks["PreToolUse"])
		case !c.wantAfter && !strings.Contains(msg, "no entry runs after a call"):
			t.Errorf("%s: install said %q, want it to say no entry runs after a call", c.name, msg)
		}
	}
	// A policy that fails to load is installed with every event (what it
	// will hold once fixed cannot be known), and install says the entries
	// block every call until it loads.
	broken := filepath.Join(project, "broken.star")
	os.WriteFile(broken, []byte("x = \n"), 0o644)
	if code, msg, hooks := install("--load", broken); code != 0 || hooks["PostToolUse"] == nil || !strings.Contains(msg, "block every call until they do") || !strings.Contains(msg, "broken.star:1") {
		t.Errorf("a broken policy: exit %d: %s, want it installed with every event and a warning naming it", code, msg)
	}

	state := t.TempDir()
	ev := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + filepath.Join(project, "a.txt") + `"},"cwd":"` + project + `"}`
	if code, _, errs := runHook(t, state, ev, "claude-code", "--load", plain, "--no-after-hooks"); code != 0 {
		t.Errorf("--no-after-hooks with no after hook: exit %d: %s", code, errs)
	}
	if code, _, errs := runHook(t, state, ev, "claude-code", "--load", audit, "--no-after-hooks"); code != 2 || !strings.Contains(errs, "run agentsh hook install claude-code again") {
		t.Errorf("--no-after-hooks with an after hook: exit %d: %s, want the call blocked and what to do", code, errs)
	}
	if code, _, _ := runAgentsh(t, "", "hook", "install", "claude-code", "--no-after-hooks"); code != 2 {
		t.Errorf("hook install --no-after-hooks: exit %d, want a usage error", code)
	}
}
