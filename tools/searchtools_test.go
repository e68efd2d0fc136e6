package tools_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

func searchTree(e *env) {
	e.write(map[string]string{
		"a.go":          "package a\n// TODO one\nfunc A() {}\n// todo two\n",
		"b/b.go":        "package b\n\nvar x = 1 // TODO three\n",
		"b/notes.md":    "TODO in markdown\n",
		"a-b.txt":       "nothing here\n",
		".hidden/h.go":  "// TODO hidden\n",
		"gen/skip.go":   "// TODO ignored\n",
		".gitignore":    "gen/\n",
		"bin.dat":       "TODO\x00binary",
		"ctx.txt":       "1\n2\nhit\n4\n5\n6\nhit\n8\n",
		"dir with/s.go": "// TODO spaced\n",
	})
}

// backendsAvailable lists the grep/glob backend pairs to run the tool
// tests on: native always, ripgrep and fd when installed.
func backendsAvailable(t *testing.T) [][2]string {
	pairs := [][2]string{{"native", "native"}}
	if _, err := exec.LookPath("rg"); err == nil {
		pairs = append(pairs, [2]string{"ripgrep", "ripgrep"})
	} else {
		t.Log("ripgrep (rg) not found; apt-get install ripgrep to test the ripgrep backend")
	}
	_, fd := exec.LookPath("fd")
	_, fdfind := exec.LookPath("fdfind")
	if fd == nil || fdfind == nil {
		pairs = append(pairs, [2]string{"native", "fd"})
	} else {
		t.Log("fd not found; apt-get install fd-find to test the fd backend")
	}
	return pairs
}

// The grep and glob tools give byte-identical output, and identical data,
// on every backend.
func TestSearchToolsOnEveryBackend(t *testing.T) {
	var first []string // the data of every call on the first backend
	firstName := ""
	for _, pair := range backendsAvailable(t) {
		t.Run(pair[0]+"+"+pair[1], func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{})
			searchTree(e)
			if err := e.ext.SetGrepBackend(pair[0]); err != nil {
				t.Fatal(err)
			}
			if err := e.ext.SetGlobBackend(pair[1]); err != nil {
				t.Fatal(err)
			}
			data := append(checkGrepTool(t, e), checkGlobTool(t, e)...)
			if first == nil {
				first, firstName = data, pair[0]+"+"+pair[1]
				return
			}
			if len(data) != len(first) {
				t.Fatalf("%d calls' data, %s had %d", len(data), firstName, len(first))
			}
			for i := range data {
				if data[i] != first[i] {
					t.Errorf("call %d: data\n%s\ndiffers from %s's\n%s", i, data[i], firstName, first[i])
				}
			}
		})
	}
}

// dataJSON is a result's data as JSON text, for comparisons.
func dataJSON(t testing.TB, res *core.Result) string {
	t.Helper()
	b, err := core.MarshalJSON(res.Data)
	if err != nil {
		t.Fatalf("%s: data does not encode: %v", res.Tool, err)
	}
	return string(b)
}

// checkGrepTool checks grep's output and returns the data of each call.
func checkGrepTool(t *testing.T, e *env) []string {
	t.Helper()
	var data []string
	eq := func(args map[string]any, want string) {
		t.Helper()
		if got := e.ok("grep", args); got != want {
			t.Errorf("grep %v:\n%s\nwant:\n%s", args, got, want)
		}
		data = append(data, dataJSON(t, e.call("grep", args)))
	}
	eq(map[string]any{"pattern": "TODO"}, "a.go\nb/b.go\nb/notes.md\ndir with/s.go\n")
	eq(map[string]any{"pattern": "TODO", "output_mode": "content"},
		"a.go:2:// TODO one\nb/b.go:3:var x = 1 // TODO three\nb/notes.md:1:TODO in markdown\ndir with/s.go:1:// TODO spaced\n")
	eq(map[string]any{"pattern": "todo", "ignore_case": true, "output_mode": "count"}, "a.go:2\nb/b.go:1\nb/notes.md:1\ndir with/s.go:1\n")
	eq(map[string]any{"pattern": "TODO", "type": "go"}, "a.go\nb/b.go\ndir with/s.go\n")
	eq(map[string]any{"pattern": "TODO", "glob": "*.md"}, "b/notes.md\n")
	eq(map[string]any{"pattern": "TODO", "path": "b"}, "b/b.go\nb/notes.md\n")
	eq(map[string]any{"pattern": "TODO", "path": "./b/b.go", "output_mode": "content", "line_numbers": false}, "b/b.go:var x = 1 // TODO three\n")
	eq(map[string]any{"pattern": "TODO", "hidden": true, "no_ignore": true}, ".hidden/h.go\na.go\nb/b.go\nb/notes.md\ndir with/s.go\ngen/skip.go\n")
	eq(map[string]any{"pattern": "hit", "path": "ctx.txt", "output_mode": "content", "context": 1},
		"ctx.txt-2-2\nctx.txt:3:hit\nctx.txt-4-4\n--\nctx.txt-6-6\nctx.txt:7:hit\nctx.txt-8-8\n")
	eq(map[string]any{"pattern": "hit", "path": "ctx.txt", "output_mode": "content", "before_context": 2, "after_context": 0},
		"ctx.txt-1-1\nctx.txt-2-2\nctx.txt:3:hit\n--\nctx.txt-5-5\nctx.txt-6-6\nctx.txt:7:hit\n")
	eq(map[string]any{"pattern": "TODO", "head_limit": 2}, "a.go\nb/b.go\n[more results; continue with offset 2]\n")
	eq(map[string]any{"pattern": "TODO", "head_limit": 2, "offset": 2}, "b/notes.md\ndir with/s.go\n")
	eq(map[string]any{"pattern": "TODO", "offset": 10}, "no results after offset 10 (there are 4)")
	eq(map[string]any{"pattern": "func A\\(\\) \\{\\}\\n// todo", "multiline": true, "output_mode": "content"}, "a.go:3:func A() {}\na.go:4:// todo two\n")
	eq(map[string]any{"pattern": "--pre=cat"}, "no matches for --pre=cat")
	eq(map[string]any{"pattern": "zzz_nothing"}, "no matches for zzz_nothing")
	msg := e.fails("grep", map[string]any{"pattern": "a("}, core.KindFailed, "grep:")
	if !strings.Contains(strings.ToLower(msg), "missing closing )") {
		t.Errorf("bad regexp message: %q", msg)
	}
	e.fails("grep", map[string]any{"pattern": "x", "output_mode": "lines"}, core.KindInvalidArguments, "/output_mode")
	e.fails("grep", map[string]any{"pattern": "x", "head_limit": 0}, core.KindInvalidArguments, "/head_limit")
	e.fails("grep", map[string]any{"pattern": "x", "path": "missing"}, core.KindFailed, "missing")
	return data
}

