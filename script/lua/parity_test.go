package lua

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
	"github.com/agentsh/agentsh/script/starlark"
)

// errorPosition is the file:line[:col] prefix of a script error.
var errorPosition = regexp.MustCompile(`^test\.(lua|star):\d+(:\d+)?: `)

// TestBadCallsSayTheSame: the same bad call of the script API, written in
// each language, fails with the same message. The names are declared once,
// so the check of every parameter is shared; only the calling convention
// differs.
func TestBadCallsSayTheSame(t *testing.T) {
	le := newEnv(t, Options{})
	sin := starlark.New(le.host, starlark.Options{})
	le.run(`tool{name = "t", fn = function() return "ok" end}`)
	const dur = `a duration such as "2s" or a number of seconds, from 0 to about 292 years`
	for _, tc := range []struct{ lua, star, want string }{
		// durations: every way of being out of range reads the same
		{`timeout(0/0)`, `timeout(float("nan"))`, "timeout: duration got NaN, want " + dur},
		{`timeout(1/0)`, `timeout(float("inf"))`, "timeout: duration got +Inf, want " + dur},
		{`timeout(-1/0)`, `timeout(-float("inf"))`, "timeout: duration got -Inf, want " + dur},
		{`timeout(-1)`, `timeout(-1)`, "timeout: duration got -1, want " + dur},
		{`timeout(1e300)`, `timeout(1e300)`, "timeout: duration got 1e+300, want " + dur},
		{`timeout("-2s")`, `timeout("-2s")`, `timeout: duration got "-2s", want ` + dur},
		{`timeout("soon")`, `timeout("soon")`, `timeout: duration got "soon", want ` + dur},
		{`timeout(0)`, `timeout(0)`, `timeout: duration got 0s, want more than 0, such as "500ms" or "2s"`},
		{`timeout({})`, `timeout({})`, "timeout: duration got a dict, want " + dur},
		{`timeout()`, `timeout()`, `timeout: missing argument "duration"`},
		{`retry{backoff = 0/0}`, `retry(backoff = float("nan"))`, "retry: backoff got NaN, want " + dur},
		{`retry{attempts = 0}`, `retry(attempts = 0)`, "retry: attempts got 0, want 1 or more (it counts the first execution)"},
		{`retry{attempts = 1.5}`, `retry(attempts = 1.5)`, "retry: attempts got 1.5, want an integer"},
		{`retry{attempts = 2^40}`, `retry(attempts = 1 << 40)`, "retry: attempts got 1099511627776, want an integer from -2147483648 to 2147483647"},
		{`retry{tries = 3}`, `retry(tries = 3)`, `retry: unexpected argument "tries"; the parameters are attempts, backoff`},
		// tools
		{`before(function() end, {tools = {}})`, `before(lambda c: None, tools = [])`, "before: tools got an empty list; omit it for a global hook"},
		{`before(function() end, {tools = {1}})`, `before(lambda c: None, tools = [1])`, "before: tools got a list holding an int, want names or globs (strings)"},
		{`after(function() end, {tools = 5})`, `after(lambda c, r: None, tools = 5)`, "after: tools got an int, want a tool name or glob, or a non-empty list of them"},
		{`before(function() end, {name = 5})`, `before(lambda c: None, name = 5)`, "before: name got an int, want a string"},
		{`before(function() end, {tools = "t", nmae = "p"})`, `before(lambda c: None, tools = "t", nmae = "p")`, `before: unexpected argument "nmae"; the parameters are fn, tools, name`},
		{`before(5)`, `before(5)`, "before: fn got an int, want a function"},
		{`middleware("x")`, `middleware("x")`, "middleware: fn got a string, want a function(call, next) or timeout(...)/retry(...)"},
		// tool
		{`tool{name = 5, fn = print}`, `tool(name = 5, fn = print)`, "tool: name got an int, want a string"},
		{`tool{name = "x"}`, `tool(name = "x")`, `tool: missing argument "fn"`},
		{`tool{name = "x", fn = print, concurrency_safe = "yes"}`, `tool(name = "x", fn = print, concurrency_safe = "yes")`, "tool: concurrency_safe got a string, want a bool or nothing"},
		{`tool{name = "x", fn = print, idempotent = 1}`, `tool(name = "x", fn = print, idempotent = 1)`, "tool: idempotent got an int, want a bool"},
		{`tool{name = "x", fn = print, parameters = "p"}`, `tool(name = "x", fn = print, parameters = "p")`, "tool: parameters got a string, want a dict"},
		{`tool{name = "t", fn = print}`, `tool(name = "t", fn = print)`, `tool "t" is already registered; pass replace = True (replace = true in Lua) to replace it, or unregister_tool("t") first`},
		// invoke_tool and invoke_all
		{`invoke_tool(3)`, `invoke_tool(3)`, "invoke_tool: name got an int, want a string"},
		{`invoke_tool("t", {}, {dedup_key = 5})`, `invoke_tool("t", {}, dedup_key = 5)`, "invoke_tool: dedup_key got an int, want a string"},
		{`invoke_tool("t", deny("x"))`, `invoke_tool("t", deny("x"))`, "invoke_tool: args got a deny(...) value, want a dict of arguments or a string of JSON"},
		{`invoke_all("t")`, `invoke_all("t")`, "invoke_all: calls got a string, want a list of calls, each (name, args[, dedup_key]) or {name, args, dedup_key}"},
		{`invoke_all({{5, {}}})`, `invoke_all([(5, {})])`, "invoke_all: call 1 of 1: name got an int, want a string"},
		{`invoke_all({{"t", {}}, {args = {}}})`, `invoke_all([("t", {}), {"args": {}}])`, `invoke_all: call 2 of 2: missing "name"`},
		{`invoke_all({{"t", {}, 5}})`, `invoke_all([("t", {}, 5)])`, "invoke_all: call 1 of 1: dedup_key got an int, want a string"},
		{`invoke_all({{name = "t", arg = {}}})`, `invoke_all([{"name": "t", "arg": {}}])`, `invoke_all: call 1 of 1: unexpected key "arg"; the keys are name, args, dedup_key`},
		{`invoke_all({}, {concurrency = -1})`, `invoke_all([], concurrency = -1)`, "invoke_all: concurrency got -1, want 0 (the default, 64 at a time) or more"},
		{`invoke_all({}, {mode = 1})`, `invoke_all([], mode = 1)`, "invoke_all: mode got an int, want a string"},
		// the rest
		{`deny()`, `deny()`, `deny: missing argument "reason"`},
		{`deny(1)`, `deny(1)`, "deny: reason got an int, want a string"},
		{`rewrite("x")`, `rewrite("x")`, "rewrite: args got a string, want a dict"},
		{`dual("a")`, `dual("a")`, `dual: missing argument "for_user"`},
		{`silent(1)`, `silent(1)`, "silent: for_llm got an int, want a string"},
		{`get_tool()`, `get_tool()`, `get_tool: missing argument "name"`},
		{`unregister_tool(1)`, `unregister_tool(1)`, "unregister_tool: name got an int, want a string"},
		{`tool_names(1)`, `tool_names(1)`, "tool_names: got 1 arguments, want at most 0"},
		{`config{f = print}`, `config(f = print)`, "config: f got a function, want a value"},
		{`config{mode = "sideways"}`, `config(mode = "sideways")`, `config: mode: unknown execution mode "sideways": want serial, parallel or mixed`},
		{`config{bogus = 1}`, `config(bogus = 1)`, `config: unknown setting "bogus"; the settings are concurrency, mode, offload, permissions, secret_files, validate_arguments`},
		{`config("serial")`, `config("serial")`, "config: takes only named arguments, got 1 positional"},
		// decisions
		{`config{permissions = "x"}`, `config(permissions = "x")`, `config: permissions: unknown permissions "x": want default, allow-all or deny-unlisted`},
		{`config{permissions = 1}`, `config(permissions = 1)`, `config: permissions: want "default", "allow-all" or "deny-unlisted", got an int`},
		{`on("approve", 3)`, `on("approve", 3)`, "on: fn got an int, want a function"},
		{`on("nope", print)`, `on("nope", print)`, `on: unknown event "nope"; the events are approve (the agent's lifecycle events, such as session_start, exist when an agent is set up)`},
		{`deny(3)`, `deny(3)`, "deny: reason got an int, want a string"},
		{`deny()`, `deny()`, `deny: missing argument "reason"`},
		{`allow(true)`, `allow(True)`, "allow: reason got a bool, want a string"},
		{`allow("ok", {args = 3})`, `allow("ok", args = 3)`, "allow: args got an int, want a dict"},
		{`ask({})`, `ask({})`, "ask: prompt got a dict, want a string"},
		{`ask("hi")`, `ask("hi")`, "ask: no model is set up to ask; outside a before hook ask(prompt) asks the model (set one with model(fn) or provider(spec)), inside one ask(reason) asks for approval"},
		{`decide(1)`, `decide(1)`, "decide: name got an int, want a string"},
		{`decide("t", {}, {origin = "robot"})`, `decide("t", {}, origin = "robot")`, `decide: unknown origin "robot": want person, model, mcp or hook`},
	} {
		lerr := le.runErr(tc.lua)
		_, serr := sin.ExecSource(context.Background(), "test.star", []byte(tc.star))
		if serr == nil {
			t.Errorf("starlark %s succeeded, want %q", tc.star, tc.want)
			continue
		}
		for lang, err := range map[string]error{"lua": lerr, "starlark": serr} {
			if msg := errorPosition.ReplaceAllString(err.Error(), ""); msg != tc.want {
				t.Errorf("%s %s:\n got %q\nwant %q", lang, map[string]string{"lua": tc.lua, "starlark": tc.star}[lang], msg, tc.want)
			}
		}
	}
}

