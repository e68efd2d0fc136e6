package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script/starlark"
)

// TestNestedLuaTools: a Lua tool that invokes other Lua tools of the same
// script, alone and through invoke_all, never deadlocks, in every mode.
func TestNestedLuaTools(t *testing.T) {
	for _, mode := range []string{"serial", "parallel", "mixed"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, Options{})
			e.runBounded("define", `
MODE = `+q(mode)+`
tool{name = "leaf", concurrency_safe = true, fn = function(args) return "L" .. args.i end}
tool{name = "mid", concurrency_safe = true, fn = function(args)
  local r = invoke_tool("leaf", {i = args.i})
  local rs = invoke_all({{"leaf", {i = args.i * 10}}, {name = "leaf", args = {i = args.i * 10 + 1}}}, {mode = MODE})
  return r.output .. "+" .. rs[1].output .. "+" .. rs[2].output
end}
tool{name = "top", fn = function(args)
  local calls = {}
  for i = 1, args.n do calls[i] = {"mid", {i = i}} end
  local out = {}
  for i, r in ipairs(invoke_all(calls, {mode = MODE})) do
    if not r.ok then error(r.error) end
    out[i] = r.output
  end
  return table.concat(out, " ")
end}
print(invoke_tool("top", {n = 6}).output)
`)
			want := "L1+L10+L11 L2+L20+L21 L3+L30+L31 L4+L40+L41 L5+L50+L51 L6+L60+L61"
			wantLines(t, e.lines(), want)

			// The same from Go, several batches at once.
			m, _ := executor.ParseMode(mode)
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			bounded(t, "batches from Go", func() {
				for g := 0; g < 4; g++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						calls := []core.Call{{Name: "top", Args: json.RawMessage(`{"n":6}`)}, {Name: "mid", Args: json.RawMessage(`{"i":7}`)}}
						rs := e.ex.ExecuteAll(context.Background(), calls, executor.InMode(m))
						if rs[0].ForLLM != want || rs[1].ForLLM != "L7+L70+L71" {
							errs <- fmt.Errorf("got %q, %q (%v, %v)", rs[0].ForLLM, rs[1].ForLLM, rs[0].Err, rs[1].Err)
						}
					}()
				}
				wg.Wait()
			})
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestParallelLuaToolsWaitInHost: the interpreter lock is released while
// a Lua tool (or Lua middleware) waits in the host, so a parallel batch of
// Lua tools can all be waiting in a Go tool at once. The Go tool's gate
// opens only when every call has arrived.
func TestParallelLuaToolsWaitInHost(t *testing.T) {
	const n = 12
	e := newEnv(t, Options{})
	g := newGate(n)
	e.goTool("meet", core.Bool(true), func(ctx context.Context, args map[string]any) (any, error) {
		return "met", g.Wait(ctx)
	})
	e.runBounded("parallel", `
tool{name = "worker", concurrency_safe = true, fn = function(args)
  local r = invoke_tool("meet")
  if not r.ok then error(r.error) end
  return "w" .. args.i
end}
tool{name = "direct", concurrency_safe = true, fn = function(args) return "d" .. args.i end}
middleware(function(call, next)
  local r = next(call)
  if call.name == "direct" then invoke_tool("meet") end
  return r
end, {tools = {"direct"}})
local calls = {}
for i = 1, `+strconv.Itoa(n)+` do calls[i] = {"worker", {i = i}} end
local out = {}
for i, r in ipairs(invoke_all(calls, {mode = "parallel"})) do out[i] = r.output end
print(table.concat(out, ","))
for i = 1, `+strconv.Itoa(n)+` do calls[i] = {"direct", {i = i}} end
out = {}
for i, r in ipairs(invoke_all(calls, {mode = "mixed"})) do out[i] = r.output end
print(table.concat(out, ","))
`)
	var w, d []string
	for i := 1; i <= n; i++ {
		w = append(w, "w"+strconv.Itoa(i))
		d = append(d, "d"+strconv.Itoa(i))
	}
	wantLines(t, e.lines(), strings.Join(w, ","), strings.Join(d, ","))
}

