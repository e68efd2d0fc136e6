package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/internal/proctest"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script/lua"
	"github.com/agentsh/agentsh/script/sandbox"
	"github.com/agentsh/agentsh/script/starlark"
	"github.com/agentsh/agentsh/tools"
)

// The interpreted runners, as cmd/agentsh wires them: in child processes.
var (
	childSandbox   = sandbox.New(sandbox.Config{})
	starlarkRunner = childSandbox.Runner("starlark")
	luaRunner      = childSandbox.Runner("lua")
)

// The same interpreters in this process, which the child runs.
func inProcessStarlark(ctx context.Context, code string) (string, error) {
	return starlark.RunSandboxed(ctx, code, 0)
}

func inProcessLua(ctx context.Context, code string) (string, error) {
	return lua.RunSandboxed(ctx, code, 0)
}

func childRunners() map[string]tools.CodeRunner {
	return map[string]tools.CodeRunner{"starlark": starlarkRunner, "lua": luaRunner}
}

// childMarker is in the command line of every run_code child.
const childMarker = "\x00__agentsh_run_code\x00"

// killSlack is how long after its deadline a snippet's call may return:
// the parent's grace (sandbox.KillGrace) and the time to kill and reap the
// child's process group, on an idle machine (testwait.Bound scales it for
// the load).
const killSlack = time.Second

