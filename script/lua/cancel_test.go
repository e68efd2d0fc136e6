package lua

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/script"
)

// TestTimeoutStopsLuaLoop: timeout middleware stops a Lua tool's infinite
// loop, plain and tail-recursive.
func TestTimeoutStopsLuaLoop(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "spin", fn = function() while true do end end}
tool{name = "tail", fn = function()
  local function loop(n) return loop(n + 1) end
  return loop(0)
end}
tool{name = "quick", fn = function() return "still works" end}
middleware(timeout("50ms"), {tools = {"spin", "tail"}})
`)
	for _, name := range []string{"spin", "tail"} {
		res := e.invokeBounded(name, `{}`)
		wantKind(t, res, core.KindTimeout)
		wantContains(t, res.Err.Error(), name+" timed out", "deadline exceeded")
	}
	// The interpreter is usable afterwards.
	if res := e.invokeBounded("quick", `{}`); res.ForLLM != "still works" {
		t.Fatalf("after a timeout: %+v", res)
	}
}

// TestCancelStopsLuaTool: cancelling the call's context stops a Lua tool
// (kind canceled) and a Lua before hook.
func TestCancelStopsLuaTool(t *testing.T) {
	e := newEnv(t, Options{})
	started := make(chan struct{}, 2)
	e.goTool("started", nil, func(ctx context.Context, _ map[string]any) (any, error) {
		started <- struct{}{}
		return "", nil
	})
	e.run(`
tool{name = "spin", fn = function() invoke_tool("started") while true do end end}
tool{name = "guarded", fn = function() return "ran" end}
before(function(call) invoke_tool("started") while true do end end, {tools = "guarded", name = "stuck_hook"})
after(function(call, r) state.incr("after_" .. call.name) end)
`)
	for _, name := range []string{"spin", "guarded"} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-started:
			case <-time.After(watchdog):
			}
			cancel()
		}()
		var res *core.Result
		bounded(t, name, func() { res, _ = e.ex.InvokeTool(ctx, name, nil) })
		wantKind(t, res, core.KindCanceled)
		wantContains(t, res.Err.Error(), "canceled")
		// After hooks still ran, with a context that was not cancelled.
		if v, _ := e.ex.Session().Get("after_" + name); v != int64(1) {
			t.Errorf("after hook for %s ran %v times", name, v)
		}
	}

	// A deadline on the call: the hook's loop ends with timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	go func() {
		select {
		case <-started:
		case <-time.After(watchdog):
		}
	}()
	var res *core.Result
	bounded(t, "hook deadline", func() { res, _ = e.ex.InvokeTool(ctx, "guarded", nil) })
	wantKind(t, res, core.KindTimeout)
}

// TestCancelTopLevel: ExecSource, Exec and EvalChunk stop when their
// context ends, with an error that errors.Is the context's error; a
// context that has already ended runs nothing.
func TestCancelTopLevel(t *testing.T) {
	e := newEnv(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.in.ExecSource(ctx, "test.lua", []byte(`print("ran")`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	if out := e.out.String(); out != "" {
		t.Errorf("a cancelled run printed %q", out)
	}

	for _, src := range []string{`while true do end`, `local function f() return f() end f()`, `print("before") repeat until false`} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		var err error
		bounded(t, src, func() { _, err = e.in.ExecSource(ctx, "test.lua", []byte(src)) })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want a deadline error", src, err)
		}
		var le *script.Error
		if !errors.As(err, &le) || le.Pos() != "test.lua:1" {
			t.Errorf("%s: %#v, want an *script.Error at test.lua:1", src, err)
		}
	}

	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	bounded(t, "Exec", func() { _, err = e.in.Exec(ctx, "<stdin>", `while true do end`) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Exec: %v", err)
	}
	// The interpreter is usable afterwards.
	if out, err := e.in.Exec(context.Background(), "<stdin>", `1 + 1`); out != "2" || err != nil {
		t.Errorf("after: %q, %v", out, err)
	}
}

// TestLockWaitGivesUp: a call waiting for the interpreter lock, held by a
// busy Lua tool, gives up when its context ends.
func TestLockWaitGivesUp(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "busy", fn = function()
  state.set("busy", true)
  while not state.get("stop") do end
  return "done"
end}
tool{name = "quick", fn = function() return "quick" end}
`)
	t.Cleanup(func() { e.ex.Session().Set("stop", true) }) // runs before Close
	busy := make(chan *core.Result, 1)
	go func() { busy <- e.invoke("busy", `{}`) }()
	testwait.Until(t, "the busy tool to start", func() bool {
		v, _ := e.ex.Session().Get("busy")
		return v == true
	})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var res *core.Result
	bounded(t, "waiting call", func() { res, _ = e.ex.InvokeTool(ctx, "quick", nil) })
	wantKind(t, res, core.KindTimeout)
	wantContains(t, res.Err.Error(), "waiting for the Lua interpreter")

	var err error
	bounded(t, "waiting ExecSource", func() { _, err = e.in.ExecSource(ctx, "test.lua", []byte(`print("never")`)) })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for the Lua interpreter") {
		t.Errorf("ExecSource: %v", err)
	}

	e.ex.Session().Set("stop", true)
	select {
	case res := <-busy:
		if res.ForLLM != "done" {
			t.Errorf("busy: %+v", res)
		}
	case <-time.After(watchdog):
		t.Fatal("busy tool never stopped")
	}
	if strings.Contains(e.out.String(), "never") {
		t.Error("a run that gave up ran anyway")
	}
}

