package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/hookadapter"
)

// A hook that cannot decide, as the real clients meet it. Each scripted
// model touches one marker per failure, so a client that lets the call go
// ahead leaves the marker, and nothing else happens.
const (
	missingCall = "touch missing.marker" // the binary the entry names is gone: exit 127
	killedCall  = "touch killed.marker"  // the hook is killed (SIGKILL): 137
	timeoutCall = "touch timeout.marker" // the hook outlives the client's timeout
	failedCall  = "touch failed.marker"  // the hook fails: exit 1
)

// failingHook is a hook command that fails as the call it is asked about
// says: it runs a binary that is not there, is killed, waits past the
// client's timeout (on the named pipe release beside it, which the test
// closes when it ends, so no hook outlives the test), or exits 1. It
// reads the event, as a hook does.
const failingHook = `#!/bin/sh
input=$(cat)
case "$input" in
*missing.marker*) exec /nonexistent/agentsh "$@" ;;
*killed.marker*) kill -KILL $$ ;;
*timeout.marker*) exec cat "$(dirname "$0")/release" ;;
*failed.marker*) echo 'something went wrong' >&2; exit 1 ;;
esac
`

// The timeouts of the hand-written entries. The hooks that fail at once
// (127, 137, exit 1) run under one they never meet, even when every core
// is busy, or the client would see a timeout instead; the hook that
// hangs runs alone, under one the client waits out in a moment.
const (
	hookClientTimeout  = 60 * time.Second
	hookTimeoutTimeout = 1 * time.Second
)

// hookClient is one real client: how to write a hand-made pre-tool hook
// entry for it, how agentsh hook install reaches its settings, and how to
// run it headless against a scripted model in root/project, with every
// safety of its own off, so that only the hook stands between the model
// and the shell. run returns the markers left and everything the client
// printed.
type hookClient struct {
	name   string
	client npmClient
	// entry writes a settings file whose pre-tool event runs command,
	// which the client stops after timeout.
	entry func(t *testing.T, root, command string, timeout time.Duration)
	// install runs agentsh hook install with args, as a person would.
	install func(t *testing.T, root string, args ...string)
	run     func(t *testing.T, bin, root string, commands []string) hookRun
	// quietPromptBlock: the client says nothing of why a prompt hook
	// blocked the prompt (codex exec ends the turn without a word).
	quietPromptBlock bool
}

// hookRun is what a headless run of a client left: the markers in the
// project, everything the client printed, and how many requests the
// model answered.
type hookRun struct {
	markers []string
	out     string
	asked   int
}

var hookClients = []hookClient{
	{name: "claude-code", client: claudeCodeClient,
		entry: func(t *testing.T, root, command string, timeout time.Duration) {
			writeJSON(t, filepath.Join(root, "project", ".claude", "settings.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": command, "timeout": timeout.Seconds()}}}}}})
		},
		install: func(t *testing.T, root string, args ...string) {
			installHook(t, nil, append([]string{"claude-code", "--project", "--workdir", filepath.Join(root, "project")}, args...)...)
		},
		run: func(t *testing.T, bin, root string, commands []string) hookRun {
			run := runClaudeHeadless(t, bin, root, &scriptedModel{commands: commands}, nil, "--permission-mode", "bypassPermissions")
			var out strings.Builder
			for _, ev := range run.stream {
				b, _ := json.Marshal(ev)
				out.Write(append(b, '\n'))
			}
			return hookRun{run.markers(t), out.String(), run.turns}
		}},
	{name: "gemini", client: geminiClient,
		entry: func(t *testing.T, root, command string, timeout time.Duration) {
			writeJSON(t, filepath.Join(root, "home", ".gemini", "settings.json"), geminiQuiet(map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*",
					"hooks": []any{map[string]any{"name": "mine", "type": "command", "command": command, "timeout": timeout.Milliseconds()}}}}}}))
		},
		install: func(t *testing.T, root string, args ...string) {
			writeJSON(t, filepath.Join(root, "home", ".gemini", "settings.json"), geminiQuiet(map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}))
			installHook(t, []string{"HOME=" + filepath.Join(root, "home")}, append([]string{"gemini", "--user"}, args...)...)
		},
		run: runGeminiHeadless},
	{name: "codex", client: codexClient,
		entry: func(t *testing.T, root, command string, timeout time.Duration) {
			writeJSON(t, filepath.Join(root, "home", "hooks.json"), map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": command, "timeout": timeout.Seconds()}}}}}})
		},
		install: func(t *testing.T, root string, args ...string) {
			installHook(t, []string{"CODEX_HOME=" + filepath.Join(root, "home")}, append([]string{"codex", "--user"}, args...)...)
		},
		run: runCodexHeadless, quietPromptBlock: true},
}

