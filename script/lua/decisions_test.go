package lua

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/script/starlark"
)

// TestHookSourcesInBothLanguages: before hooks, after hooks and
// middleware carry the file:line where their function was defined, and
// the records of a call name it.
func TestHookSourcesInBothLanguages(t *testing.T) {
	le := newEnv(t, Options{})
	sin := starlark.New(le.host, starlark.Options{})
	le.run(`tool{name = "t", fn = function() return "ok" end}

local function lua_before(call)
  return allow("lua allows")
end
before(lua_before)
after(function(call, r) end, {name = "lua_after"})`)
	if _, err := sin.ExecSource(context.Background(), "test.star", []byte(`
def star_before(call):
    return None

before(star_before, tools = ["t"])
middleware(lambda call, next: next(call), name = "star_mw")
`)); err != nil {
		t.Fatal(detail(err))
	}
	res := le.invoke("t", `{}`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	got := map[string]string{}
	for _, d := range res.Decisions {
		got[string(d.Stage)+" "+d.Hook] = d.Source
	}
	for key, want := range map[string]string{
		"tool-before star_before":  "test.star:2",
		"global-before lua_before": "test.lua:3",
		"approval lua_before":      "test.lua:3",
		"after lua_after":          "test.lua:7",
	} {
		if got[key] != want {
			t.Errorf("record %q: source %q, want %q (records %v)", key, got[key], want, got)
		}
	}
}

// TestVerdictsOutOfPlace: verdicts are refused, with a clear message,
// where they mean nothing: always = True in a before hook, allow or ask
// from middleware, any verdict from a tool, a non-string reason.
func TestVerdictsOutOfPlace(t *testing.T) {
	le := newEnv(t, Options{})
	le.run(`
tool{name = "always", fn = function() return "ran" end}
before(function(call) return allow("ok", {always = true}) end, {tools = {"always"}, name = "forever"})
tool{name = "mw", fn = function() return "ran" end}
middleware(function(call, next) return allow("ok") end, {tools = {"mw"}, name = "lenient"})
tool{name = "tool_asks", fn = function() return ask("why") end}
tool{name = "tool_allows", fn = function() return allow("why") end}
tool{name = "bad_reason", fn = function() return "ran" end}
before(function(call) return deny(42) end, {tools = {"bad_reason"}, name = "numeric"})
tool{name = "odd", fn = function() return "ran" end}
before(function(call) return {verdict = "allow"} end, {tools = {"odd"}, name = "odd_hook"})`)
	for _, tc := range []struct{ tool, kind, msg string }{
		{"always", "rejected", `before hook forever returned allow("ok", always = True); always = True is for approvers (on("approve", fn)), a hook's allow holds for one call`},
		{"mw", "failed", `middleware lenient returned allow("ok"); allow(...) is for before hooks, middleware rejects with deny(reason)`},
		// In a tool, ask is the model's: there is none here.
		{"tool_asks", "failed", `ask: no model is set up to ask`},
		{"tool_allows", "failed", `allow(...) is for before hooks; a tool returns its output`},
		{"bad_reason", "rejected", "deny: reason got an int, want a string"},
		{"odd", "rejected", "before hook odd_hook returned a dict; want None, allow(reason?), ask(reason), deny(reason) or rewrite(args); allow, ask and deny take args = {...} to rewrite too"},
	} {
		res := le.invoke(tc.tool, `{}`)
		if res.Err == nil || string(core.KindOf(res.Err)) != tc.kind || !strings.Contains(res.Err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want %s containing %q", tc.tool, res.Err, tc.kind, tc.msg)
		}
		if res.ForLLM == "ran" {
			t.Errorf("%s ran", tc.tool)
		}
	}
}

// TestDecideRunsNothing: decide() evaluates a call whose tool would
// create a file, with a policy that counts calls in state and an after
// hook and middleware that would write files too: nothing is created and
// the session's state is unchanged; invoking the same call runs it all.
func TestDecideRunsNothing(t *testing.T) {
	for _, lang := range []string{"lua", "star"} {
		t.Run(lang, func(t *testing.T) {
			dir := t.TempDir()
			le := newEnv(t, Options{})
			touch := func(name string) func(context.Context, map[string]any) (any, error) {
				return func(context.Context, map[string]any) (any, error) {
					return "made", os.WriteFile(filepath.Join(dir, name), nil, 0o644)
				}
			}
			le.goTool("make_marker", nil, touch("tool"))
			le.goTool("touch_after", nil, touch("after"))
			le.goTool("touch_mw", nil, touch("middleware"))
			var err error
			if lang == "lua" {
				err = le.exec(`
before(function(call)
  if call.name == "make_marker" then
    state.incr("counted")
    state.set("last", call.args)
  end
end, {name = "counter"})
after(function(call, r) if call.name == "make_marker" then invoke_tool("touch_after") end end)
middleware(function(call, next)
  if call.name == "make_marker" then invoke_tool("touch_mw") end
  return next(call)
end)
local r = decide("make_marker", {n = 1})
print(r.outcome, r.hook, state.get("counted", 0))`)
			} else {
				sin := starlark.New(le.host, starlark.Options{})
				_, err = sin.ExecSource(context.Background(), "test.star", []byte(`
def counter(call):
    if call.name == "make_marker":
        state.incr("counted")
        state.set("last", call.args)
before(counter)
def audit(call, r):
    if call.name == "make_marker":
        invoke_tool("touch_after")
after(audit)
def mw(call, next):
    if call.name == "make_marker":
        invoke_tool("touch_mw")
    return next(call)
middleware(mw)
r = decide("make_marker", {"n": 1})
print(r.outcome, r.hook, state.get("counted", 0))`))
			}
			if err != nil {
				t.Fatal(detail(err))
			}
			if got := strings.Join(le.lines(), "\n"); strings.Join(strings.Fields(got), " ") != "allow default 0" {
				t.Errorf("decide printed %q, want allow default 0", got)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("deciding created %v", entries)
			}
			if keys := le.ex.Session().Keys(); len(keys) != 0 {
				t.Errorf("deciding left state %v in the session", keys)
			}
			// The same call, invoked, runs the tool, the middleware and the
			// after hook, and counts.
			if res := le.invoke("make_marker", `{"n": 1}`); res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, name := range []string{"tool", "after", "middleware"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("invoking did not run the %s: %v", name, err)
				}
			}
			if v, _ := le.ex.Session().Get("counted"); v != int64(1) {
				t.Errorf("state counted = %v after one call, want 1", v)
			}
			last, _ := le.ex.Session().Get("last")
			if b, _ := json.Marshal(last); string(b) != `{"n":1}` {
				t.Errorf("state last = %s, want {\"n\":1}", b)
			}
		})
	}
}
