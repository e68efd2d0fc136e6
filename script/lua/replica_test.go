package lua

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
	lua "github.com/yuin/gopher-lua"
)

// keep runs src as test.lua and keeps its globals for fn.
func (e *env) keep(src string) {
	e.t.Helper()
	g, err := e.in.ExecSource(context.Background(), "test.lua", []byte(src))
	if err != nil {
		e.t.Fatalf("script failed: %s", detail(err))
	}
	e.globals = append(e.globals, g)
}

// fn returns the global function name of a file run with keep.
func (e *env) fn(name string) *luaFunc {
	e.t.Helper()
	e.in.lock()
	defer e.in.release()
	for _, g := range e.globals {
		if f, ok := g.env.RawGetString(name).(*lua.LFunction); ok {
			return &luaFunc{in: e.in, fn: f, name: name}
		}
	}
	e.t.Fatalf("no global function %s", name)
	return nil
}

// verdictWhy returns why the global function name stays on the main
// state, "" when it may run on replicas, "unknown" before its first call.
func (e *env) verdictWhy(name string) string {
	e.t.Helper()
	f := e.fn(name)
	e.in.lock()
	defer e.in.release()
	v := e.in.verdicts[f.fn]
	if v == nil {
		return "unknown"
	}
	return v.why
}

func parallelBatch(e *env, name string, args []string) []*core.Result {
	calls := make([]core.Call, len(args))
	for i, a := range args {
		calls[i] = core.Call{Name: name, Args: json.RawMessage(a)}
	}
	var rs []*core.Result
	bounded(e.t.(*testing.T), "batch of "+name, func() {
		rs = e.ex.ExecuteAll(context.Background(), calls, executor.InMode(executor.ModeParallel))
	})
	return rs
}

// TestReplicaResults: busy calls that run on replicas, from several
// batches at once, each come back once, in order, with their own
// arguments; and they did run on replicas.
func TestReplicaResults(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
local PREFIX = "r"
local function square(n) return n * n end
function busy(args)
  local s = 0
  for i = 1, 200 + args.i do s = s + i end
  local parts = {}
  for i = 1, args.i % 4 do parts[i] = tostring(i) end
  return PREFIX .. args.g .. ":" .. args.i .. ":" .. square(args.i) .. ":" .. s .. ":" .. table.concat(parts)
end
tool{name = "busy", concurrency_safe = true, fn = busy}
`)
	const goroutines, per = 4, 64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*per)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			args := make([]string, per)
			for i := range args {
				args[i] = fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)
			}
			rs := parallelBatch(e, "busy", args)
			if len(rs) != per {
				errs <- fmt.Errorf("batch %d: %d results, want %d", g, len(rs), per)
				return
			}
			for i, r := range rs {
				n := 200 + i
				want := fmt.Sprintf("r%d:%d:%d:%d:%s", g, i, i*i, n*(n+1)/2, "123"[:i%4])
				if r.ForLLM != want {
					errs <- fmt.Errorf("batch %d call %d: got %q (%v), want %q", g, i, r.ForLLM, r.Err, want)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if why := e.verdictWhy("busy"); why != "" {
		t.Errorf("busy stays on the main state: %s", why)
	}
	e.in.pool.mu.Lock()
	made := e.in.pool.made
	e.in.pool.mu.Unlock()
	if made == 0 {
		t.Error("no replica was made")
	}
}

// TestReplicaSharingAssignments: a function that assigns an upvalue or a
// global it shares with the script runs on the main state, so counts in
// upvalues and globals stay exact under parallel calls.
func TestReplicaSharingAssignments(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
local count = 0
hits = 0
function up() count = count + 1; return tostring(count) end
function glob() hits = hits + 1; return tostring(hits) end
function nested()
  local inc = function() count = count + 1 end -- a closure passing the upvalue on
  inc()
  return "ok"
end
function own(args)
  local n = 0
  local function inc() n = n + 1 end -- a local of the call: its own
  for i = 1, args.k do inc() end
  return tostring(n)
end
for _, name in ipairs({"up", "glob", "nested", "own"}) do
  tool{name = name, concurrency_safe = true, fn = _G[name]}
end
tool{name = "report", fn = function() return count .. " " .. hits end}
`)
	args := make([]string, 64)
	for i := range args {
		args[i] = fmt.Sprintf(`{"k":%d}`, i)
	}
	for _, name := range []string{"up", "glob", "nested"} {
		seen := map[string]bool{}
		for _, r := range parallelBatch(e, name, args) {
			if !r.OK() || (name != "nested" && seen[r.ForLLM]) {
				t.Errorf("%s: %q, %v (seen before: %v)", name, r.ForLLM, r.Err, seen[r.ForLLM])
			}
			seen[r.ForLLM] = true
		}
	}
	if res := e.invoke("report", `{}`); res.ForLLM != "128 64" {
		t.Errorf("report = %q, want 128 64 (%v)", res.ForLLM, res.Err)
	}
	for tool, want := range map[string]string{
		"up":     "it assigns the upvalue count (line 4)",
		"glob":   "it assigns the global hits (line 5)",
		"nested": "it assigns the upvalue count (line 7)",
		"own":    "",
	} {
		if tool == "own" {
			for i, r := range parallelBatch(e, "own", args) {
				if r.ForLLM != fmt.Sprint(i) {
					t.Errorf("own %d: %q, %v", i, r.ForLLM, r.Err)
				}
			}
		}
		if got := e.verdictWhy(tool); got != want {
			t.Errorf("%s: verdict %q, want %q", tool, got, want)
		}
	}
}

