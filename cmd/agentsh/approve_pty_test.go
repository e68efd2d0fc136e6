//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentsh/agentsh/internal/testwait"
)

// terminal is agentsh running on a pseudo-terminal, as a person would use
// the REPL.
type terminal struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // the output consumed by expect
	done chan struct{}
}

func startTerminal(t *testing.T, dir string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTSH_MAIN=1", "TERM=xterm", "XDG_STATE_HOME="+t.TempDir())
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tm := &terminal{t: t, pty: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
	})
	return tm
}

// expect waits until want appears in the output after what earlier
// expects consumed, and returns the output up to and including it.
func (tm *terminal) expect(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(testwait.Step) // a failure guard only
	for {
		ended := false
		select {
		case <-tm.done: // all output is in
			ended = true
		default:
		}
		tm.mu.Lock()
		out := tm.out.String()
		tm.mu.Unlock()
		if i := strings.Index(out[tm.seen:], want); i >= 0 {
			got := out[tm.seen : tm.seen+i+len(want)]
			tm.seen += i + len(want)
			return got
		}
		if ended {
			tm.t.Fatalf("agentsh ended before printing %q; output after the last match:\n%s", want, out[tm.seen:])
		}
		time.Sleep(10 * time.Millisecond)
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %q in the output after the last match:\n%s", want, out[tm.seen:])
		}
	}
}

func (tm *terminal) send(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.pty, s); err != nil {
		tm.t.Fatal(err)
	}
}

// The REPL asks the person at the terminal about the model's writes and
// edits, with a diff: y runs the call once, a runs it and every later
// call of the tool without asking, n denies it with a reason the model
// sees, and Ctrl-C denies it and leaves the session usable.
func TestREPLApprovalPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a terminal session")
	}
	dir := t.TempDir()
	model := `
def scripted(messages, tools):
    last = messages[-1]
    if last["role"] == "tool":
        return "saw: " + last["content"]
    content = {"one": "hello\n", "two": "hello\nworld\n", "three": "hello\nworld\nagain\n"}
    if last["content"] in content:
        return {"tool_calls": [{"name": "write_file", "args": {"path": "a.txt", "content": content[last["content"]]}}]}
    return {"tool_calls": [{"name": "edit_file", "args": {"path": "a.txt", "old_string": "world", "new_string": "there"}}]}

model(scripted)
`
	if err := os.WriteFile(filepath.Join(dir, "model.star"), []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTerminal(t, dir, "--workdir", dir, "--load", "model.star")
	tm.expect(">>> ")

	// y: once. A new file is all added lines.
	tm.send(":ask one\r")
	shown := tm.expect("allow write_file? y once, a always this session, n no: ")
	for _, want := range []string{
		"the model wants to run write_file",
		"asked by default: the model called write_file, which is not read-only",
		"--- /dev/null", "+++ b/a.txt", "+hello",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the prompt for a new file does not show %q:\n%s", want, shown)
		}
	}
	tm.send("y\r")
	tm.expect("saw: wrote 6 bytes to a.txt")
	tm.expect(">>> ")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "hello\n" {
		t.Fatalf("a.txt = %q after y, want the write", b)
	}

	// a: always for write_file in this session. The diff shows the change.
	tm.send(":ask two\r")
	shown = tm.expect("allow write_file? ")
	if !strings.Contains(shown, "--- a/a.txt") || !strings.Contains(shown, " hello") || !strings.Contains(shown, "+world") {
		t.Errorf("the prompt for a change does not show its diff:\n%s", shown)
	}
	tm.send("a\r")
	tm.expect("saw: wrote 12 bytes to a.txt")
	tm.expect(">>> ")
	// The next write is not asked.
	tm.send(":ask three\r")
	shown = tm.expect("saw: wrote 18 bytes to a.txt")
	if strings.Contains(shown, "allow write_file?") {
		t.Errorf("write_file was asked again after a (always):\n%s", shown)
	}
	tm.expect(">>> ")

	// n with a reason: the edit is denied and the model sees the reason.
	tm.send(":ask four\r")
	shown = tm.expect("allow edit_file? ")
	if !strings.Contains(shown, "-world") || !strings.Contains(shown, "+there") {
		t.Errorf("the prompt for an edit does not show its diff:\n%s", shown)
	}
	tm.send("n\r")
	tm.expect("reason for the model (optional): ")
	tm.send("not today\r")
	tm.expect("saw: error (rejected): not approved: not today")
	tm.expect(">>> ")

	// Ctrl-C at the prompt denies; the session goes on.
	tm.send(":ask five\r")
	tm.expect("allow edit_file? ")
	tm.send("\x03")
	tm.expect("saw: error (rejected): not approved: the user pressed Ctrl-C at the approval prompt")
	tm.expect(">>> ")
	tm.send("print(\"still\" + \" here\")\r")
	tm.expect("still here")
	tm.expect(">>> ")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "hello\nworld\nagain\n" {
		t.Errorf("a.txt = %q; the denied edits changed it", b)
	}

	tm.send("\x04") // Ctrl-D
	select {
	case <-tm.done:
	case <-time.After(testwait.Step):
		t.Fatal("agentsh did not exit on Ctrl-D")
	}
	err := tm.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if code := tm.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after Ctrl-D, want 0", code)
	}
}
