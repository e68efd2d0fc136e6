package tools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/tools"
	"golang.org/x/sys/unix"
)

// The "writer" child starts a write_file of 2 MiB and, once the first
// chunk is in its temporary file, says "writing NAME" and stops there for
// good, holding the file and its lock: a writer caught mid-write.
func init() { children["writer"] = childWriter }

func childWriter() int {
	dir, path := os.Getenv("AGENTSH_TOOLS_TEST_DIR"), os.Getenv("AGENTSH_TOOLS_TEST_PATH")
	ex, err := childExecutor(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tools.SetTestHookWrote(func(tmp string) {
		fmt.Printf("writing %s\n", tmp)
		select {}
	})
	args, _ := json.Marshal(map[string]any{"path": path, "content": strings.Repeat("data\n", 2<<20/5)})
	res, _ := ex.InvokeTool(context.Background(), "write_file", args)
	fmt.Fprintf(os.Stderr, "the write ended, which it should not: %v\n", res.Err)
	return 1
}

// startWriter starts a writer child on path and returns it once it is
// writing, with the name of its temporary file.
func startWriter(t *testing.T, dir, path string) (*childProc, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	cmd := childCmd(ctx, "writer", "AGENTSH_TOOLS_TEST_DIR="+dir, "AGENTSH_TOOLS_TEST_PATH="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &childProc{cmd: cmd, cancel: cancel}
	t.Cleanup(func() { p.kill() })
	line := readLine(t, bufio.NewReader(stdout))
	tmp, ok := strings.CutPrefix(line, "writing ")
	if !ok {
		t.Fatalf("writer said %q", line)
	}
	return p, tmp
}

type childProc struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	killed bool
}

// kill ends the child with SIGKILL (what exec.CommandContext sends when
// its context is cancelled) and waits for it. It reports whether SIGKILL
// is what ended it.
func (p *childProc) kill() bool {
	if p.killed {
		return false
	}
	p.killed = true
	p.cancel()
	p.cmd.Wait()
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// A write_file killed with SIGKILL mid-write leaves its temporary file;
// the next write in that directory removes it, but not the file of a
// writer that is still alive, however slow, nor anything that only looks
// like a temporary file. Once that slow writer dies, its file goes too.
func TestKilledWriterLeavesNoTempBehind(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	sub := filepath.Join(e.dir, "sub")
	e.write(map[string]string{"sub/keep.txt": "keep\n", "other/keep.txt": "keep\n"})

	dead, deadTmp := startWriter(t, e.dir, "sub/a.txt")
	if !dead.kill() {
		t.Fatalf("the writer did not die of SIGKILL: %v", dead.cmd.ProcessState)
	}
	fi, err := os.Stat(filepath.Join(sub, deadTmp))
	if err != nil {
		t.Fatalf("the killed writer left no temporary file: %v", err)
	}
	if fi.Size() < 1<<20 {
		t.Fatalf("the killed writer's file holds %d bytes, want its first chunk", fi.Size())
	}
	if !tempPattern(deadTmp) {
		t.Fatalf("temporary name %q does not have the documented form", deadTmp)
	}
	live, liveTmp := startWriter(t, e.dir, "sub/b.txt")

	// Lookalikes: a non-hex name, a named pipe and a directory with a
	// temporary name, an empty fresh file (perhaps a writer between
	// create and lock), and the same in another directory.
	decoys := map[string]bool{ // name → should survive
		".agentsh-tmp-zzzzzzzzzzzzzzzz":  true,
		".agentsh-tmp-0123456789abcdeF":  true,
		".agentsh-tmp-0123456789abcdef0": true,
		".agentsh-tmp-00000000000000aa":  true,  // empty and fresh
		".agentsh-tmp-00000000000000bb":  false, // empty and old
		".agentsh-tmp-00000000000000cc":  false, // not empty, unlocked
	}
	for name := range decoys {
		content := "x"
		if strings.HasSuffix(name, "aa") || strings.HasSuffix(name, "bb") {
			content = ""
		}
		writeTree(t, sub, map[string]string{name: content})
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(filepath.Join(sub, ".agentsh-tmp-00000000000000bb"), old, old); err != nil {
		t.Fatal(err)
	}
	fifo := ".agentsh-tmp-00000000000000dd"
	if err := unix.Mkfifo(filepath.Join(sub, fifo), 0o644); err != nil {
		t.Fatal(err)
	}
	decoys[fifo] = true
	if err := os.Mkdir(filepath.Join(sub, ".agentsh-tmp-00000000000000ee"), 0o755); err != nil {
		t.Fatal(err)
	}
	decoys[".agentsh-tmp-00000000000000ee"] = true
	writeTree(t, e.dir, map[string]string{"other/.agentsh-tmp-00000000000000ff": "x"})

	e.ok("write_file", map[string]any{"path": "sub/c.txt", "content": "c\n"})

	if _, err := os.Lstat(filepath.Join(sub, deadTmp)); !os.IsNotExist(err) {
		t.Errorf("the killed writer's temporary file is still there after a write: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(sub, liveTmp)); err != nil {
		t.Errorf("a live writer's temporary file was removed: %v", err)
	}
	for name, survive := range decoys {
		_, err := os.Lstat(filepath.Join(sub, name))
		if survive && err != nil {
			t.Errorf("%s was removed", name)
		}
		if !survive && err == nil {
			t.Errorf("%s (stale) is still there", name)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.dir, "other/.agentsh-tmp-00000000000000ff")); err != nil {
		t.Errorf("a write in sub/ removed a temporary file in other/: %v", err)
	}
	for _, f := range []string{"sub/a.txt", "sub/b.txt"} {
		if _, err := os.Lstat(filepath.Join(e.dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s exists, though its writer never finished", f)
		}
	}
	if e.read("sub/c.txt") != "c\n" || e.read("sub/keep.txt") != "keep\n" {
		t.Error("the write or its neighbour is wrong")
	}

	// Once the slow writer dies too, its file goes with the next write,
	// an edit this time.
	if !live.kill() {
		t.Fatalf("the writer did not die of SIGKILL: %v", live.cmd.ProcessState)
	}
	e.ok("edit_file", map[string]any{"path": "sub/c.txt", "old_string": "c", "new_string": "d"})
	if _, err := os.Lstat(filepath.Join(sub, liveTmp)); !os.IsNotExist(err) {
		t.Errorf("after its writer died, the next write left %s: %v", liveTmp, err)
	}
}

// tempPattern is the documented form: ".agentsh-tmp-" and 16 lowercase
// hex digits.
func tempPattern(name string) bool {
	h, ok := strings.CutPrefix(name, ".agentsh-tmp-")
	if !ok || len(h) != 16 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}
