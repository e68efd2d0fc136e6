package tools_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"github.com/agentsh/agentsh/tools/process"
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