// TestHookFailureRealClients measures what Claude Code, Gemini CLI and
// Codex do when their hook cannot decide — its binary is missing, it is
// killed, it outlives their timeout — first with a hand-written entry,
// then with the entries agentsh hook install writes, which must block
// the call in every case. docs/hooks.md has the table.
func TestHookFailureRealClients(t *testing.T) {
	t.Parallel() // the real clients' runs wait on them, the model and the hooks
	for _, c := range hookClients {
		t.Run(c.name, func(t *testing.T) {
			bin := c.client.find(t)
			t.Parallel()
			t.Run("hand-written entry", func(t *testing.T) {
				// As measured: only Gemini CLI blocks on exit 127; exit 1,
				// a signal or a timeout lets the call go ahead everywhere.
				for _, r := range []struct {
					name    string
					calls   []string
					timeout time.Duration
					want    string
				}{
					{"fails at once", []string{missingCall, killedCall, failedCall}, hookClientTimeout, "failed.marker killed.marker missing.marker"},
					{"hangs", []string{timeoutCall}, hookTimeoutTimeout, "timeout.marker"},
				} {
					t.Run(r.name, func(t *testing.T) {
						t.Parallel()
						root := hookRoot(t)
						hook := writeExecutable(t, filepath.Join(root, "bin", "failing-hook"), failingHook)
						releaseWhenDone(t, filepath.Join(root, "bin", "release"))
						c.entry(t, root, hookadapter.ShellQuote(hook)+" hook "+c.name, r.timeout)
						run := c.run(t, bin, root, r.calls)
						want := r.want
						if c.name == "gemini" {
							want = strings.TrimSpace(strings.ReplaceAll(want, "missing.marker", ""))
						}
						if got := strings.Join(run.markers, " "); got != want {
							t.Errorf("calls that went ahead: %q, want %q (as measured); the client said:\n%s", got, want, run.out)
						}
					})
				}
			})
			for _, f := range []struct {
				name, call, policy, reason string
				args                       []string
			}{
				{"installed, binary missing", missingCall, markerPolicy, "ended with exit status 127, so the call is blocked", nil},
				{"installed, hook killed", killedCall, markerPolicy, "ended with exit status 137, so the call is blocked", nil},
				// agentsh's own deadline ends a policy that hangs well
				// before the client's timeout (deadline + 30 s).
				{"installed, policy hangs", timeoutCall, hangingPolicy, "no decision in time", []string{"--timeout", "1s", "--max-steps", "1000000000000000"}},
			} {
				t.Run(f.name, func(t *testing.T) {
					t.Parallel()
					root := hookRoot(t)
					exe := filepath.Join(root, "bin", "agentsh")
					switch f.call {
					case killedCall:
						writeExecutable(t, exe, "#!/bin/sh\nkill -KILL $$\n")
					default:
						writeAgentshShim(t, exe, root)
					}
					policy := writePolicy(t, root, "policy.star", f.policy)
					c.install(t, root, append([]string{"--exe", exe, "--allow-temp-exe", "--load", policy}, f.args...)...)
					if f.call == missingCall {
						os.Remove(exe)
					}
					run := c.run(t, bin, root, []string{f.call})
					if len(run.markers) != 0 {
						t.Errorf("the call went ahead (%v); the client said:\n%s", run.markers, run.out)
					}
					// Where the prompt hook fails (all but the hang),
					// the prompt is blocked before the model is asked.
					if f.call != timeoutCall && run.asked != 0 {
						t.Errorf("the model was asked %d times, want 0: the prompt hook blocks; the client said:\n%s", run.asked, run.out)
					}
					if (f.call == timeoutCall || !c.quietPromptBlock) && !strings.Contains(run.out, f.reason) {
						t.Errorf("the client did not pass on %q:\n%s", f.reason, run.out)
					}
				})
			}
		})
	}
}

