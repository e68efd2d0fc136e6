package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
)

// lockedBuffer is a bytes.Buffer safe to read while the REPL writes.
type lockedBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func newLockedBuffer() *lockedBuffer { return &lockedBuffer{mu: make(chan struct{}, 1)} }

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

// newTestREPL returns a session reading input, with an interrupt channel
// the test controls and a "ready" tool that reports when evaluation has
// reached it.
func newTestREPL(t *testing.T, input string) (*replSession, chan os.Signal, chan struct{}, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	out, errb := newLockedBuffer(), newLockedBuffer()
	o, err := parseArgs([]string{"-i", "--no-builtins"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(o, stdio{in: strings.NewReader(input), out: out, err: errb}, []string{"agentsh"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	ready := make(chan struct{}, 4)
	err = a.exec.Registry().RegisterTools(core.Tool{Name: "ready", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		ready <- struct{}{}
		return "", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	s := &replSession{a: a, lines: &plainReader{r: bufio.NewReader(strings.NewReader(input))}, signals: sig}
	return s, sig, ready, out, errb
}

// runLoop runs the session and fails the test if it does not end.
func runLoop(t *testing.T, s *replSession) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- s.loop() }()
	select {
	case code := <-done:
		return code
	case <-time.After(60 * time.Second):
		t.Fatal("REPL did not finish")
		return -1
	}
}

func interruptWhenReady(t *testing.T, ready chan struct{}, sig chan os.Signal) {
	go func() {
		select {
		case <-ready:
			sig <- os.Interrupt
		case <-time.After(60 * time.Second):
		}
	}()
}

// Ctrl-C stops a runaway loop without ending the session.
func TestREPLInterruptStopsLoop(t *testing.T) {
	input := "def spin():\n    invoke_tool(\"ready\")\n    while True:\n        pass\n\nspin()\nprint(\"still here\")\n"
	s, sig, ready, out, errb := newTestREPL(t, input)
	interruptWhenReady(t, ready, sig)
	if code := runLoop(t, s); code != 0 {
		t.Fatalf("exit %d, want 0 (Ctrl-D at the end)", code)
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stderr %q does not report the interrupt", errb.String())
	}
	if out.String() != "still here\n" {
		t.Errorf("stdout %q; want the session to go on after the interrupt", out.String())
	}
}

// Ctrl-C cancels the tool call that is running, through its context.
func TestREPLInterruptCancelsToolCall(t *testing.T) {
	input := "r = invoke_tool(\"block\")\nprint(\"after\")\n"
	s, sig, _, out, errb := newTestREPL(t, input)
	started := make(chan struct{}, 1)
	var sawCancel atomic.Bool
	err := s.a.exec.Registry().RegisterTools(core.Tool{Name: "block", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		sawCancel.Store(errors.Is(ctx.Err(), context.Canceled))
		return nil, ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	interruptWhenReady(t, started, sig)
	runLoop(t, s)
	if !sawCancel.Load() {
		t.Error("the running tool call was not cancelled")
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stderr %q does not report the interrupt", errb.String())
	}
	if out.String() != "after\n" {
		t.Errorf("stdout %q, want the next input to run", out.String())
	}
}

// An interrupt that arrives between evaluations does not cancel the next.
func TestREPLStaleInterruptIgnored(t *testing.T) {
	s, sig, _, out, errb := newTestREPL(t, "print(\"runs\")\n")
	sig <- os.Interrupt
	runLoop(t, s)
	if out.String() != "runs\n" || errb.String() != "" {
		t.Errorf("stdout %q, stderr %q; want the chunk to run untouched", out.String(), errb.String())
	}
}

func TestREPLIncompleteInputAtEOF(t *testing.T) {
	// A syntax error is reported and the session goes on; a block still
	// open when input ends is dropped quietly.
	s, _, _, out, errb := newTestREPL(t, "print(1)\ndef f(:\nprint(2)\nfor x in [1]:\n")
	if code := runLoop(t, s); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if out.String() != "1\n2\n" {
		t.Errorf("stdout %q", out.String())
	}
	if errb.String() != "<stdin>:1:8: got ':', want ')'\n" {
		t.Errorf("stderr %q; want the syntax error's position", errb.String())
	}
}

func TestSaveHistoryMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "agentsh", "history")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := saveHistory(path, func(w io.Writer) (int, error) { return io.WriteString(w, "x = 1\nprint(x)\n") })
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v, want 0600", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); string(b) != "x = 1\nprint(x)\n" {
		t.Errorf("history %q", b)
	}
	fresh := filepath.Join(t.TempDir(), "new", "history")
	if err := saveHistory(fresh, func(w io.Writer) (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Dir(fresh)); st.Mode().Perm() != 0o700 {
		t.Errorf("history dir mode %v, want 0700", st.Mode().Perm())
	}
	if err := saveHistory(fresh, func(w io.Writer) (int, error) { return 0, errors.New("disk full") }); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error: got %v, want it reported", err)
	}
}

func TestHistoryPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := historyPath(); got != "/state/agentsh/history" {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/ada")
	if got := historyPath(); got != "/home/ada/.local/state/agentsh/history" {
		t.Errorf("without XDG_STATE_HOME: %q", got)
	}
}

func TestComplete(t *testing.T) {
	globals := []string{"_", "invoke_all", "invoke_tool", "json", "print", "tool", "tool_names"}
	tools := []string{"grep", "greet", "mcp__fs__read-file"}
	tests := []struct {
		line string
		want []string
	}{
		{"inv", []string{"invoke_all", "invoke_tool"}},
		{"x = tool", []string{"x = tool", "x = tool_names"}},
		{`invoke_tool("gre`, []string{`invoke_tool("greet`, `invoke_tool("grep`}},
		{`invoke_tool('mcp__fs__read-`, []string{`invoke_tool('mcp__fs__read-file`}},
		{"zzz", nil},
		{"", []string{"invoke_all", "invoke_tool", "json", "print", "tool", "tool_names"}},
	}
	for _, tt := range tests {
		if got := complete(tt.line, globals, tools); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("complete(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// Ctrl-C stops a runaway Lua loop (in a tool called from the REPL) without
// ending the session, and the Lua interpreter stays usable.
func TestREPLInterruptStopsLuaLoop(t *testing.T) {
	input := "tool{name = \"spin\", fn = function() invoke_tool(\"ready\") while true do end end}\n" +
		"invoke_tool(\"spin\").error_kind\nprint(\"still here\")\n"
	s, sig, ready, out, errb := newTestREPL(t, input)
	s.lang = langLua
	interruptWhenReady(t, ready, sig)
	if code := runLoop(t, s); code != 0 {
		t.Fatalf("exit %d, want 0 (Ctrl-D at the end)", code)
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stderr %q does not report the interrupt", errb.String())
	}
	if out.String() != "still here\n" {
		t.Errorf("stdout %q; want the session to go on after the interrupt", out.String())
	}
}

// A Lua syntax error is reported and the session goes on; a block still
// open when input ends is dropped quietly; :star switches languages.
func TestREPLLuaInput(t *testing.T) {
	input := "print(1)\nlocal x = = 2\nfunction f()\n  return 2\nend\nf()\n:star\n1 + 2\n:lua\nfor i = 1, 2 do\n"
	s, _, _, out, errb := newTestREPL(t, input)
	s.lang = langLua
	if code := runLoop(t, s); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if out.String() != "1\n2\n3\n" {
		t.Errorf("stdout %q", out.String())
	}
	if errb.String() != "<stdin>:1: syntax error near '='\nnow Starlark\nnow Lua\n" {
		t.Errorf("stderr %q; want the syntax error's position and the switches", errb.String())
	}
}