// TestStackLimits: runaway recursion and huge pushes end with a clear
// error instead of crashing.
func TestStackLimits(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{`local function f(n) return 1 + f(n + 1) end f(1)`, "stack overflow"},
		{`local function f() local ok, e = pcall(f) if not ok then error(e, 0) end end f()`, "stack overflow"},
		{`local t = setmetatable({}, {__index = function(t, k) return t[k] end}) print(t.x)`, "stack overflow"},
		{`local t = setmetatable({}, {__tostring = function(t) return tostring(t) end}) print(tostring(t))`, "stack overflow"},
		{`local t = {} for i = 1, 300000 do t[i] = i end print(select("#", unpack(t)))`, "registry overflow"},
		{`print(select("#", string.byte(string.rep("x", 1000000), 1, -1)))`, "registry overflow"},
	} {
		var err error
		bounded(t, tc.src, func() { err = e.exec(tc.src) })
		if err == nil {
			t.Errorf("%s: no error", tc.src)
			continue
		}
		wantContains(t, err.Error(), "test.lua:1", tc.want)
	}
	// Inside a tool: a failed result, and the interpreter still works.
	e.run(`
tool{name = "deep", fn = function() local function f() return 1 + f() end return f() end}
tool{name = "wide", fn = function() local t = {} for i = 1, 300000 do t[i] = i end return select("#", unpack(t)) end}
`)
	for _, name := range []string{"deep", "wide"} {
		res := e.invokeBounded(name, `{}`)
		wantKind(t, res, core.KindFailed)
		wantContains(t, res.Err.Error(), "overflow")
	}
	e.out.Reset()
	e.run(`local t = {} for i = 1, 1000 do t[i] = i end print(select("#", unpack(t)))`)
	wantLines(t, e.lines(), "1000")
}

// TestUnpackGrowsTheStackInLargeSteps: filling the value stack grows it
// in large steps, so unpacking 250000 values copies the stack a few dozen
// times. gopher-lua's default step of 32 slots copied it thousands of
// times — gigabytes, seconds of work deaf to the context.
// BenchmarkUnpack measures the time.
func TestUnpackGrowsTheStackInLargeSteps(t *testing.T) {
	e := newEnv(t, Options{})
	const src = `local t = {} for i = 1, 250000 do t[i] = i end print(select("#", unpack(t)))`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bounded(t, "unpack", func() {
		if _, err := e.in.ExecSource(context.Background(), "test.lua", []byte(src)); err != nil {
			t.Errorf("unpack: %v", err)
		}
	})
	runtime.ReadMemStats(&after)
	wantLines(t, e.lines(), "250000")
	// Steps of 4096 slots copy about n²/8192 slots of 16 bytes in all
	// (120 MB); steps of 32 copy 128 times as much.
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<30 {
		t.Errorf("unpacking 250000 values allocated %d MB, want well under 1024: the stack grows in small steps", got>>20)
	}
}