// TestHookNameInBothLanguages: before, after and middleware take a name in
// both languages (it was Lua only), and the name is the hook's in
// messages.
func TestHookNameInBothLanguages(t *testing.T) {
	le := newEnv(t, Options{})
	sin := starlark.New(le.host, starlark.Options{})
	le.run(`
tool{name = "lt", fn = function() return "ok" end}
before(function(call) return deny("lua says no") end, {tools = "lt", name = "lua_policy"})`)
	if _, err := sin.ExecSource(context.Background(), "test.star", []byte(`
tool(name = "st", fn = lambda args: "ok")
before(lambda call: deny("starlark says no"), tools = "st", name = "star_policy")
tool(name = "st2", fn = lambda args: "ok")
middleware(lambda call, next: deny("middleware says no"), tools = ["st2"], name = "star_mw")`)); err != nil {
		t.Fatal(err)
	}
	wantContains(t, le.invoke("lt", `{}`).Err.Error(), `rejected by "lua_policy": lua says no`)
	wantContains(t, le.invoke("st", `{}`).Err.Error(), `rejected by "star_policy": starlark says no`)
	wantContains(t, le.invoke("st2", `{}`).Err.Error(), `rejected by "star_mw": middleware says no`)
}

// point is a host object for the generic wrappers: attributes, a method,
// + with another point, ordering by x, and a module that makes points.
type point struct{ x, y int64 }

