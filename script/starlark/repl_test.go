package starlark

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script"
)

// lineReader feeds ReadChunk one line at a time.
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

// TestREPL covers ReadChunk, EvalChunk, Exec, _ and persistent globals.
func TestREPL(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	read := lineReader(
		"x = 20",
		"def add(a, b):",
		"    return a + b",
		"",
		"add(x, 22)",
		"",
		"_ + 1",
		"print('side effect')",
		"tool(name = 'repl_tool', fn = lambda args: 'from repl ' + str(x))",
		"invoke_tool('repl_tool').output",
	)
	var values []string
	for {
		c, err := ReadChunk("<stdin>", read)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.Empty() {
			values = append(values, "<empty>")
			continue
		}
		v, err := e.in.EvalChunk(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if v != nil {
			values = append(values, v.String())
		}
	}
	wantLines(t, values, "42", "<empty>", "43", "None", "None", `"from repl 20"`)
	wantLines(t, e.lines(), "side effect")

	// Exec shares the globals; a sole expression returns its value.
	v, err := e.in.Exec(ctx, "<cmd>", "add(x, 1000)")
	if err != nil || v.String() != "1020" {
		t.Fatalf("Exec = %v, %v", v, err)
	}
	if v, err = e.in.Exec(ctx, "<cmd>", "y = 1\nz = y + x"); err != nil || v != nil {
		t.Fatalf("Exec of statements = %v, %v", v, err)
	}
	names := e.in.GlobalNames()
	for _, n := range []string{"_", "add", "x", "y", "z", "tool", "json"} {
		if !slices.Contains(names, n) {
			t.Errorf("GlobalNames lacks %q", n)
		}
	}
	if !slices.IsSorted(names) {
		t.Error("GlobalNames not sorted")
	}
	preds := e.in.Names()
	for _, n := range []string{"tool", "before", "after", "middleware", "deny", "rewrite", "invoke_tool", "invoke_all",
		"tool_names", "get_tool", "unregister_tool", "config", "dual", "silent", "timeout", "retry",
		"struct", "argv", "json", "re", "time", "math", "state"} {
		if !slices.Contains(preds, n) {
			t.Errorf("Names lacks %q", n)
		}
	}

	// Define adds a file's globals.
	g, err := e.in.ExecSource(ctx, "defs.star", []byte("from_file = 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.in.Define(g)
	if v, err := e.in.Exec(ctx, "<cmd>", "from_file * 6"); err != nil || v.String() != "42" {
		t.Fatalf("Define: %v, %v", v, err)
	}

	// Errors are positioned *Errors; the session survives them.
	_, err = e.in.Exec(ctx, "<cmd>", "1 // 0")
	var se *script.Error
	if !errors.As(err, &se) || !strings.HasPrefix(se.Error(), "<cmd>:1:3:") {
		t.Fatalf("Exec error = %#v", err)
	}
	if _, err := e.in.Exec(ctx, "<cmd>", "x = ("); err == nil || !strings.Contains(err.Error(), "<cmd>:1:6") {
		t.Fatalf("Exec syntax error = %v", err)
	}
	if v, err := e.in.Exec(ctx, "<cmd>", "x"); err != nil || v.String() != "20" {
		t.Fatalf("after errors: %v, %v", v, err)
	}

	// An incomplete chunk at EOF is an error; a syntax error is positioned.
	if _, err := ReadChunk("<stdin>", lineReader("def f():")); err == nil {
		t.Error("incomplete chunk: no error")
	}
	_, err = ReadChunk("<stdin>", lineReader("x = )"))
	if !errors.As(err, &se) || se.Pos() != "<stdin>:1:5" {
		t.Errorf("ReadChunk syntax error = %#v", err)
	}
}

// TestREPLCancel: a cancelled context stops a REPL evaluation.
func TestREPLCancel(t *testing.T) {
	e := newEnv(t, Options{})
	started := startedTool(e)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	var err error
	bounded(t, "repl loop", func() {
		_, err = e.in.Exec(ctx, "<cmd>", "invoke_tool('started')\nwhile True:\n    pass\n")
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled: canceled") {
		t.Fatalf("err = %v", err)
	}
	// The session is usable afterwards with a fresh context.
	if v, err := e.in.Exec(context.Background(), "<cmd>", "1 + 1"); err != nil || v.String() != "2" {
		t.Fatalf("after cancel: %v, %v", v, err)
	}
}
