package starlark

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

func (e *env) execFile(path string) error {
	_, err := e.in.ExecFile(context.Background(), path)
	return err
}

// TestLoadRelative: load() resolves paths relative to the loading file,
// runs each file once, and freezes what it exports.
func TestLoadRelative(t *testing.T) {
	e := newEnv(t, Options{})
	if err := e.execFile(filepath.Join("testdata", "main.star")); err != nil {
		t.Fatal(err)
	}
	wantLines(t, e.lines(),
		"helper loaded", // once, although lib.star and main.star both load it
		"lib loaded",
		"hello main from lib via helper+leaf",
		`helper+leaf ["shared"]`,
	)

	// A second run of the same interpreter reuses the loaded modules.
	e.out.Reset()
	if err := e.execFile(filepath.Join("testdata", "main.star")); err != nil {
		t.Fatal(err)
	}
	wantLines(t, e.lines(), "hello main from lib via helper+leaf", `helper+leaf ["shared"]`)

	// Loaded values are frozen.
	err := e.execFile(filepath.Join("testdata", "mutate_loaded.star"))
	if err == nil {
		t.Fatal("appending to a loaded list succeeded")
	}
	wantContains(t, err.Error(), "mutate_loaded.star:3:14", "cannot append to frozen list")

	// From a snippet, paths are relative to the working directory, and an
	// absolute path works from anywhere.
	abs, _ := filepath.Abs(filepath.Join("testdata", "leaf.star"))
	e.out.Reset()
	_, err = e.in.ExecSource(context.Background(), "<stdin>", []byte(`
load("testdata/leaf.star", "leaf")
load(`+q(abs)+`, leaf2 = "leaf")
print(leaf, leaf2)
`))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, e.lines(), "leaf leaf")
}

// TestLoadTools: a loaded file's tools and hooks join the pipeline.
func TestLoadTools(t *testing.T) {
	e := newEnv(t, Options{})
	_, err := e.in.ExecSource(context.Background(), filepath.Join("testdata", "run.star"), []byte(`
load("tools.star", "shout")
print(invoke_tool("shout", {"s": "hi"}).output)
print(invoke_tool("shout", {"s": "my secret"}).error)
`))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, e.lines(), "HI!", `rejected by "no_secrets": no secrets`)
}

// TestLoadErrors: cycles, missing files, non-.star names, errors inside a
// loaded file and missing symbols all fail clearly.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"cycle_a.star", []string{"cycle_a.star:1:1", "cannot load cycle_b.star", "cycle in load graph"}},
		{"self_load.star", []string{"self_load.star:1:1", "cycle in load graph"}},
		{"missing_load.star", []string{"missing_load.star:1:1", "cannot load does_not_exist.star", "no such file"}},
		{"bad_name.star", []string{"bad_name.star:1:1", `load "json": only .star files can be loaded`}},
		{"uses_broken.star", []string{"cannot load broken.star", "testdata/broken.star:2:14", "division by zero"}},
		{"missing_symbol.star", []string{"missing_symbol.star:1:1", "name nope not found in module leaf.star"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			e := newEnv(t, Options{})
			var err error
			bounded(t, "load", func() { err = e.execFile(filepath.Join("testdata", tc.file)) })
			if err == nil {
				t.Fatal("no error")
			}
			wantContains(t, err.Error(), tc.want...)
		})
	}

	e := newEnv(t, Options{})
	if err := e.execFile(filepath.Join("testdata", "nope.star")); err == nil || !strings.Contains(err.Error(), "read script") {
		t.Errorf("ExecFile of a missing file: %v", err)
	}
}

// TestLoadRetryAfterFix: a file that failed to load is loaded again once
// fixed (failures are not cached).
func TestLoadRetryAfterFix(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.star")
	main := filepath.Join(dir, "main.star")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lib, "x = 1 // 0\n")
	write(main, "load(\"lib.star\", \"x\")\nprint(x)\n")
	e := newEnv(t, Options{})
	if err := e.execFile(main); err == nil {
		t.Fatal("broken lib loaded")
	}
	write(lib, "x = 42\n")
	if err := e.execFile(main); err != nil {
		t.Fatalf("fixed lib: %v", err)
	}
	wantLines(t, e.lines(), "42")
}

// TestLoadCycleThroughEntryFile: a cycle back to the file being run is
// reported, and the entry file's top level runs once.
func TestLoadCycleThroughEntryFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.star", "print(\"a runs\")\nload(\"b.star\", \"b\")\na = 1\n")
	write("b.star", "load(\"a.star\", \"a\")\nb = 2\n")
	e := newEnv(t, Options{})
	err := e.execFile(filepath.Join(dir, "a.star"))
	if err == nil {
		t.Fatal("a load cycle through the entry file ran")
	}
	wantContains(t, err.Error(), "cycle in load graph")
	wantLines(t, e.lines(), "a runs")
}

// TestLoadErrorKeepsBothPositions: a runtime error inside a loaded file
// names the load statement and the failing line.
func TestLoadErrorKeepsBothPositions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.star"), []byte("def f():\n    return 1 // 0\nx = f()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.star")
	if err := os.WriteFile(main, []byte("y = 1\nload(\"bad.star\", \"x\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{})
	err := e.execFile(main)
	var se *script.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a script error", err)
	}
	wantContains(t, se.Error(), "main.star:2:1: cannot load bad.star", "bad.star:2:14: floored division by zero")
	wantContains(t, se.Detail(), "Traceback", "main.star:2:1: in <toplevel>")
}
