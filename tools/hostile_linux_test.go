package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
	"golang.org/x/sys/unix"
)

// maxFileBytes is the file tools' size limit (64 MiB), as documented.
const maxFileBytes = 64 << 20

// callPromptly runs a call in the test process and fails the test if it
// does not return within promptly. Use it only for calls that cannot use
// much memory even when they go wrong.
func (e *env) callPromptly(name string, args any) *core.Result {
	e.t.Helper()
	done := make(chan *core.Result, 1)
	go func() { done <- e.call(name, args) }()
	select {
	case res := <-done:
		return res
	case <-time.After(promptly):
		e.t.Fatalf("%s %v did not return within %v: it blocks", name, args, promptly)
	}
	return nil
}

// A named pipe without a writer would block open() forever: every file
// tool returns at once, refusing it, and nothing is written.
func TestFIFOWithoutWriter(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	fifo := filepath.Join(e.dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(e.dir, "to_fifo")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"fifo", "to_fifo"} {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"read_file", map[string]any{"path": p}, "fifo is a named pipe; read_file reads regular files only"},
			{"edit_file", map[string]any{"path": p, "old_string": "a", "new_string": "b"}, "fifo is a named pipe; edit_file edits regular files only"},
			{"write_file", map[string]any{"path": p, "content": "x"}, "fifo is a named pipe; write_file writes regular files only"},
			{"list_dir", map[string]any{"path": p}, "fifo is a named pipe, not a directory"},
		} {
			// The link is resolved when the call is made canonical: the
			// tool names what it opened, the pipe.
			res := e.callPromptly(c.tool, c.args)
			if res.OK() || !strings.Contains(res.Err.Error(), c.want) {
				t.Errorf("%s %s: %v %q; want an error with %q", c.tool, p, res.Err, res.ForLLM, c.want)
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v %v", fi, err)
	}
}

// A named pipe with a writer that never stops, and a device like
// /dev/zero, would be read without end: they are refused before any
// read. The calls run in a child process under a memory limit.
func TestEndlessSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// Holding both ends, the writer never blocks open and never sees the
	// reader go; it writes until the test ends.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		chunk := make([]byte, 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { w.Close(); <-stopped })

	special := []string{"fifo"}
	zero := filepath.Join(dir, "zero")
	switch err := unix.Mknod(zero, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 5))); {
	case errors.Is(err, syscall.EPERM):
		t.Log("mknod is not permitted here (run as root to test a character device)")
	case err != nil:
		t.Fatalf("mknod: %v", err)
	default:
		if usableDevice(t, zero) {
			special = append(special, "zero")
		}
	}
	kinds := map[string]string{"fifo": "a named pipe", "zero": "a character device"}
	var calls []toolCall
	var wants []string
	for _, name := range special {
		calls = append(calls,
			toolCall{"read_file", map[string]any{"path": name}},
			toolCall{"edit_file", map[string]any{"path": name, "old_string": "\x00", "new_string": "x"}},
			toolCall{"write_file", map[string]any{"path": name, "content": "x"}})
		wants = append(wants,
			name+" is "+kinds[name]+"; read_file reads regular files only",
			name+" is "+kinds[name]+"; edit_file edits regular files only",
			name+" is "+kinds[name]+"; write_file writes regular files only")
	}
	for i, res := range callsInChild(t, dir, calls...) {
		wantRefused(t, calls[i].Tool+" "+calls[i].Args.(map[string]any)["path"].(string), res, wants[i])
	}
	if len(special) == 1 {
		t.Skip("tested the named pipe only: no usable device node")
	}
}

// usableDevice reports whether the device node at p reads like /dev/zero
// (a filesystem mounted nodev refuses to open it, which would prove
// nothing).
func usableDevice(t *testing.T, p string) bool {
	f, err := os.Open(p)
	if err != nil {
		t.Logf("device nodes do not work in %s (%v); not testing a device", filepath.Dir(p), err)
		return false
	}
	defer f.Close()
	b := make([]byte, 8)
	n, err := f.Read(b)
	return err == nil && n == 8 && string(b) == "\x00\x00\x00\x00\x00\x00\x00\x00"
}