// TestReplicaSeesMainChanges: what a parallel function reads (an upvalue,
// a global, a table) is what the main state holds, also when the main
// state changed it meanwhile, and also during the call, after it came
// back from the host.
func TestReplicaSeesMainChanges(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
local limit = 1
local cfg = {name = "a"}
label = "x"
function read()
  return limit .. cfg.name .. label
end
tool{name = "read", concurrency_safe = true, fn = read}
tool{name = "set", fn = function(args)
  limit = args.limit; cfg.name = args.name; label = args.label
  return "set"
end}
tool{name = "around", concurrency_safe = true, fn = function(args)
  local before = limit .. cfg.name .. label
  invoke_tool("set", args)
  return before .. ">" .. limit .. cfg.name .. label
end}
`)
	check := func(want string) {
		t.Helper()
		for i, r := range parallelBatch(e, "read", []string{`{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`, `{}`}) {
			if r.ForLLM != want {
				t.Errorf("read %d: %q, want %q (%v)", i, r.ForLLM, want, r.Err)
			}
		}
	}
	check("1ax")
	e.invoke("set", `{"limit":2,"name":"b","label":"y"}`)
	check("2by")
	if why := e.verdictWhy("read"); why != "" {
		t.Errorf("read stays on the main state: %s", why)
	}
	for i := 3; i < 6; i++ {
		res := e.invoke("around", fmt.Sprintf(`{"limit":%d,"name":"c","label":"z"}`, i))
		want := fmt.Sprintf("%d%s>%dcz", i-1, map[bool]string{true: "by", false: "cz"}[i == 3], i)
		if res.ForLLM != want {
			t.Errorf("around: %q, want %q (%v)", res.ForLLM, want, res.Err)
		}
	}
	e.run(`invoke_tool("set", {limit = 6, name = "d", label = "top"})`) // from top-level code
	check("6dtop")
}

// TestReplicaTableChanges: a function that changes a table it reaches is
// caught: on its first call (on the main state) it is kept there, and its
// change is kept; when a later call on a replica changes one, that call
// fails saying to use the state module, and the function stays on the
// main state from then on.
func TestReplicaTableChanges(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
local seen = {}
local rare = {n = 0}
function record(args)
  seen[#seen + 1] = args.i
  return tostring(#seen)
end
function sometimes(args)
  if args.i == 2 then rare.n = rare.n + 1 end
  return tostring(rare.n)
end
tool{name = "record", concurrency_safe = true, fn = record}
tool{name = "sometimes", concurrency_safe = true, fn = sometimes}
`)
	args := make([]string, 64)
	for i := range args {
		args[i] = fmt.Sprintf(`{"i":%d}`, i)
	}
	got := map[string]bool{}
	for _, r := range parallelBatch(e, "record", args) {
		if got[r.ForLLM] || !r.OK() {
			t.Errorf("record: %q twice or failed (%v)", r.ForLLM, r.Err)
		}
		got[r.ForLLM] = true
	}
	if len(got) != 64 {
		t.Errorf("record: %d distinct counts, want 64", len(got))
	}
	if why := e.verdictWhy("record"); why != "its calls change a table it reaches" {
		t.Errorf("record: verdict %q", why)
	}

	if res := e.invoke("sometimes", `{"i":1}`); res.ForLLM != "0" { // proves it on the main state
		t.Fatalf("sometimes 1: %q, %v", res.ForLLM, res.Err)
	}
	res := e.invoke("sometimes", `{"i":2}`) // on a replica: the change is lost, loudly
	wantKind(t, res, core.KindFailed)
	wantContains(t, res.Err.Error(), "sometimes changed a table it reaches through an upvalue or a global")
	wantContains(t, res.Err.Error(), "keep data that calls share in the state module")
	if why := e.verdictWhy("sometimes"); why != "its calls change a table it reaches" {
		t.Errorf("sometimes: verdict %q", why)
	}
	if res := e.invoke("sometimes", `{"i":2}`); res.ForLLM != "1" { // now on the main state, kept
		t.Errorf("sometimes on the main state: %q, %v", res.ForLLM, res.Err)
	}
}