// denyAll denies every call.
const denyAll = `before(lambda call: deny("no calls today"))` + "\n"

// TestHookTrustRealClients measures when an installed entry does not run
// at all: Gemini CLI runs a project's hooks only in a trusted folder, and
// Codex runs a hook only once it is trusted, and a project's hooks only
// in a trusted project. Until then the calls go ahead. agentsh hook
// install says so; docs/hooks.md has the table.
func TestHookTrustRealClients(t *testing.T) {
	t.Parallel() // the real clients' runs wait on them and on the model
	t.Run("gemini", func(t *testing.T) {
		gemini := geminiClient.find(t)
		t.Parallel()
		for _, c := range []struct {
			name    string
			env     []string
			markers string
		}{
			{"untrusted folder, --skip-trust", nil, "denied.marker"},
			{"trusted folder", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				root := hookRoot(t)
				exe := filepath.Join(root, "bin", "agentsh")
				writeAgentshShim(t, exe, root)
				writeJSON(t, filepath.Join(root, "home", ".gemini", "settings.json"), geminiQuiet(map[string]any{
					"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}))
				installHook(t, nil, "gemini", "--project", "--workdir", filepath.Join(root, "project"),
					"--exe", exe, "--allow-temp-exe", "--load", writePolicy(t, root, "policy.star", denyAll))
				run := runGemini(t, gemini, root, []string{"touch denied.marker"}, c.env)
				if got := strings.Join(run.markers, " "); got != c.markers {
					t.Errorf("markers %q, want %q; the client said:\n%s", got, c.markers, run.out)
				}
			})
		}
	})
	t.Run("codex", func(t *testing.T) {
		codex := codexClient.find(t)
		t.Parallel()
		for _, c := range []struct {
			name    string
			project bool   // installed in the project's .codex, not CODEX_HOME
			config  string // added to config.toml
			flags   []string
			markers string
			said    string // in what codex exec printed; "" for no word of hooks
		}{
			{"hook not trusted", false, "", nil, "denied.marker", ""},
			{"hook trusted for this run", false, "", []string{"--dangerously-bypass-hook-trust"}, "", "Command blocked by PreToolUse hook: no calls today"},
			{"project not trusted", true, "", []string{"--dangerously-bypass-hook-trust"}, "denied.marker", "Untrusted project-local configuration is disabled"},
			{"project trusted", true, "\n[projects.%q]\ntrust_level = \"trusted\"\n", []string{"--dangerously-bypass-hook-trust"}, "", "Command blocked by PreToolUse hook: no calls today"},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				root := hookRoot(t)
				exe := filepath.Join(root, "bin", "agentsh")
				writeAgentshShim(t, exe, root)
				project := filepath.Join(root, "project")
				args := []string{"codex", "--exe", exe, "--allow-temp-exe", "--load", writePolicy(t, root, "policy.star", denyAll)}
				env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
				if c.project {
					args = append(args, "--project", "--workdir", project)
				} else {
					args = append(args, "--user")
				}
				installHook(t, env, args...)
				config := c.config
				if config != "" {
					config = fmt.Sprintf(config, project)
				}
				run := runCodex(t, codex, root, []string{"touch denied.marker"}, config, c.flags...)
				if got := strings.Join(run.markers, " "); got != c.markers {
					t.Errorf("markers %q, want %q; the client said:\n%s", got, c.markers, run.out)
				}
				if c.said == "" && strings.Contains(strings.ToLower(strings.ReplaceAll(run.out, root, "ROOT")), "hook") {
					t.Errorf("codex exec mentioned hooks; the client said:\n%s", run.out)
				}
				if c.said != "" && !strings.Contains(run.out, c.said) {
					t.Errorf("codex exec did not say %q:\n%s", c.said, run.out)
				}
			})
		}
	})
}