// checkGlobTool checks glob's output and returns the data of each call.
func checkGlobTool(t *testing.T, e *env) []string {
	t.Helper()
	var data []string
	eq := func(args map[string]any, want string) {
		t.Helper()
		if got := e.ok("glob", args); got != want {
			t.Errorf("glob %v:\n%s\nwant:\n%s", args, got, want)
		}
		data = append(data, dataJSON(t, e.call("glob", args)))
	}
	eq(map[string]any{"pattern": "**/*.go"}, "a.go\nb/b.go\ndir with/s.go\n")
	eq(map[string]any{"pattern": "**/*.go", "hidden": true, "no_ignore": true}, ".hidden/h.go\na.go\nb/b.go\ndir with/s.go\ngen/skip.go\n")
	eq(map[string]any{"pattern": "*", "path": "b"}, "b/b.go\nb/notes.md\n")
	eq(map[string]any{"pattern": "**/*", "limit": 3}, "a-b.txt\na.go\nb/b.go\n[showing the first 3 of 7 matches; narrow the pattern or raise limit]\n")
	eq(map[string]any{"pattern": "*.rs"}, "no files match *.rs")
	e.fails("glob", map[string]any{"pattern": "[a"}, core.KindFailed, "not a valid glob")
	return data
}

// Asking for a backend whose program is missing is an error, not a
// silent fallback.
func TestMissingBackendIsAnError(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"ripgrep"} {
		err := e.ext.SetGrepBackend(name)
		if err == nil || !strings.Contains(err.Error(), "apt-get install ripgrep") {
			t.Errorf("grep backend %s without rg: %v", name, err)
		}
	}
	if err := e.ext.SetGlobBackend("fd"); err == nil || !strings.Contains(err.Error(), "fd-find") {
		t.Errorf("glob backend fd without fd: %v", err)
	}
	if e.ext.GrepBackend() != "native" || e.ext.GlobBackend() != "native" {
		t.Errorf("a failed switch changed the backends: %s, %s", e.ext.GrepBackend(), e.ext.GlobBackend())
	}
	if err := e.ext.SetGrepBackend("ag"); err == nil || !strings.Contains(err.Error(), `unknown grep backend "ag"`) {
		t.Errorf("unknown backend: %v", err)
	}
}

// A grep with a small head_limit is byte-identical to the first lines of
// the full output.
func TestGrepHeadLimitIsAPrefix(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf("d%02d/f.txt", i%7)+fmt.Sprint(i)] = "match\nmatch\n"
	}
	e.write(files)
	full := e.ok("grep", map[string]any{"pattern": "match", "output_mode": "content", "head_limit": 10000})
	lines := strings.SplitAfter(full, "\n")
	for _, n := range []int{1, 7, 50, 119} {
		got := e.ok("grep", map[string]any{"pattern": "match", "output_mode": "content", "head_limit": n})
		want := strings.Join(lines[:n], "") + fmt.Sprintf("[more results; continue with offset %d]\n", n)
		if got != want {
			t.Errorf("head_limit %d:\n%s\nwant:\n%s", n, got, want)
		}
	}
}
