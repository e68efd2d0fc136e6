package lua

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// writeFiles creates files (slash-separated relative paths) under a new
// temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (e *env) execFile(path string) (*Globals, error) {
	return e.in.ExecFile(context.Background(), path)
}

func (e *env) runFile(path string) *Globals {
	e.t.Helper()
	g, err := e.execFile(path)
	if err != nil {
		e.t.Fatalf("%s failed: %s", path, detail(err))
	}
	return g
}

// TestRequireAgentshModules: require returns the predeclared modules.
func TestRequireAgentshModules(t *testing.T) {
	e := newEnv(t, Options{})
	e.run(`
for _, n in ipairs({"json", "re", "time", "state", "string", "table", "math", "os", "coroutine"}) do
  print(n, require(n) == _G[n])
end
print(require("json").encode({a = 1}))
`)
	wantLines(t, e.lines(), "json\ttrue", "re\ttrue", "time\ttrue", "state\ttrue", "string\ttrue",
		"table\ttrue", "math\ttrue", "os\ttrue", "coroutine\ttrue", `{"a":1}`)
}

// TestRequireFiles: require runs name.lua from the requiring file's
// directory (dots are directories), once, and returns what it returned,
// or its globals when it returned nothing.
func TestRequireFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.lua": `
local h = require("helpers")
local h2 = require("helpers")
print(h.greet("Ada"), h == h2)
local m = require("sub.mod")
print(m.name, m.sibling)
local g = require("globals_only")
print(g.value, g.double(21), g.hidden)
print(require("sub.mod") == m, require("sub/mod") == m, require("helpers.lua") == h)
`,
		"helpers.lua": `
print("loading helpers")
local M = {}
function M.greet(n) return "Hello, " .. n end
return M
`,
		"sub/mod.lua": `
print("loading sub.mod")
local other = require("other") -- next to sub/mod.lua
return {name = "sub.mod", sibling = other.name}
`,
		"sub/other.lua": `return {name = "sub/other"}`,
		"other.lua":     `return {name = "top-level other: wrong directory"}`,
		"globals_only.lua": `
value = 42
function double(x) return x * 2 end
local hidden = "local"
`,
	})
	e := newEnv(t, Options{})
	e.runFile(filepath.Join(dir, "main.lua"))
	wantLines(t, e.lines(),
		"loading helpers",
		"Hello, Ada\ttrue",
		"loading sub.mod",
		"sub.mod\tsub/other",
		"42\t42\tnil",
		"true\ttrue\ttrue",
	)
	// Another file requiring the same module gets the cached value.
	path := filepath.Join(dir, "second.lua")
	if err := os.WriteFile(path, []byte(`print(require("helpers").greet("Bob"))`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.out.Reset()
	e.runFile(path)
	wantLines(t, e.lines(), "Hello, Bob")
}

// TestRequireErrors: cycles, missing files, names that leave the
// directory, and a failing module (which can be required again once it
// is fixed).
func TestRequireErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.lua":       `require("b") return {}`,
		"b.lua":       `require("a") return {}`,
		"self.lua":    `require("self")`,
		"missing.lua": `require("nope")`,
		"broken.lua":  `return {`,
		"raises.lua":  `error("module says no")`,
	})
	e := newEnv(t, Options{})
	for _, tc := range []struct{ file, want string }{
		{"a.lua", `cycle in require graph`},
		{"self.lua", `require "self": cycle in require graph`},
		{"missing.lua", `require "nope": open ` + filepath.Join(dir, "nope.lua")},
		{"missing.lua", "(modules are json, re, time, state, or .lua files next to the script)"},
	} {
		_, err := e.execFile(filepath.Join(dir, tc.file))
		if err == nil {
			t.Fatalf("%s: no error", tc.file)
		}
		wantContains(t, err.Error(), tc.want, filepath.Join(dir, tc.file)+":1")
	}
	for _, name := range []string{"../secret", "sub/../x", "/etc/passwd", `a\b`, ""} {
		err := e.runErr(`require(` + q(name) + `)`)
		wantContains(t, err.Error(), `require `+q(name)+`: want a module name such as "helpers" or "lib.strings"`, "test.lua:1")
	}
	wantContains(t, e.runErr(`require()`).Error(), "bad argument #1 to require")

	main := filepath.Join(dir, "main.lua")
	if err := os.WriteFile(main, []byte(`print(require("broken").ok)`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := e.execFile(main)
	if err == nil {
		t.Fatal("broken module: no error")
	}
	wantContains(t, err.Error(), `require "broken"`, filepath.Join(dir, "broken.lua"))
	if err := os.WriteFile(filepath.Join(dir, "broken.lua"), []byte(`return {ok = "fixed"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.out.Reset()
	e.runFile(main)
	wantLines(t, e.lines(), "fixed")

	if err := os.WriteFile(main, []byte(`require("raises")`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = e.execFile(main)
	if err == nil {
		t.Fatal("raising module: no error")
	}
	wantContains(t, err.Error(), `require "raises"`, filepath.Join(dir, "raises.lua")+":1: module says no")
}

// TestPerFileGlobals: every file has its own globals; _G is the file's
// own environment; predeclared names show through it.
func TestPerFileGlobals(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.lua": `
who = "a"
tool{name = "who_a", fn = function() return who end}
_G.via_g = "a's"
print(via_g, _G.who, _G.print == print, rawget(_G, "print"))
`,
		"b.lua": `
print(who, via_g)
who = "b"
tool{name = "who_b", fn = function() return who end}
local m = require("mod")
print(who, m.who, m.seen)
`,
		"mod.lua": `
seen = tostring(who)
who = "mod"
`,
	})
	e := newEnv(t, Options{})
	ga := e.runFile(filepath.Join(dir, "a.lua"))
	gb := e.runFile(filepath.Join(dir, "b.lua"))
	wantLines(t, e.lines(), "a's\ta\ttrue\tnil", "nil\tnil", "b\tmod\tnil")
	for name, want := range map[string]string{"who_a": "a", "who_b": "b"} {
		if res := e.invoke(name, `{}`); res.ForLLM != want {
			t.Errorf("%s = %q, want %q", name, res.ForLLM, want)
		}
	}
	if ga == nil || gb == nil || ga.env == gb.env {
		t.Fatal("two files share one environment")
	}
	// A snippet does not see a file's globals either.
	e.out.Reset()
	e.run(`print(who)`)
	wantLines(t, e.lines(), "nil")
}