// TestReplicaMainOnlyReach: a function that reaches what runs only on the
// main state (tool, before, require, a coroutine) stays there and works.
func TestReplicaMainOnlyReach(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
local co = coroutine.create(function() end)
function maker(args)
  tool{name = "made" .. args.i, fn = function() return "m" end}
  return "ok"
end
function holds_co() return coroutine.status(co) end
function encoder()
  local ok, err = pcall(json.encode, function() end)
  return tostring(ok) .. " " .. tostring(err)
end
tool{name = "maker", concurrency_safe = true, fn = maker}
tool{name = "holds_co", concurrency_safe = true, fn = holds_co}
tool{name = "encoder", concurrency_safe = true, fn = encoder}
`)
	args := make([]string, 16)
	for i := range args {
		args[i] = fmt.Sprintf(`{"i":%d}`, i)
	}
	for i, r := range parallelBatch(e, "maker", args) {
		if r.ForLLM != "ok" {
			t.Errorf("maker %d: %q, %v", i, r.ForLLM, r.Err)
		}
	}
	if res := e.invoke("made15", `{}`); res.ForLLM != "m" {
		t.Errorf("made15: %q, %v", res.ForLLM, res.Err)
	}
	for i, r := range parallelBatch(e, "holds_co", args) {
		if r.ForLLM != "suspended" {
			t.Errorf("holds_co %d: %q, %v", i, r.ForLLM, r.Err)
		}
	}
	for tool, want := range map[string]string{
		"maker":    "it reaches tool, which runs only on the main state",
		"holds_co": "it reaches a thread, which cannot be copied",
	} {
		if got := e.verdictWhy(tool); got != want {
			t.Errorf("%s: verdict %q, want %q", tool, got, want)
		}
	}
	// A function made during a parallel call, given to the host, fails
	// as it does on the main state.
	var first string
	for i := 0; i < 3; i++ {
		res := e.invoke("encoder", `{}`)
		if i == 0 {
			first = res.ForLLM
		} else if res.ForLLM != first {
			t.Errorf("encoder call %d: %q, first call %q", i, res.ForLLM, first)
		}
	}
	if !strings.HasPrefix(first, "false ") {
		t.Errorf("encoder: %q", first)
	}
}

// TestReplicaNestingModes: parallel functions calling each other deeper
// than there are replicas, Lua and Starlark in turn, with a parallel
// before hook that itself invokes a tool, in every mode, never deadlock
// and give every result in place.
func TestReplicaNestingModes(t *testing.T) {
	e := newEnv(t, Options{})
	st := starlark.New(e.host, starlark.Options{})
	if _, err := st.ExecSource(context.Background(), "t.star", []byte(`
def star_down(args):
    r = invoke_tool("down", {"n": args["n"] - 1, "mode": args["mode"]})
    if not r.ok:
        fail(r.error)
    return "s" + r.output
tool(name = "star_down", fn = star_down, concurrency_safe = True)
`)); err != nil {
		t.Fatal(err)
	}
	e.keep(`
tool{name = "leaf", concurrency_safe = true, fn = function(args) return "." end}
function down(args)
  if args.n <= 0 then return "0" end
  local calls = {{"leaf", {}}, {"star_down", {n = args.n, mode = args.mode}}}
  local rs = invoke_all(calls, {mode = args.mode})
  if not rs[2].ok then error(rs[2].error) end
  return args.n .. rs[1].output .. rs[2].output
end
tool{name = "down", concurrency_safe = true, fn = down}
before(function(call)
  if call.name == "leaf" then
    local r = invoke_tool("guard", {})
    if r.output ~= "yes" then return deny("guard said " .. tostring(r.output)) end
  end
end)
tool{name = "guard", concurrency_safe = true, fn = function() return "yes" end}
`)
	for _, mode := range []string{"serial", "parallel", "mixed"} {
		args := make([]string, 8)
		for i := range args {
			args[i] = fmt.Sprintf(`{"n":%d,"mode":%q}`, 3+i%3, mode)
		}
		for i, r := range parallelBatch(e, "down", args) {
			var want strings.Builder
			for n := 3 + i%3; n > 0; n-- {
				fmt.Fprintf(&want, "%d.s", n)
			}
			want.WriteString("0")
			if r.ForLLM != want.String() {
				t.Errorf("%s call %d: %q, want %q (%v)", mode, i, r.ForLLM, want.String(), r.Err)
			}
		}
	}
	if why := e.verdictWhy("down"); why != "" {
		t.Errorf("down stays on the main state: %s", why)
	}
}

// TestRawJSONArguments: a JSON argument decodes into the values a decoded
// one converts to: sorted keys, marked arrays, null inside tables, nil at
// the top; and its errors are those of the decoded path.
func TestRawJSONArguments(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
function describe(args)
  if args == nil then return "nil" end
  local out = {}
  for k, v in pairs(args) do out[#out + 1] = k end
  return table.concat(out, ",") .. " " .. tostring(args.list[2] == agentsh.null) .. " " ..
    tostring(getmetatable(args.empty) ~= nil) .. " " .. json.encode(args)
end
`)
	f := e.fn("describe")
	call := func(arg any) (any, error) { return f.Call(context.Background(), arg) }
	raw := func(text string) script.RawJSON { return script.RawJSON{Text: []byte(text)} }
	text := `{"z":1,"list":[1,null,{"b":2,"a":1}],"empty":[],"obj":{},"f":2.5,"s":"x"}`
	decoded, err := script.DecodeJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want, err := call(decoded)
	if err != nil || want != `empty,f,list,obj,s,z true true {"empty":[],"f":2.5,"list":[1,null,{"a":1,"b":2}],"obj":{},"s":"x","z":1}` {
		t.Fatalf("decoded: %v, %v", want, err)
	}
	for i := 0; i < 4; i++ { // on the main state and on replicas
		if got, err := call(raw(text)); err != nil || got != want {
			t.Errorf("RawJSON: %v, %v; want %v", got, err, want)
		}
	}
	if got, err := call(raw(`null`)); got != "nil" || err != nil {
		t.Errorf("null: %v, %v", got, err)
	}
	big := `{"a":[9007199254740993]}`
	decoded, _ = script.DecodeJSON([]byte(big))
	_, wantErr := call(decoded)
	_, gotErr := call(raw(big))
	if wantErr == nil || gotErr == nil || gotErr.Error() != wantErr.Error() {
		t.Errorf("beyond 2^53: error %v, want %v", gotErr, wantErr)
	}
	for _, bad := range []string{`{"a":`, `[1] [2]`, ``} {
		_, wantErr := script.DecodeJSON([]byte(bad))
		_, gotErr := call(raw(bad))
		if wantErr == nil || gotErr == nil || !strings.Contains(gotErr.Error(), wantErr.Error()) {
			t.Errorf("%q: error %v, want %v", bad, gotErr, wantErr)
		}
	}
}

