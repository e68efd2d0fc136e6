package lua

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/script"
)

// TestTailCallLoopStopsPromptly: a tail-recursive infinite loop makes
// gopher-lua count millions of tail calls; its own traceback would list
// each one (seconds to minutes). The interpreter's traceback is bounded,
// so a 100ms deadline ends the run within a second even under -race.
func TestTailCallLoopStopsPromptly(t *testing.T) {
	e := newEnv(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var err error
	bounded(t, "tail-call loop", func() {
		_, err = e.in.ExecSource(ctx, "loop.lua", []byte(`local function loop(n) return loop(n + 1) end loop(0)`))
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	var le *script.Error
	if !errors.As(err, &le) {
		t.Fatalf("err %T, want *script.Error", err)
	}
	if n := strings.Count(le.Backtrace, "\n"); n > maxTraceFrames+2 {
		t.Errorf("traceback has %d lines, want at most %d:\n%s", n, maxTraceFrames+2, le.Backtrace)
	}
	// The same in run_code's sandbox.
	bounded(t, "sandboxed tail-call loop", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err = RunSandboxed(ctx, `local function loop(n) return loop(n + 1) end loop(0)`, 0)
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("sandbox: err = %v, want the deadline", err)
	}
}

// TestTracebackIsBounded: deep recursion keeps the innermost and outermost
// frames and elides the middle.
func TestTracebackIsBounded(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`local function f(n) if n == 0 then error("bottom") end return 1 + f(n - 1) end
f(100)`)
	var le *script.Error
	if !errors.As(err, &le) {
		t.Fatalf("err %T, want *script.Error", err)
	}
	lines := strings.Split(le.Backtrace, "\n")
	if lines[0] != "stack traceback:" || len(lines) != maxTraceFrames+2 {
		t.Fatalf("traceback:\n%s\nwant a header and %d frames with one elision", le.Backtrace, maxTraceFrames)
	}
	wantLines(t, []string{lines[1], lines[2], lines[11], lines[len(lines)-1]},
		"\t[G]: in function 'error'", "\ttest.lua:1: in function 'f'", "\t...", "\ttest.lua:2: in main chunk")
}

// TestInvokeNestingLimit: a tool that invokes itself without end stops at
// script.MaxNesting levels with a clear error instead of exhausting memory.
func TestInvokeNestingLimit(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("runaway recursion", `
tool{name = "rec", fn = function(args)
  local r = invoke_tool("rec", {n = args.n + 1})
  if not r.ok then return "stopped at " .. args.n .. ": " .. r.error end
  return r.output
end}
print(invoke_tool("rec", {n = 1}).output)
`)
	out := e.out.String()
	wantContains(t, out, "stopped at 99: ", "calls nested more than 100 deep")
	if script.MaxNesting != 100 {
		t.Fatalf("MaxNesting = %d; update this test", script.MaxNesting)
	}
}

// TestCoroutineNestingLimit: coroutines resumed inside each other stop at
// maxCoroutineNesting, through wrap and through resume, and ordinary
// coroutines are untouched by the guard.
func TestCoroutineNestingLimit(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("coroutine recursion", `
local function f(n) return coroutine.wrap(function() return f(n + 1) end)() end
print(pcall(f, 0))
local function g(n)
  local ok, err = coroutine.resume(coroutine.create(g), n + 1)
  if not ok then error(err, 0) end
end
print(pcall(g, 0))
local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
print(co(1), co(10))
local c2 = coroutine.create(function(x) coroutine.yield(x) error("boom", 0) end)
print(coroutine.resume(c2, 5))
print(coroutine.resume(c2))
print(coroutine.resume(c2))
-- The guard's count unwinds: after all that, deep-but-allowed nesting works.
local function h(n) if n == 0 then return "deep" end return coroutine.wrap(function() return h(n - 1) end)() end
print(h(400))
`)
	wantLines(t, e.lines(),
		"false\ttest.lua:2: coroutines nested more than 500 deep",
		"false\ttest.lua:5: coroutines nested more than 500 deep",
		"2\t20",
		"true\t5",
		"false\tboom",
		"false\tcan not resume a dead thread",
		"deep")
}

// TestHookOptionsAreChecked: a list of tools with named keys, and a
// dedup_key that is not a string, are errors rather than silently dropped.
func TestHookOptionsAreChecked(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`before(function() end, {"read_file", nmae = "x"})`)
	wantContains(t, err.Error(), "test.lua:1:", `before: tools: table mixes string keys with array items; use either keys 1..n (an array) or string keys (an object)`)
	err = e.runErr(`invoke_tool("x", {}, {dedup_key = 5})`)
	wantContains(t, err.Error(), "invoke_tool: dedup_key got an int, want a string")
}

// TestRequireCycleToEntryFile: a module that requires the file being run
// is a cycle, reported without running the entry file a second time.
func TestRequireCycleToEntryFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.lua":   `print("main runs") require("helper")`,
		"helper.lua": `require("main")`,
	})
	e := newEnv(t, Options{})
	_, err := e.in.ExecFile(context.Background(), filepath.Join(dir, "main.lua"))
	if err == nil {
		t.Fatal("no error for a require cycle")
	}
	wantContains(t, err.Error(), `require "main": cycle in require graph`)
	wantLines(t, e.lines(), "main runs")
	// Afterwards the entry file is not stuck as loading.
	e.out.Reset()
	if err := os.WriteFile(filepath.Join(dir, "helper.lua"), []byte(`return 1`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.in.ExecFile(context.Background(), filepath.Join(dir, "main.lua")); err != nil {
		t.Fatalf("after fixing the cycle: %v", err)
	}
}

// TestClosedInterpRunsNothing: after Close, top-level runs and REPL input
// are refused instead of running and registering tools that cannot run.
func TestClosedInterpRunsNothing(t *testing.T) {
	e := newEnv(t, Options{})
	e.in.Close()
	if _, err := e.in.ExecSource(context.Background(), "x.lua", []byte(`tool{name = "t", fn = function() end}`)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("ExecSource after Close: %v", err)
	}
	if _, err := e.in.Exec(context.Background(), "<stdin>", `1`); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Exec after Close: %v", err)
	}
	if e.ex.Registry().GetTool("t") != nil {
		t.Error("a closed interpreter registered a tool")
	}
}

// TestSelfContainingTableMessage: a table that contains itself is named
// where it first comes back, in a short message.
func TestSelfContainingTableMessage(t *testing.T) {
	e := newEnv(t, Options{})
	err := e.runErr(`local t = {} t.self = t json.encode(t)`)
	if len(err.Error()) > 300 {
		t.Errorf("message is %d bytes long: %.200s…", len(err.Error()), err)
	}
	wantContains(t, err.Error(), `json.encode: value at ["self"] contains itself, which JSON cannot represent`)
}

// TestHookNameAfterLoop: a local function declared after a for loop (where
// gopher-lua misnumbers locals) is still named after its local.
func TestHookNameAfterLoop(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local FILES = {a = 1, b = 2}
for path in pairs(FILES) do end
for i = 1, 2 do end
local function writes_in_src(call) return deny("no") end
before(writes_in_src)
print(invoke_tool("x").error)
`)
	wantLines(t, e.lines(), `rejected by "writes_in_src": no`)
}
