package lua

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// lineReader feeds ReadChunk one line at a time, as the REPL does (with
// the newline).
func lineReader(lines ...string) func() ([]byte, error) {
	return func() ([]byte, error) {
		if len(lines) == 0 {
			return nil, io.EOF
		}
		l := lines[0]
		lines = lines[1:]
		return []byte(l + "\n"), nil
	}
}

// TestREPL covers ReadChunk, EvalChunk, _ and persistent globals.
func TestREPL(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	read := lineReader(
		"x = 20",
		"function add(a, b)",
		"  return a + b",
		"end",
		"add(x, 22)",
		"",
		"_ + 1",
		"print('side effect')",
		"tool{name = 'repl_tool', fn = function(args) return 'from repl ' .. x end}",
		"invoke_tool('repl_tool').output",
		"invoke_tool('repl_tool')",
		"'text'",
		"2.5",
		"{a = 1, b = {1, 2}}",
		"agentsh.array{}",
		"1, 'two', nil, {}",
		"nil",
		"_",
		"local y = 1",
		"y",
		"s = [[long",
		"string]]",
		"s",
		"1 +", // an unfinished expression continues on the next line
		"2",
		"math.max(1,", // so does an open call
		"  2)",
		"x = 'unterminated",
	)
	var values []string
	for {
		c, err := ReadChunk("<stdin>", read)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			values = append(values, "error: "+err.Error())
			continue
		}
		v, err := e.in.EvalChunk(ctx, c)
		if err != nil {
			t.Fatalf("eval: %v", err)
		}
		values = append(values, v)
	}
	want := []string{
		"", "", // x = 20; the three lines of add
		"42", "", // add(x, 22); the empty line
		"43", "", "", // _ + 1; print; tool
		"from repl 20",
		`result{ok = true, output = "from repl 20"}`,
		"text", "2.5",
		`{"a":1,"b":[1,2]}`,
		"[]",
		"1\ttwo\tnil\t{}",
		"",     // nil
		"1",    // _ is the first value of the last non-nil expression
		"", "", // local y does not persist
		"", // the long string's two lines
		"long\nstring",
		"3",
		"2",
		`error: <stdin>:2: unterminated string near 'unterminated'`,
	}
	if !slices.Equal(values, want) {
		t.Fatalf("values\n got: %q\nwant: %q", values, want)
	}
	wantLines(t, e.lines(), "side effect")
}

// TestReadChunkEnds: EOF before any line and inside a block is io.EOF; a
// last line without a newline still counts; a syntax error does not read
// on.
func TestReadChunkEnds(t *testing.T) {
	if _, err := ReadChunk("<stdin>", lineReader()); !errors.Is(err, io.EOF) {
		t.Errorf("no input: %v", err)
	}
	if _, err := ReadChunk("<stdin>", lineReader("function f()", "  return 1")); !errors.Is(err, io.EOF) {
		t.Errorf("EOF inside a block: %v", err)
	}
	if _, err := ReadChunk("<stdin>", lineReader("if x then", "do")); !errors.Is(err, io.EOF) {
		t.Errorf("EOF inside nested blocks: %v", err)
	}
	last := true
	c, err := ReadChunk("<stdin>", func() ([]byte, error) {
		if last {
			last = false
			return []byte("1 + 1"), io.EOF
		}
		return nil, io.EOF
	})
	if err != nil || c.Empty() {
		t.Fatalf("last line without newline: %v", err)
	}
	e := newEnv(t, Options{})
	if v, err := e.in.EvalChunk(context.Background(), c); v != "2" || err != nil {
		t.Errorf("eval: %q, %v", v, err)
	}

	calls := 0
	_, err = ReadChunk("<stdin>", func() ([]byte, error) {
		calls++
		return []byte("x = )\n"), nil
	})
	var le *script.Error
	if !errors.As(err, &le) || incomplete(le) || calls != 1 {
		t.Errorf("syntax error: %v (read %d lines)", err, calls)
	}
	readErr := errors.New("aborted")
	if _, err := ReadChunk("<stdin>", func() ([]byte, error) { return nil, readErr }); err != readErr {
		t.Errorf("reader error: %v", err)
	}
	c, err = ReadChunk("<stdin>", lineReader("   "))
	if err != nil || !c.Empty() {
		t.Errorf("blank line: %v", err)
	}
}

// TestExecAndDefine: Exec shares the REPL globals; Define makes a file's
// globals visible there; GlobalNames lists both with the predeclared
// names.
func TestExecAndDefine(t *testing.T) {
	dir := writeFiles(t, map[string]string{"lib.lua": `
from_file = "file value"
function file_fn(n) return n * 3 end
`})
	e := newEnv(t, Options{})
	ctx := context.Background()
	for _, tc := range []struct{ src, want string }{
		{"counter = 5", ""},
		{"counter * 2", "10"},
		{"counter = counter + 1; return counter", "6"}, // what the chunk returned
		{"counter = counter + 0", ""},
		{"counter", "6"},
		{"from_file", ""},
	} {
		if got, err := e.in.Exec(ctx, "<cmd>", tc.src); got != tc.want || err != nil {
			t.Errorf("Exec(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
	if _, err := e.in.Exec(ctx, "<cmd>", "x = )"); err == nil {
		t.Error("Exec: syntax error accepted")
	} else if le := asError(t, err); le.Pos() != "<cmd>:1" {
		t.Errorf("Exec syntax error at %q", le.Pos())
	}
	if _, err := e.in.Exec(ctx, "<cmd>", "error('boom')"); err == nil || !strings.Contains(err.Error(), "<cmd>:1: boom") {
		t.Errorf("Exec runtime error: %v", err)
	}

	g := e.runFile(filepath.Join(dir, "lib.lua"))
	e.in.Define(g)
	e.in.Define(nil)
	for _, tc := range []struct{ src, want string }{
		{"from_file", "file value"},
		{"file_fn(counter)", "18"},
		{"_G == _G.from_file", "false"},
	} {
		if got, err := e.in.Exec(ctx, "<cmd>", tc.src); got != tc.want || err != nil {
			t.Errorf("after Define: Exec(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}

	names := e.in.GlobalNames()
	if !sort.StringsAreSorted(names) {
		t.Errorf("GlobalNames not sorted: %q", names)
	}
	for _, n := range []string{"counter", "from_file", "file_fn", "tool", "invoke_tool", "json", "print", "agentsh"} {
		if !slices.Contains(names, n) {
			t.Errorf("GlobalNames lacks %q", n)
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("GlobalNames repeats %q", names[i])
		}
	}
	predeclared := e.in.Names()
	if !slices.Contains(predeclared, "invoke_all") || slices.Contains(predeclared, "counter") {
		t.Errorf("Names = %q", predeclared)
	}
}
