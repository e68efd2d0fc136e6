package tools_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/process"
	"github.com/agentsh/agentsh/tools/process/policytest"
)

func TestBash(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	e.write(map[string]string{"sub/f.txt": "hello\n"})
	if got := e.ok("bash", map[string]any{"command": "echo out; echo err >&2"}); got != "out\nerr\n" {
		t.Errorf("output: %q", got)
	}
	if got := e.ok("bash", map[string]any{"command": "cat f.txt; pwd", "workdir": "sub"}); !strings.HasPrefix(got, "hello\n") || !strings.HasSuffix(strings.TrimSpace(got), "/sub") {
		t.Errorf("workdir: %q", got)
	}
	if got := e.ok("bash", map[string]any{"command": "true"}); got != "(no output)" {
		t.Errorf("no output: %q", got)
	}
	e.fails("bash", map[string]any{"command": "echo partial; exit 3"}, core.KindFailed, "command exited with code 3", "partial")
	e.fails("bash", map[string]any{"command": "echo started; sleep 30", "timeout_ms": 200}, core.KindTimeout, "timed out after 200ms", "process group was killed", "started")
	e.fails("bash", map[string]any{"command": "  "}, core.KindFailed, "command is empty")
	e.fails("bash", map[string]any{"command": "true", "timeout_ms": 600001}, core.KindInvalidArguments, "/timeout_ms")
	e.fails("bash", map[string]any{"command": "true", "workdir": "nope"}, core.KindFailed, "nope")
	got := e.ok("bash", map[string]any{"command": "head -c 40000 /dev/zero | tr '\\0' x"})
	if n := len([]rune(got)); n > 30200 || !strings.Contains(got, "characters") {
		t.Errorf("output of 40,000 characters came back as %d characters without a cut marker", n)
	}
}

func TestBashShellPolicy(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{Shell: process.ShellPolicy{Block: []string{"rm", "curl"}}})
	e.write(map[string]string{"keep.txt": "x"})
	for _, cmd := range []string{"rm keep.txt", "ls && rm keep.txt", "echo $(rm keep.txt)", "env rm keep.txt", "sh -c 'rm keep.txt'", "/bin/rm keep.txt"} {
		e.fails("bash", map[string]any{"command": cmd}, core.KindFailed, "rm")
	}
	if e.read("keep.txt") != "x" {
		t.Fatal("a blocked command ran")
	}
	e.ok("bash", map[string]any{"command": "ls | wc -l"})
}

func TestRunCode(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{Runners: map[string]tools.CodeRunner{
		"starlark": starlarkRunner, "lua": luaRunner,
	}})
	if got := e.ok("run_code", map[string]any{"language": "starlark", "code": "print(1 + 2)"}); got != "3\n" {
		t.Errorf("starlark: %q", got)
	}
	if got := e.ok("run_code", map[string]any{"language": "lua", "code": "print(1 + 2)"}); got != "3\n" {
		t.Errorf("lua: %q", got)
	}
	if got := e.ok("run_code", map[string]any{"language": "bash", "code": "echo $((6 * 7))"}); got != "42\n" {
		t.Errorf("bash: %q", got)
	}
	e.fails("run_code", map[string]any{"language": "starlark", "code": "while True:\n    pass\n", "timeout_ms": 100}, core.KindTimeout, "timed out")
	e.fails("run_code", map[string]any{"language": "lua", "code": "while true do end", "timeout_ms": 100}, core.KindTimeout, "timed out")
	e.fails("run_code", map[string]any{"language": "starlark", "code": "print('x')\nfail('boom')"}, core.KindFailed, "boom", "x")
	e.fails("run_code", map[string]any{"language": "starlark", "code": "invoke_tool('bash', {'command': 'id'})"}, core.KindFailed, "undefined: invoke_tool")
	e.fails("run_code", map[string]any{"language": "cobol", "code": "x"}, core.KindInvalidArguments, "/language")
	if _, err := exec.LookPath("python3"); err == nil {
		if got := e.ok("run_code", map[string]any{"language": "python3", "code": "print(6 * 7)"}); got != "42\n" {
			t.Errorf("python3: %q", got)
		}
		e.fails("run_code", map[string]any{"language": "python3", "code": "import sys; sys.exit(2)"}, core.KindFailed, "exited with code 2")
	} else {
		t.Log("python3 not found; its run_code case is skipped")
	}
}

// bypassEnv is a tool environment whose processes run in a temporary
// directory prepared for the policytest corpus, with HOME there too.
func bypassEnv(t *testing.T, shell process.ShellPolicy) *env {
	dir := t.TempDir()
	policytest.Setup(t, dir)
	ex := process.NewLocalExec(dir)
	ex.BaseEnv = []string{"PATH=" + process.DefaultPath, "HOME=" + dir}
	return newEnv(t, tools.ExtensionConfig{WorkingDir: dir, Exec: ex, Shell: shell})
}