// TestLuaHookCallsInvokeTool: a Lua before hook that itself invokes a Lua
// tool, for calls from Go (one and in parallel batches) and for the
// script's own top-level invoke_tool.
func TestLuaHookCallsInvokeTool(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("define", `
tool{name = "checker", concurrency_safe = true, fn = function(args)
  if string.find(args.path, "secret") then return "no: " .. args.path end
  return "ok"
end}
tool{name = "read", concurrency_safe = true, fn = function(args) return "read " .. args.path end}
before(function(call)
  local r = invoke_tool("checker", {path = call.args.path})
  if r.output ~= "ok" then return deny(r.output) end
end, "read")
after(function(call, r)
  if call.name == "read" then state.incr("audited") end
end)
print(invoke_tool("read", {path = "a.txt"}).output)
print(invoke_tool("read", {path = "secret.txt"}).error)
`)
	wantLines(t, e.lines(), "read a.txt", `rejected by "function@test.lua:7": no: secret.txt`)
	if res := e.invokeBounded("read", `{"path":"b"}`); res.ForLLM != "read b" {
		t.Fatalf("from Go: %+v", res)
	}
	const n = 40
	calls := make([]core.Call, n)
	for i := range calls {
		p := fmt.Sprintf("f%d", i)
		if i%4 == 0 {
			p = fmt.Sprintf("secret%d", i)
		}
		calls[i] = core.Call{Name: "read", Args: json.RawMessage(`{"path":` + q(p) + `}`)}
	}
	var rs []*core.Result
	bounded(t, "parallel batch", func() { rs = e.ex.ExecuteAll(context.Background(), calls, executor.InMode(executor.ModeParallel)) })
	for i, r := range rs {
		if i%4 == 0 {
			if r.Kind() != core.KindRejected || !strings.HasSuffix(r.Err.Error(), fmt.Sprintf("no: secret%d", i)) {
				t.Errorf("call %d: %v", i, r.Err)
			}
		} else if r.ForLLM != fmt.Sprintf("read f%d", i) {
			t.Errorf("call %d: %q, %v", i, r.ForLLM, r.Err)
		}
	}
	if v, _ := e.ex.Session().Get("audited"); v != int64(n+3) {
		t.Errorf("after hook ran %v times, want %d", v, n+3)
	}
}

// TestLuaStarlarkNesting: Lua and Starlark on one host call each other's
// tools, and each one's hooks apply to the other's tools, without
// deadlock, also in parallel.
func TestLuaStarlarkNesting(t *testing.T) {
	e := newEnv(t, Options{})
	st := starlark.New(e.host, starlark.Options{})
	if _, err := st.ExecSource(context.Background(), "test.star", []byte(`
def star_leaf(args):
    return "S(" + args["x"] + ")"
tool(name = "star_leaf", fn = star_leaf, concurrency_safe = True)
def star_calls_lua(args):
    r = invoke_tool("lua_leaf", {"x": args["x"]})
    if not r.ok:
        fail(r.error)
    return "S[" + r.output + "]"
tool(name = "star_calls_lua", fn = star_calls_lua, concurrency_safe = True)
def star_guard(call):
    if call.args.get("x") == "blocked-by-star":
        return deny("starlark says no")
    if call.args.get("x") == "probe":
        return None
    r = invoke_tool("lua_leaf", {"x": "probe"})
    if r.output != "L(probe)":
        return deny("probe failed: " + r.output)
    return None
before(star_guard, tools = ["lua_*"])
`)); err != nil {
		t.Fatal(err)
	}
	e.runBounded("define", `
tool{name = "lua_leaf", concurrency_safe = true, fn = function(args) return "L(" .. args.x .. ")" end}
tool{name = "lua_calls_star", concurrency_safe = true, fn = function(args)
  local r = invoke_tool("star_calls_lua", {x = args.x})
  if not r.ok then error(r.error) end
  return "L[" .. r.output .. "]"
end}
before(function(call)
  if call.args.x == "blocked-by-lua" then return deny("lua says no") end
  if call.args.x == "p" then return nil end
  if invoke_tool("star_leaf", {x = "p"}).output ~= "S(p)" then return deny("probe failed") end
end, {tools = {"star_*"}, name = "lua_guard"})
print(invoke_tool("lua_calls_star", {x = "a"}).output)
print(invoke_tool("star_calls_lua", {x = "b"}).output)
print(invoke_tool("lua_leaf", {x = "blocked-by-star"}).error)
print(invoke_tool("star_leaf", {x = "blocked-by-lua"}).error)
`)
	wantLines(t, e.lines(),
		"L[S[L(a)]]",
		"S[L(b)]",
		`rejected by "star_guard": starlark says no`,
		`rejected by "lua_guard": lua says no`,
	)

	const n = 32
	calls := make([]core.Call, n)
	for i := range calls {
		name := []string{"lua_calls_star", "star_calls_lua", "lua_leaf", "star_leaf"}[i%4]
		calls[i] = core.Call{Name: name, Args: json.RawMessage(fmt.Sprintf(`{"x":"%d"}`, i))}
	}
	for _, mode := range []executor.Mode{executor.ModeSerial, executor.ModeParallel, executor.ModeMixed} {
		var rs []*core.Result
		bounded(t, "batch "+mode.String(), func() { rs = e.ex.ExecuteAll(context.Background(), calls, executor.InMode(mode)) })
		for i, r := range rs {
			want := []string{"L[S[L(%d)]]", "S[L(%d)]", "L(%d)", "S(%d)"}[i%4]
			if r.ForLLM != fmt.Sprintf(want, i) {
				t.Errorf("%v call %d: %q, %v", mode, i, r.ForLLM, r.Err)
			}
		}
	}
}