// TestSharedOncePerState: a Shared value converts once per state: the same
// table on every call in one state, another in another state.
func TestSharedOncePerState(t *testing.T) {
	e := newEnv(t, Options{})
	s := script.NewShared(map[string]any{"role": "user", "parts": []any{"hi", nil}})
	L := e.in.main
	a, err := e.in.toLua(L, s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.in.toLua(L, []any{s})
	if b.(*lua.LTable).RawGetInt(1) != a {
		t.Error("the same Shared value converted twice in one state")
	}
	r := e.in.pool.get()
	if r == nil {
		t.Fatal("no replica")
	}
	defer e.in.pool.put(r)
	c, _ := e.in.toLua(r.st.main, s)
	if c == a {
		t.Error("two states share one Lua table")
	}
	if d, _ := e.in.toLua(r.st.main, s); d != c {
		t.Error("the replica converted the Shared value twice")
	}
	parts := c.(*lua.LTable).RawGetString("parts").(*lua.LTable)
	if parts.Metatable != lua.LValue(r.st.arrayMeta) || parts.RawGetInt(2) != lua.LValue(e.in.null) {
		t.Errorf("replica's conversion: array mark %v, null %v", parts.Metatable, parts.RawGetInt(2))
	}
	if v, _ := e.in.toLua(L, script.NewShared(nil)); v != lua.LNil {
		t.Errorf("Shared nil: %v", v)
	}
}

// TestReplicaStringMethods: what the script adds to the string module is
// there for string methods in parallel calls too.
func TestReplicaStringMethods(t *testing.T) {
	e := newEnv(t, Options{})
	e.keep(`
function string.shout(s) return s:upper() .. "!" end
function shout(args) return args.s:shout() end
tool{name = "shout", concurrency_safe = true, fn = shout}
`)
	for i, r := range parallelBatch(e, "shout", []string{`{"s":"a"}`, `{"s":"b"}`, `{"s":"c"}`, `{"s":"d"}`, `{"s":"e"}`, `{"s":"f"}`}) {
		if want := strings.ToUpper(string(rune('a'+i))) + "!"; r.ForLLM != want {
			t.Errorf("call %d: %q, want %q (%v)", i, r.ForLLM, want, r.Err)
		}
	}
	if why := e.verdictWhy("shout"); why != "" {
		t.Errorf("shout stays on the main state: %s", why)
	}
}