// TestBashRefusesShellBypasses runs every bypass of the corpus through the
// bash tool and run_code's bash, with a block list and an allow list:
// each is refused, and the program it would run does not run.
func TestBashRefusesShellBypasses(t *testing.T) {
	policies := map[string]process.ShellPolicy{
		"block": {Block: policytest.Block},
		"allow": {Allow: policytest.Allow},
	}
	for name, pol := range policies {
		t.Run(name, func(t *testing.T) {
			e := bypassEnv(t, pol)
			for _, p := range policytest.Bypasses() {
				for _, call := range []struct{ tool, arg string }{{"bash", "command"}, {"run_code", "code"}} {
					args := map[string]any{call.arg: p.Command}
					if call.tool == "run_code" {
						args["language"] = "bash"
					}
					res := e.call(call.tool, args)
					switch {
					case res.OK():
						t.Errorf("%s %s: ran, with output %q; want a refusal", call.tool, p.Name, res.ForLLM)
					case !errors.Is(res.Err, process.ErrRefused):
						t.Errorf("%s %s: %v; want a refusal by the shell policy", call.tool, p.Name, res.Err)
					}
					if policytest.Ran(e.dir) {
						t.Errorf("%s %s: the payload ran", call.tool, p.Name)
						os.Remove(filepath.Join(e.dir, policytest.Marker))
					}
				}
			}
		})
	}
}

// TestBashAllowsHarmless checks that the policies still let ordinary
// command lines run, through the bash tool and run_code's bash.
func TestBashAllowsHarmless(t *testing.T) {
	for name, pol := range map[string]process.ShellPolicy{"block": {Block: policytest.Block}, "allow": {Allow: policytest.Allow}} {
		t.Run(name, func(t *testing.T) {
			e := bypassEnv(t, pol)
			for _, p := range policytest.Harmless() {
				if res := e.call("bash", map[string]any{"command": p.Command}); !res.OK() {
					t.Errorf("bash %s: %v", p.Name, res.Err)
				}
				if res := e.call("run_code", map[string]any{"language": "bash", "code": p.Command}); !res.OK() {
					t.Errorf("run_code bash %s: %v", p.Name, res.Err)
				}
			}
		})
	}
}

// TestRunCodeShellPolicy checks that run_code applies the shell policy:
// bash code is checked, python3 and node code is refused unless the
// allow list names the interpreter.
func TestRunCodeShellPolicy(t *testing.T) {
	e := bypassEnv(t, process.ShellPolicy{Block: []string{"touch"}})
	e.fails("run_code", map[string]any{"language": "bash", "code": "touch P"}, core.KindFailed, `"touch" is on the block list`)
	e.fails("run_code", map[string]any{"language": "bash", "code": "x='a[$(touch P)]'; (( x ))"}, core.KindFailed, "cannot check x in an arithmetic expression")
	if got := e.ok("run_code", map[string]any{"language": "bash", "code": "echo $((6 * 7))"}); got != "42\n" {
		t.Errorf("bash under a block list: %q", got)
	}
	for _, lang := range []string{"python3", "node"} {
		msg := e.fails("run_code", map[string]any{"language": lang, "code": "print(1)"}, core.KindFailed,
			lang+" code cannot be checked by the shell policy", `add "`+lang+`" to the shell policy's allow list`)
		if strings.Contains(msg, "exited") {
			t.Errorf("%s ran under a block list: %s", lang, msg)
		}
	}
	if policytest.Ran(e.dir) {
		t.Fatal("a refused run_code call ran")
	}

	allow := bypassEnv(t, process.ShellPolicy{Allow: []string{"ls", "/usr/bin/python3"}})
	allow.fails("run_code", map[string]any{"language": "node", "code": "console.log(1)"}, core.KindFailed, `add "node" to the shell policy's allow list`)
	allow.fails("run_code", map[string]any{"language": "bash", "code": "ls; cat a.txt"}, core.KindFailed, `"cat" is not on the allow list`)
	if _, err := exec.LookPath("python3"); err == nil {
		if got := allow.ok("run_code", map[string]any{"language": "python3", "code": "print(6 * 7)"}); got != "42\n" {
			t.Errorf("python3 named by the allow list: %q", got)
		}
	} else {
		t.Log("python3 not found; its allowed run_code case is skipped")
	}
	blocked := bypassEnv(t, process.ShellPolicy{Allow: []string{"python3"}, Block: []string{"python3"}})
	blocked.fails("run_code", map[string]any{"language": "python3", "code": "print(1)"}, core.KindFailed, "cannot be checked")
}