func (p point) TypeName() string    { return "point" }
func (p point) AttrNames() []string { return []string{"scaled", "x", "y"} }
func (p point) String() string      { return fmt.Sprintf("point(%d, %d)", p.x, p.y) }
func (p point) Attr(name string) (any, bool, error) {
	switch name {
	case "x":
		return p.x, true, nil
	case "y":
		return p.y, true, nil
	case "scaled":
		return script.Builtin{Name: "scaled", Params: []script.Param{{Name: "n", Kind: script.Int}},
			Fn: func(_ context.Context, a script.Args) (any, error) {
				n := int64(a["n"].(int))
				return point{p.x * n, p.y * n}, nil
			}}, true, nil
	}
	return nil, false, nil
}

func (p point) Binary(op string, other any, reversed bool) (any, bool, error) {
	q, ok := other.(point)
	if !ok || op != "+" {
		return nil, false, nil
	}
	return point{p.x + q.x, p.y + q.y}, true, nil
}

func (p point) Compare(other any) (int, error) {
	q, ok := other.(point)
	if !ok {
		return 0, fmt.Errorf("cannot compare a point with %T", other)
	}
	return cmp.Compare(p.x, q.x), nil
}

// counter is a callable host object.
type counter struct{ n int64 }

func (c *counter) TypeName() string               { return "counter" }
func (c *counter) AttrNames() []string            { return nil }
func (c *counter) Attr(string) (any, bool, error) { return nil, false, nil }
func (c *counter) String() string                 { return "<counter>" }
func (c *counter) CallValue(_ context.Context, args []any) (any, error) {
	c.n++
	return c.n, nil
}