// TestParallelExecuteAllLuaTool: many goroutines run parallel batches of
// Lua tool calls; no result is lost, duplicated or out of order.
func TestParallelExecuteAllLuaTool(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
tool{name = "id", concurrency_safe = true, fn = function(args)
  local parts = {}
  for i = 1, args.i % 5 do parts[i] = tostring(i) end
  return args.g .. ":" .. args.i .. ":" .. table.concat(parts, "")
end}
`)
	const goroutines, per = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*per)
	bounded(t, "concurrent batches", func() {
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				calls := make([]core.Call, per)
				for i := range calls {
					calls[i] = core.Call{Name: "id", Args: json.RawMessage(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))}
				}
				rs := e.ex.ExecuteAll(context.Background(), calls, executor.InMode(executor.ModeParallel))
				if len(rs) != per {
					errs <- fmt.Errorf("goroutine %d: %d results, want %d", g, len(rs), per)
					return
				}
				seen := map[string]bool{}
				for i, r := range rs {
					want := fmt.Sprintf("%d:%d:%s", g, i, "1234"[:i%5])
					if r.ForLLM != want || seen[r.CallID] {
						errs <- fmt.Errorf("goroutine %d call %d: %q (id %s), %v; want %q", g, i, r.ForLLM, r.CallID, r.Err, want)
					}
					seen[r.CallID] = true
				}
			}(g)
		}
		wg.Wait()
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStateIncrFromParallelLua: state.incr is exact across 64 parallel Lua
// calls.
func TestStateIncrFromParallelLua(t *testing.T) {
	e := newEnv(t, Options{})
	e.runBounded("incr", `
tool{name = "bump", concurrency_safe = true, fn = function(args)
  state.incr("hits")
  state.incr("weighted", args.i)
  return ""
end}
local calls = {}
for i = 1, 64 do calls[i] = {"bump", {i = i}} end
invoke_all(calls, {mode = "parallel"})
print(state.get("hits"), state.get("weighted"))
`)
	wantLines(t, e.lines(), "64\t2080")
	calls := make([]core.Call, 64)
	for i := range calls {
		calls[i] = core.Call{Name: "bump", Args: json.RawMessage(`{"i":1}`)}
	}
	bounded(t, "from Go", func() { e.ex.ExecuteAll(context.Background(), calls, executor.InMode(executor.ModeParallel)) })
	if v, _ := e.ex.Session().Get("hits"); v != int64(128) {
		t.Errorf("hits = %v, want 128", v)
	}
}

// TestUpvalueCounterParallel: Lua functions are not frozen; state kept in
// upvalues and globals stays consistent under parallel calls because Lua
// code runs under the interpreter lock.
func TestUpvalueCounterParallel(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
local count = 0
local seen = {}
total = 0
tool{name = "count", concurrency_safe = true, fn = function(args)
  count = count + 1
  total = total + args.i
  seen[#seen + 1] = args.i
  return tostring(count)
end}
tool{name = "report", fn = function()
  local dup, have = 0, {}
  for _, i in ipairs(seen) do
    if have[i] then dup = dup + 1 end
    have[i] = true
  end
  return count .. " " .. total .. " " .. #seen .. " " .. dup
end}
`)
	const goroutines, per = 8, 8
	var wg sync.WaitGroup
	outs := make(chan string, goroutines*per)
	bounded(t, "parallel counters", func() {
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				calls := make([]core.Call, per)
				for i := range calls {
					calls[i] = core.Call{Name: "count", Args: json.RawMessage(fmt.Sprintf(`{"i":%d}`, g*per+i+1))}
				}
				for _, r := range e.ex.ExecuteAll(context.Background(), calls, executor.InMode(executor.ModeParallel)) {
					outs <- r.ForLLM
				}
			}(g)
		}
		wg.Wait()
	})
	close(outs)
	got := map[string]bool{}
	for o := range outs {
		if got[o] {
			t.Errorf("two calls saw count %s", o)
		}
		got[o] = true
	}
	if len(got) != 64 || !got["1"] || !got["64"] {
		t.Errorf("counts seen: %d distinct", len(got))
	}
	if res := e.invoke("report", `{}`); res.ForLLM != "64 2080 64 0" {
		t.Errorf("report = %q, %v", res.ForLLM, res.Err)
	}
}