// A sparse file of 5 GiB costs no disk; read_file and edit_file refuse it
// on its size, without reading it.
func TestSparseHugeFile(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int64{"huge": 5 << 30, "just_over": maxFileBytes + 1} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	res := callsInChild(t, dir,
		toolCall{"edit_file", map[string]any{"path": "huge", "old_string": "\x00", "new_string": "x"}},
		toolCall{"read_file", map[string]any{"path": "huge"}},
		toolCall{"edit_file", map[string]any{"path": "just_over", "old_string": "\x00", "new_string": "x"}})
	wantRefused(t, "edit_file huge", res[0], "huge is 5368709120 bytes, more than edit_file's limit of 67108864; nothing changed")
	wantRefused(t, "read_file huge", res[1], "huge is 5368709120 bytes, more than read_file's 67108864")
	wantRefused(t, "edit_file just_over", res[2], "just_over is 67108865 bytes, more than edit_file's limit of 67108864")
	if fi, err := os.Stat(filepath.Join(dir, "huge")); err != nil || fi.Size() != 5<<30 {
		t.Errorf("huge changed: %v %v", fi, err)
	}
}

// edit_file refuses an edit whose result would be over the limit before
// building it. (write_file's limit on content is tested inside the
// package, without 64 MiB of JSON.)
func TestEditSizeLimit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"small": strings.Repeat("a", 1<<20)})
	// 1 MiB of "a", each replaced by 100 bytes (100 MiB), then by 64
	// (exactly the limit).
	res := callsInChild(t, dir,
		toolCall{"edit_file", map[string]any{"path": "small", "old_string": "a", "new_string": strings.Repeat("b", 100), "replace_all": true}},
		toolCall{"read_file", map[string]any{"path": "small", "limit": 1}},
		toolCall{"edit_file", map[string]any{"path": "small", "old_string": "a", "new_string": strings.Repeat("b", 64), "replace_all": true}})
	wantRefused(t, "edit_file growing past the limit", res[0], "the edited small would be 104857600 bytes, more than edit_file's limit of 67108864; nothing changed")
	if want := "     1\t" + strings.Repeat("a", 2000) + "… [line cut: 1046576 more characters]\n"; res[1].Output != want {
		t.Errorf("small changed: %.100q", res[1].Output)
	}
	if !res[2].OK {
		t.Errorf("edit_file to exactly the limit: %s", res[2].Err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "small")); err != nil || fi.Size() != maxFileBytes {
		t.Errorf("after an edit to the limit: %v %v", fi, err)
	}
}

// A file that grows while read_file reads it is read through the cap: the
// call either reads a snapshot within the limit or says it grew, and
// never reads on without end.
func TestFileGrowingWhileRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "grow")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// The appender keeps the file between 62 and 66 MiB, around the limit,
	// growing it all the time, until the test ends.
	const low, high = 62 << 20, 66 << 20
	stop, stopped := make(chan struct{}), make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(stopped)
		ready := ready
		chunk := []byte(strings.Repeat("grow\n", 1<<16))
		size := int64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if size >= high {
				f.Truncate(low)
				f.Seek(low, 0)
				size = low
			}
			n, err := f.Write(chunk)
			if err != nil {
				return
			}
			size += int64(n)
			if size >= low && ready != nil {
				close(ready)
				ready = nil
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-stopped; f.Close() })
	<-ready
	read := toolCall{"read_file", map[string]any{"path": "grow", "limit": 1}}
	for _, res := range callsInChild(t, dir, read, read, read) {
		if !res.OK {
			wantRefused(t, "read_file of a growing file", res, "grow")
			if !strings.Contains(res.Err, "grew past read_file's limit of 67108864 bytes while it was read") &&
				!strings.Contains(res.Err, "more than read_file's 67108864") {
				t.Errorf("read_file of a growing file: %s", res.Err)
			}
			t.Logf("refused: %s", res.Err)
		} else if !strings.HasPrefix(res.Output, "     1\tgrow\n[showing lines 1-1 of ") {
			t.Errorf("read_file of a growing file: %q", res.Output)
		} else {
			t.Logf("read a snapshot: %s", res.Output)
		}
	}
}
