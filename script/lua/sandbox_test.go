package lua

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRunSandboxedPrints(t *testing.T) {
	out, err := RunSandboxed(context.Background(), `print("hi", 1 + 2) print(string.upper("x"), math.floor(2.5), #table.concat({"a","b"}))`, 0)
	if err != nil || out != "hi\t3\nX\t2\t2\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}

// Every removed function fails clearly; the io, os and debug libraries
// are absent.
func TestRunSandboxedRemovesDangerousGlobals(t *testing.T) {
	for _, name := range removedGlobals {
		_, err := RunSandboxed(context.Background(), name+`("/etc/passwd")`, 0)
		if err == nil || !strings.Contains(err.Error(), name+" is not available in the agentsh sandbox") {
			t.Errorf("calling %s: %v", name, err)
		}
	}
	for _, name := range []string{"io", "os", "debug", "package"} {
		out, err := RunSandboxed(context.Background(), `print(type(`+name+`))`, 0)
		if err != nil || out != "nil\n" {
			t.Errorf("%s: got %q, %v; want nil", name, out, err)
		}
	}
}

func TestRunSandboxedStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	out, err := RunSandboxed(ctx, `print("before") while true do end`, 0)
	if !errors.Is(err, context.DeadlineExceeded) || out != "before\n" {
		t.Fatalf("runaway loop: %q, %v", out, err)
	}
	_, err = RunSandboxed(context.Background(), `local function f() return f() + 1 end f()`, 0)
	if err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Errorf("unbounded recursion: %v", err)
	}
	_, err = RunSandboxed(context.Background(), `error("boom")`, 0)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error(): %v", err)
	}
	_, err = RunSandboxed(context.Background(), `print(`, 0)
	if err == nil {
		t.Error("syntax error accepted")
	}
}

// TestRunSandboxedHasNoAPI: run_code's Lua sees neither the agentsh API
// nor require, and its output is bounded.
func TestRunSandboxedHasNoAPI(t *testing.T) {
	out, err := RunSandboxed(context.Background(), `print(type(tool), type(invoke_tool), type(json), type(state), type(agentsh))`, 0)
	if err != nil || out != "nil\tnil\tnil\tnil\tnil\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	_, err = RunSandboxed(context.Background(), `require("json")`, 0)
	if err == nil || !strings.Contains(err.Error(), "require is not available in the agentsh sandbox") {
		t.Errorf("require: %v", err)
	}
	out, err = RunSandboxed(context.Background(), `for i = 1, 3000 do print(string.rep("x", 999)) end`, 0)
	if err != nil || len(out) > maxOutput+1000 || len(out) < maxOutput {
		t.Errorf("output of 3000000 bytes kept %d bytes (%v), want about %d", len(out), err, maxOutput)
	}
}

// TestInterpSandbox: scripts run by an Interp get the same sandbox, plus
// os with only time, clock and date.
func TestInterpSandbox(t *testing.T) {
	e := newEnv(t, Options{})
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "collectgarbage", "module", "newproxy", "getfenv", "setfenv", "_printregs"} {
		err := e.runErr(name + `("x")`)
		wantContains(t, err.Error(), "test.lua:1: "+name+" is not available in the agentsh sandbox")
		// pcall sees the same message.
		e.out.Reset()
		e.run(`print(pcall(` + name + `, "x"))`)
		wantContains(t, e.out.String(), "false\ttest.lua:1: "+name+" is not available in the agentsh sandbox")
	}
	e.out.Reset()
	e.run(`
print(type(io), type(debug), type(package), type(_GOPHER_LUA_VERSION))
for _, f in ipairs({"execute", "exit", "getenv", "remove", "rename", "tmpname", "setenv", "setlocale"}) do
  if os[f] ~= nil then print("os." .. f .. " is present") end
end
print(type(os.time), type(os.clock), type(os.date), type(os.clock()))
print(type(string), type(table), type(math), type(coroutine), type(require))
`)
	wantLines(t, e.lines(), "nil\tnil\tnil\tnil", "function\tfunction\tfunction\tnumber", "table\ttable\ttable\ttable\tfunction")
}

// TestOSClock: os.time() and os.date() read Options.Now; explicit times
// still work.
func TestOSClock(t *testing.T) {
	now := time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)
	e := newEnv(t, Options{Now: func() time.Time { return now }})
	e.run(`
print(os.time())
print(os.date("!%Y-%m-%dT%H:%M:%S"))
print(os.date("!%Y-%m-%d", 0))
local t = os.date("!*t")
print(t.year, t.month, t.day, t.hour)
print(type(os.time{year = 2020, month = 1, day = 1, hour = 12}))
print(os.date("!%H:%M", os.time()))
`)
	wantLines(t, e.lines(), "1700000000", "2023-11-14T22:13:20", "1970-01-01", "2023\t11\t14\t22", "number", "22:13")
}

// TestPrintGoesToHost: print writes one tab-separated line to the host's
// output, from top level and from tools on other goroutines; values are
// shown by their tostring.
func TestPrintGoesToHost(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
print("a", 1, 2.5, nil, true)
print()
print(agentsh.null, deny("r"), time.second)
tool{name = "p", fn = function(args) print("from tool", args.n) return "" end}
`)
	e.invoke("p", `{"n":7}`)
	wantLines(t, e.lines(), "a\t1\t2.5\tnil\ttrue", "", "null\tdeny(\"r\")\t1s", "from tool\t7")
}

// TestCoroutines: the coroutine library works, also inside tools, and
// across invoke_tool inside a coroutine.
func TestCoroutines(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("coroutines", `
local function gen(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
end
local s = 0
for v in gen(4) do s = s + v end
print(s)
tool{name = "inner", fn = function(args) return "inner " .. args.x end}
tool{name = "outer", fn = function(args)
  local co = coroutine.create(function(a)
    local r = invoke_tool("inner", {x = a})
    local b = coroutine.yield(r.output)
    return b .. "!"
  end)
  local _, first = coroutine.resume(co, args.x)
  local _, second = coroutine.resume(co, "done")
  return first .. " / " .. second .. " / " .. coroutine.status(co)
end}
print(invoke_tool("outer", {x = "y"}).output)
`)
	wantLines(t, e.lines(), "10", "inner y / done! / dead")
}