// TestRunCodeHostileSnippets runs snippets that would take the process
// down, or run on past their deadline, if run_code ran them in-process.
// Each must end within its bound with a clear error, and leave neither a
// child process nor a jump in this process's memory behind.
func TestRunCodeHostileSnippets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("run_code's child processes need Linux")
	}
	e := newEnv(t, tools.ExtensionConfig{Runners: childRunners()})
	const (
		memory = "exceeded the memory limit (256 MiB)"
		stack  = "exceeded the stack limit (64 MiB)"
	)
	recursionErrors := []string{"starlark code " + stack, "Starlark stack overflow"}
	if raceEnabled { // shadow memory for the stack runs out first
		recursionErrors = append(recursionErrors, "starlark code "+memory)
	}
	cases := []struct {
		name, lang, code string
		timeoutMS        int       // 0: run_code's default (30 s)
		kind             core.Kind // the error's kind
		anyOf            []string  // the message contains one of these
	}{
		{"doubling", "starlark", "s = 'x'\nfor i in range(64):\n    s = s + s\n", 0, core.KindFailed, []string{"starlark code " + memory}},
		{"list_range", "starlark", "l = list(range(1000000000))\n", 0, core.KindFailed, []string{"starlark code " + memory}},
		// re.sub's own bound or the kernel's, whichever the growing
		// result meets first.
		{"re_sub", "starlark", "s = 'y' * 100000\nfor i in range(3):\n    s = re.sub('', 'x' * 1000, s)\n", 0, core.KindFailed, []string{"starlark code " + memory, "re.sub: the result would be more than 67108864 bytes longer"}},
		{"multiply", "starlark", "x = 'abcd' * 100000000\n", 0, core.KindFailed, []string{"starlark code " + memory}},
		// A cycle is found by the conversion, which names where.
		{"cycle", "starlark", "l = []\nl.append(l)\njson.encode(l)\n", 0, core.KindFailed, []string{"json.encode: value at [0] contains itself"}},
		{"recursion", "starlark", "def f(n):\n    return f(n + 1)\nf(0)\n", 0, core.KindFailed, recursionErrors},
		{"long_builtin", "starlark", "re.findall('a{1,1000}b', 'a' * 1000000)\n", 1000, core.KindTimeout, []string{"starlark code timed out after 1s"}},
		// 200 ms: an idle machine runs an empty loop to the step budget
		// in about a second, and this case is about the deadline.
		{"loop", "starlark", "while True:\n    pass\n", 200, core.KindTimeout, []string{"starlark code timed out after 200ms"}},
		{"print_forever", "starlark", "while True:\n    print('x' * 100)\n", 1000, core.KindTimeout, []string{"starlark code timed out after 1s"}},
		{"doubling", "lua", "local s = 'x' while true do s = s .. s end", 0, core.KindFailed, []string{"lua code " + memory}},
		{"rep", "lua", "local s = string.rep('abcd', 100000000)", 0, core.KindFailed, []string{"lua code " + memory}},
		// run_code's Lua has no json module: a serializer of its own
		// recurses into the cycle.
		{"cycle", "lua", `local t = {} t[1] = t
local function enc(v)
  if type(v) ~= "table" then return tostring(v) end
  local parts = {}
  for _, x in ipairs(v) do parts[#parts + 1] = enc(x) end
  return "[" .. table.concat(parts, ",") .. "]"
end
print(enc(t))`, 0, core.KindFailed, []string{"stack overflow", "lua code " + memory, "lua code " + stack}},
		{"recursion", "lua", "local function f(n) return 1 + f(n + 1) end f(0)", 0, core.KindFailed, []string{"stack overflow"}},
		// The pattern matcher spends the step budget, which stops a
		// backtracking match long before run_code's deadline.
		{"long_builtin", "lua", `string.find(string.rep("a", 40), "(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b")`, 0, core.KindFailed, []string{"step budget of 100000000 exceeded"}},
		// 200 ms, as for Starlark.
		{"loop", "lua", "while true do end", 200, core.KindTimeout, []string{"lua code timed out after 200ms"}},
		{"print_forever", "lua", "while true do print(string.rep('x', 100)) end", 1000, core.KindTimeout, []string{"lua code timed out after 1s"}},
	}
	for _, c := range cases {
		t.Run(c.lang+"_"+c.name, func(t *testing.T) {
			args := map[string]any{"language": c.lang, "code": c.code}
			bound := 30 * time.Second
			if c.timeoutMS > 0 {
				args["timeout_ms"] = c.timeoutMS
				bound = time.Duration(c.timeoutMS) * time.Millisecond
			}
			rssBefore, hwmBefore := memStatus(t, "VmRSS"), memStatus(t, "VmHWM")
			start := time.Now()
			res := e.call("run_code", args)
			elapsed := time.Since(start)
			slack := testwait.Bound(killSlack)
			t.Logf("%s in %v", res.Kind(), elapsed.Round(time.Millisecond))
			if elapsed > bound+slack {
				t.Errorf("returned after %v; want at most %v (deadline %v + %v)", elapsed, bound+slack, bound, slack)
			}
			if res.OK() {
				t.Fatalf("succeeded with %q; want a %s error", res.ForLLM, c.kind)
			}
			if res.Kind() != c.kind {
				t.Errorf("kind %s (%v), want %s", res.Kind(), res.Err, c.kind)
			}
			msg := res.Err.Error()
			if !containsAny(msg, c.anyOf) {
				t.Errorf("message %.300q contains none of %q", msg, c.anyOf)
			}
			if n := len([]rune(msg)); n > 40000 {
				t.Errorf("message of %d characters; want the output capped", n)
			}
			if left := sandboxChildren(); len(left) > 0 {
				t.Errorf("child processes left behind: %v", left)
			}
			// A bomb in this process would cost hundreds of MiB; what
			// a child's reply costs here is a few.
			const jump = 64 << 20
			if rss := memStatus(t, "VmRSS"); rss > rssBefore+jump {
				t.Errorf("RSS went from %d to %d bytes", rssBefore, rss)
			}
			if hwm := memStatus(t, "VmHWM"); hwm > hwmBefore+jump {
				t.Errorf("peak RSS went from %d to %d bytes", hwmBefore, hwm)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestRunCodeChildHasNoInheritedDescriptors plants a descriptor without
// close-on-exec in this process, which a child inherits across exec, and
// checks that the running child has closed it: what is left above 2 is
// the child's own (close-on-exec).
func TestRunCodeChildHasNoInheritedDescriptors(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("run_code's child processes need Linux")
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("not for snippets"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)

	e := newEnv(t, tools.ExtensionConfig{Runners: childRunners()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *core.Result, 1)
	go func() {
		res, _ := e.exec.InvokeTool(ctx, "run_code", json.RawMessage(`{"language": "starlark", "code": "while True:\n    pass\n", "timeout_ms": 60000}`))
		done <- res
	}()

	pid := waitForRestrictedChild(t, done)
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	var inherited []string
	for _, f := range fds {
		n, _ := strconv.Atoi(f.Name())
		target, _ := os.Readlink("/proc/" + pid + "/fd/" + f.Name())
		if target == secret {
			t.Errorf("the child holds descriptor %d on %s", n, secret)
		}
		if n > 2 && !closeOnExec(t, pid, f.Name()) {
			inherited = append(inherited, f.Name()+" -> "+target)
		}
	}
	if len(inherited) > 0 {
		t.Errorf("descriptors above 2 without close-on-exec in the child: %v", inherited)
	}

	// Canceling the call kills the child at once.
	slack := testwait.Bound(killSlack)
	start := time.Now()
	cancel()
	select {
	case res := <-done:
		if res.Kind() != core.KindCanceled {
			t.Errorf("after cancel: kind %s (%v), want %s", res.Kind(), res.Err, core.KindCanceled)
		}
	case <-time.After(testwait.Step):
		t.Fatalf("run_code did not return within %v of its cancellation", testwait.Step)
	}
	if d := time.Since(start); d > slack {
		t.Errorf("returned %v after the cancellation; want at most %v", d, slack)
	}
	if left := sandboxChildren(); len(left) > 0 {
		t.Errorf("child processes left behind: %v", left)
	}
}

// waitForRestrictedChild returns the pid of this process's run_code child
// once it has put itself under its limits (its CPU time limit is set),
// which it does after closing inherited descriptors and before reading
// its snippet.
func waitForRestrictedChild(t *testing.T, done <-chan *core.Result) string {
	t.Helper()
	deadline := time.Now().Add(testwait.Step)
	for time.Now().Before(deadline) {
		select {
		case res := <-done:
			t.Fatalf("run_code returned before its child was seen: %v", res.Err)
		default:
		}
		for _, pid := range sandboxChildren() {
			limits, err := os.ReadFile("/proc/" + pid + "/limits")
			if err == nil && limitValue(string(limits), "Max cpu time") != "unlimited" {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no restricted run_code child appeared within %v", testwait.Step)
	return ""
}

// limitValue is the soft limit on the line of /proc/PID/limits that
// starts with name.
func limitValue(limits, name string) string {
	for _, line := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// closeOnExec reads the flags of descriptor fd of process pid.
func closeOnExec(t *testing.T, pid, fd string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/fdinfo/" + fd)
	if err != nil {
		return true // closed meanwhile
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			if err != nil {
				t.Fatalf("fdinfo flags %q: %v", v, err)
			}
			return flags&syscall.O_CLOEXEC != 0
		}
	}
	t.Fatalf("fdinfo of %s/%s has no flags line", pid, fd)
	return false
}

// TestRunCodeChildMatchesInProcess: for ordinary snippets, run_code gives
// byte for byte the same result with the child runner as with the
// in-process one.
func TestRunCodeChildMatchesInProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("run_code's child processes need Linux")
	}
	child := newEnv(t, tools.ExtensionConfig{Runners: childRunners()})
	inProcess := newEnv(t, tools.ExtensionConfig{Runners: map[string]tools.CodeRunner{"starlark": inProcessStarlark, "lua": inProcessLua}})
	snippets := []struct{ lang, code string }{
		{"starlark", "print(1)"},
		{"starlark", ""},
		{"starlark", "print('tab\\there', 'ünïcødé ✓', '')\nprint(json.encode({'b': [1, 2.5, None], 'a': 'x'}))"},
		{"starlark", "print(re.findall(r'\\d+', 'a1b22c333'), math.floor(2.5), struct(a = 1))"},
		{"starlark", "print(sorted([3, 1, 2]), {'k': set([1])})"},
		{"starlark", "for i in range(5000):\n    print('line', i, 'x' * 20)"},
		{"starlark", "print('before')\nfail('boom')"},
		{"starlark", "def f(n):\n    return 1 // n\nprint('x')\nf(0)"},
		{"starlark", "print(("},
		{"starlark", "invoke_tool('bash', {'command': 'id'})"},
		{"starlark", "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nprint(f(5000))"},
		{"lua", "print(1)"},
		{"lua", ""},
		{"lua", `print("tab", "ünïcødé ✓", nil, true, 2.5, 10 // 3)`},
		{"lua", `print("\255\254 invalid utf-8", "\0nul")`},
		{"lua", `for i = 1, 5000 do print("line", i, string.rep("x", 20)) end`},
		{"lua", `local t = {} for i = 1, 10 do t[#t + 1] = i * i end print(table.concat(t, ","))`},
		{"lua", `print("before") error("boom")`},
		{"lua", `print("before") error("no position", 0)`},
		{"lua", `local x = nil; print(x.y)`},
		{"lua", `print(`},
		{"lua", `dofile("/etc/passwd")`},
		{"lua", `print(coroutine.wrap(function() coroutine.yield(7) end)())`},
	}
	for _, s := range snippets {
		args := map[string]any{"language": s.lang, "code": s.code}
		got, want := child.call("run_code", args), inProcess.call("run_code", args)
		if got.ForLLM != want.ForLLM || got.Kind() != want.Kind() || errText(got) != errText(want) {
			t.Errorf("%s %q:\nchild:      %q %s %q\nin-process: %q %s %q", s.lang, s.code, got.ForLLM, got.Kind(), errText(got), want.ForLLM, want.Kind(), errText(want))
		}
	}
}

func errText(r *core.Result) string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Error()
}

// memStatus reads a kB field of /proc/self/status, in bytes.
func memStatus(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/self/status has no %s", field)
	return 0
}

// sandboxChildren lists the live run_code children descending from this
// process.
func sandboxChildren() []string {
	var out []string
	for _, pid := range proctest.Descendants(os.Getpid(), strings.Trim(childMarker, "\x00")) {
		out = append(out, strconv.Itoa(pid))
	}
	return out
}

// BenchmarkRunCode is one run_code call of print(1), in a child process
// and in this process.
func BenchmarkRunCode(b *testing.B) {
	for _, lang := range []string{"starlark", "lua"} {
		for _, mode := range []struct {
			name   string
			runner tools.CodeRunner
		}{
			{"child", childRunners()[lang]},
			{"in-process", map[string]tools.CodeRunner{"starlark": inProcessStarlark, "lua": inProcessLua}[lang]},
		} {
			b.Run(lang+"/"+mode.name, func(b *testing.B) {
				ex := executor.New(nil)
				if err := ex.Install(context.Background(), tools.NewExtension(tools.ExtensionConfig{
					WorkingDir: b.TempDir(),
					Runners:    map[string]tools.CodeRunner{lang: mode.runner},
				})); err != nil {
					b.Fatal(err)
				}
				defer ex.Close()
				args := json.RawMessage(`{"language": "` + lang + `", "code": "print(1)"}`)
				b.ResetTimer()
				for b.Loop() {
					res, _ := ex.InvokeTool(context.Background(), "run_code", args)
					if !res.OK() || res.ForLLM != "1\n" {
						b.Fatalf("got %q, %v", res.ForLLM, res.Err)
					}
				}
			})
		}
	}
}