var (
	_ script.Operator = point{}
	_ script.Comparer = point{}
	_ script.Callable = (*counter)(nil)
)

// TestModulesAndObjectsInBothLanguages: a script.Module added to the host
// is a module in each language, and its objects read, compute, compare and
// call the same way; the output is the same.
func TestModulesAndObjectsInBothLanguages(t *testing.T) {
	le := newEnv(t, Options{})
	le.host.AddModule(script.Module{Name: "geo", Doc: "Points.",
		Members: []script.Builtin{{Name: "point", Params: []script.Param{{Name: "x", Kind: script.Int}, {Name: "y", Kind: script.Int, Optional: true, Default: 0}},
			Fn: func(_ context.Context, a script.Args) (any, error) {
				return point{int64(a["x"].(int)), int64(a["y"].(int))}, nil
			}}},
		Values: map[string]any{"origin": point{}, "unit": int64(1), "tick": &counter{}}})
	in := New(le.host, Options{})
	t.Cleanup(func() { in.Close() })
	if err := func() error {
		_, err := in.ExecSource(context.Background(), "test.lua", []byte(`
local p = geo.point(1, 2)
local q = p + geo.point(3)
print(p, q, q.x, q.y, p:scaled(3), p.scaled(2), geo.unit)
print(p < q, q <= p, p == geo.point(1, 5), tostring(geo.origin))
print(geo.tick(), geo.tick())
print(pcall(geo.point, "x"))
print(deny("a") == deny("a"), deny("a") == deny("b"), pcall(function() return deny("a") < deny("b") end))
`))
		return err
	}(); err != nil {
		t.Fatal(err)
	}
	sin := starlark.New(le.host, starlark.Options{})
	if _, err := sin.ExecSource(context.Background(), "test.star", []byte(`
p = geo.point(1, 2)
q = p + geo.point(3)
print(p, q, q.x, q.y, p.scaled(3), p.scaled(n = 2), geo.unit)
print(p < q, q <= p, p == geo.point(1, 5), str(geo.origin))
print(geo.tick(), geo.tick())
print(type(p), dir(p))
print(deny("a") == deny("a"), deny("a") == deny("b"))
`)); err != nil {
		t.Fatal(err)
	}
	lines := le.lines()
	if len(lines) != 10 {
		t.Fatalf("got %q", lines)
	}
	tabs := func(s string) string { return strings.ReplaceAll(s, "\t", " ") }
	wantLines(t, []string{tabs(lines[0]), tabs(lines[1]), tabs(lines[2])},
		"point(1, 2) point(4, 2) 4 2 point(3, 6) point(2, 4) 1",
		"true false true point(0, 0)",
		"1 2")
	wantContains(t, lines[3], "false", "geo.point: x got a string, want an integer")
	wantContains(t, lines[4], "true\tfalse\tfalse", "verdict values are not ordered")
	wantLines(t, lines[5:],
		"point(1, 2) point(4, 2) 4 2 point(3, 6) point(2, 4) 1",
		"True False True point(0, 0)",
		"3 4",
		`point ["scaled", "x", "y"]`,
		"True False")
}