// hangingPolicy never decides on its own.
const hangingPolicy = `
def hang(call):
    for i in range(1 << 40):
        pass
before(hang)
`

// hookRoot is a temp root with home and project directories.
func hookRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"home", "project", "bin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func writeExecutable(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeAgentshShim makes path run this test binary as agentsh. The
// variables it needs go in the script: Gemini CLI runs hooks with a
// sanitized environment.
func writeAgentshShim(t *testing.T, path, root string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeExecutable(t, path, "#!/bin/sh\nAGENTSH_MAIN=1 GORACE=atexit_sleep_ms=0 XDG_STATE_HOME="+
		hookadapter.ShellQuote(filepath.Join(root, "state"))+" exec "+hookadapter.ShellQuote(self)+` "$@"`+"\n")
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// installHook runs agentsh hook install ARGS as its own process, with env
// added (HOME, CODEX_HOME: where the user's settings are).
func installHook(t *testing.T, env []string, args ...string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"hook", "install"}, args...)...)
	cmd.Env = append(append(os.Environ(), "AGENTSH_MAIN=1", "GORACE=atexit_sleep_ms=0"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agentsh hook install %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// markersIn lists the marker files in dir.
func markersIn(t *testing.T, dir string) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "*.marker"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		ms[i] = filepath.Base(m)
	}
	return ms
}

// runGeminiHeadless runs the real Gemini CLI in root/project, headless
// and in yolo mode, against a scripted model that makes one
// run_shell_command call per command; HOME is root/home.
func runGeminiHeadless(t *testing.T, gemini, root string, commands []string) hookRun {
	return runGemini(t, gemini, root, commands, nil)
}

// runGemini is runGeminiHeadless with env added to Gemini CLI's.
func runGemini(t *testing.T, gemini, root string, commands []string, env []string) hookRun {
	t.Helper()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	var asked atomic.Int64
	model := &scriptedGemini{commands: commands}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		model.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", "touch the marker files", "--output-format", "stream-json",
		"--model", "gemini-2.5-flash", "--skip-trust", "--approval-mode", "yolo")
	cmd.Dir = project
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), // node
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"TMPDIR=" + root,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system-settings.json"),
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"GEMINI_API_KEY=test-dummy",
		geminiNoRelaunch,
	}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gemini did not finish within 3 minutes:\n%s", out.String())
	}
	return hookRun{markersIn(t, project), fmt.Sprintf("(exit: %v)\n%s", err, out.String()), int(asked.Load())}
}

// runCodexHeadless runs the real Codex (codex exec) in root/project with
// CODEX_HOME root/home, hooks run without review and no sandbox or
// approvals, against a scripted Responses API that makes one exec_command
// call per command.
func runCodexHeadless(t *testing.T, codex, root string, commands []string) hookRun {
	return runCodex(t, codex, root, commands, "", "--dangerously-bypass-hook-trust")
}

// runCodex is runCodexHeadless with config added to config.toml and flags
// (before the prompt) in place of --dangerously-bypass-hook-trust.
func runCodex(t *testing.T, codex, root string, commands []string, config string, flags ...string) hookRun {
	t.Helper()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	model := &scriptedResponses{commands: commands, outputs: map[string]string{}}
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		model.ServeHTTP(w, r)
	}))
	defer srv.Close()
	config = fmt.Sprintf("model = \"scripted\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\n"+
		"name = \"scripted\"\nbase_url = \"%s/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n", srv.URL) + config
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append([]string{"exec", "--json", "--skip-git-repo-check", "--ephemeral", "--dangerously-bypass-approvals-and-sandbox"}, flags...)
	cmd := exec.CommandContext(ctx, codex, append(args, "touch the marker files")...)
	cmd.Dir = project
	cmd.Stdin = strings.NewReader("")
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"CODEX_HOME=" + home,
		"TMPDIR=" + root,
		"SCRIPTED_API_KEY=sk-test-dummy",
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("codex did not finish within 3 minutes:\n%s", out)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	return hookRun{markersIn(t, project), fmt.Sprintf("(exit: %v; the model was told %q)\n%s", err, model.outputs, out), int(asked.Load())}
}
