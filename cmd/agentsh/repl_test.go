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
	"github.com/agentsh/agentsh/internal/testwait"
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
	err = a.sh.Executor().Registry().RegisterTools(core.Tool{Name: "ready", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
		ready <- struct{}{}
		return "", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	s := &replSession{a: a, lang: a.opts.lang, lines: &plainReader{r: bufio.NewReader(strings.NewReader(input))}, signals: sig}
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
	case <-time.After(testwait.Step):
		t.Fatal("REPL did not finish")
		return -1
	}
}

func interruptWhenReady(t *testing.T, ready chan struct{}, sig chan os.Signal) {
	go func() {
		select {
		case <-ready:
			sig <- os.Interrupt
		case <-time.After(testwait.Step):
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
	err := s.a.sh.Executor().Registry().RegisterTools(core.Tool{Name: "block", Func: func(ctx context.Context, _ json.RawMessage) (any, error) {
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

// TestComplete: Tab offers globals, members after a dot (not every
// global glued to the dot), tool names in strings, and an indent at the
// start of a continuation line, in both languages.
func TestComplete(t *testing.T) {
	s, _, _, _, _ := newTestREPL(t, "")
	for _, name := range []string{"grep", "greet", "mcp__fs__read-file"} {
		if err := s.a.sh.Executor().Registry().RegisterTools(core.Tool{Name: name, Func: func(context.Context, json.RawMessage) (any, error) { return "", nil }}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := s.a.sh.Interp("starlark").Eval(ctx, "<test>", []byte("def helper(): pass\nd = {}")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lang, line string
		cont       bool
		want       []string
	}{
		{"starlark", "inv", false, []string{"invoke_all", "invoke_tool"}},
		{"starlark", "x = tool", false, []string{"x = tool", "x = tool_names"}},
		{"starlark", "hel", false, []string{"help", "helper"}},
		{"starlark", "state.", false, []string{"state.delete", "state.get", "state.incr", "state.keys", "state.set"}},
		{"starlark", "x = state.g", false, []string{"x = state.get"}},
		{"starlark", "json.enc", false, []string{"json.encode", "json.encode_indent"}},
		{"starlark", "d.ke", false, []string{"d.keys"}},
		{"starlark", "nosuch.", false, nil},
		{"starlark", `invoke_tool("gre`, false, []string{`invoke_tool("greet`, `invoke_tool("grep`}},
		{"starlark", `invoke_tool('mcp__fs__read-`, false, []string{`invoke_tool('mcp__fs__read-file`}},
		{"starlark", "zzz", false, nil},
		{"starlark", "", true, []string{"    "}},
		{"starlark", "    ", true, []string{"        "}},
		{"starlark", "    inv", true, []string{"    invoke_all", "    invoke_tool"}},
		{"lua", "string.up", false, []string{"string.upper"}},
		{"lua", "state.", false, []string{"state.delete", "state.get", "state.incr", "state.keys", "state.set"}},
		{"lua", "x = state:g", false, []string{"x = state:get"}},
		{"lua", "invoke_t", false, []string{"invoke_tool"}},
		{"lua", "", true, []string{"    "}},
	}
	for _, tt := range tests {
		s.lang = tt.lang
		head, words, tail := s.complete(tt.line, len(tt.line), tt.cont)
		var got []string
		for _, w := range words {
			got = append(got, head+w+tail)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: complete(%q, cont %v) = %q, want %q", tt.lang, tt.line, tt.cont, got, tt.want)
		}
	}
	// Empty: every global not starting with _, no internals.
	s.lang = "starlark"
	_, words, _ := s.complete("", 0, false)
	if len(words) < 10 || strings.HasPrefix(strings.Join(words, " "), "_") {
		t.Errorf("complete(\"\") = %q, want the globals", words)
	}
	// The cursor inside the line: the text after it stays.
	head, words, tail := s.complete("x = inv(1)", 7, false)
	if head != "x = " || tail != "(1)" || len(words) != 2 {
		t.Errorf("mid-line: %q %q %q", head, words, tail)
	}
}

// Ctrl-C stops a runaway Lua loop (in a tool called from the REPL) without
// ending the session, and the Lua interpreter stays usable.
func TestREPLInterruptStopsLuaLoop(t *testing.T) {
	input := "tool{name = \"spin\", fn = function() invoke_tool(\"ready\") while true do end end}\n" +
		"invoke_tool(\"spin\").error_kind\nprint(\"still here\")\n"
	s, sig, ready, out, errb := newTestREPL(t, input)
	s.lang = "lua"
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
	s.lang = "lua"
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

// promptRecorder is a lineReader that keeps the prompts it was shown.
type promptRecorder struct {
	lines   []string
	prompts []string
}

func (p *promptRecorder) prompt(s string) (string, error) {
	p.prompts = append(p.prompts, s)
	if len(p.lines) == 0 {
		return "", io.EOF
	}
	l := p.lines[0]
	p.lines = p.lines[1:]
	return l, nil
}

func (p *promptRecorder) close() {}

// An unfinished expression continues on a "... " line, as a block does:
// in Lua any expression (as lua.c does), in Starlark one in brackets (as
// Python does).
func TestREPLContinuesExpression(t *testing.T) {
	for lang, lines := range map[string][]string{
		"lua":      {"1 +", "2", ""},
		"starlark": {"(1 +", "2)", ""},
	} {
		t.Run(lang, func(t *testing.T) {
			s, _, _, out, errb := newTestREPL(t, "")
			s.lang = lang
			rec := &promptRecorder{lines: lines}
			s.lines = rec
			if code := runLoop(t, s); code != 0 {
				t.Fatalf("exit %d, want 0; stderr %q", code, errb.String())
			}
			if out.String() != "3\n" {
				t.Errorf("stdout %q, want 3; stderr %q", out.String(), errb.String())
			}
			if len(rec.prompts) < 2 || rec.prompts[1] != contPrompt {
				t.Errorf("prompts %q; want %q after the unfinished line", rec.prompts, contPrompt)
			}
		})
	}
}
