//go:build linux

package process

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// newBwrap returns a BubblewrapExec for a new root, or skips the test with
// the reason bwrap cannot run here.
func newBwrap(t *testing.T) (*BubblewrapExec, string) {
	t.Helper()
	root := realTempDir(t)
	b, err := NewBubblewrapExec(root)
	if err != nil {
		t.Skipf("bubblewrap cannot run here: %v", err)
	}
	return b, root
}

func TestBubblewrapWrites(t *testing.T) {
	t.Parallel()
	b, root := newBwrap(t)
	outside := realTempDir(t)
	must(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	etc := fmt.Sprintf("/etc/agentsh-bwrap-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(etc) })

	// Inside the root: allowed, and visible outside the sandbox.
	res, err := execT(t, b, context.Background(), ExecRequest{Args: bash(`echo hi > inside.txt && pwd`), Dir: "sub"})
	if err != nil || res.ExitCode != 0 || string(res.Output) != root+"/sub\n" {
		t.Fatalf("write inside: %+v, %v", res, err)
	}
	if got, err := os.ReadFile(filepath.Join(root, "sub", "inside.txt")); err != nil || string(got) != "hi\n" {
		t.Errorf("inside.txt: %q, %v", got, err)
	}

	// Outside the root: the file system is read-only.
	res, err = execT(t, b, context.Background(), ExecRequest{Args: bash(`echo x > ` + etc)})
	if err != nil || res.ExitCode == 0 || !strings.Contains(string(res.Output), "Read-only file system") {
		t.Errorf("write to %s: %+v %q, %v; want a read-only error", etc, res, res.Output, err)
	}
	if _, err := os.Stat(etc); err == nil {
		t.Errorf("%s was written", etc)
	}
	// Another directory below /tmp: the sandbox's /tmp is its own.
	res, err = execT(t, b, context.Background(), ExecRequest{Args: bash(`echo x > ` + outside + `/f; echo x > /tmp/f && echo tmp ok`)})
	if err != nil || !strings.Contains(string(res.Output), "tmp ok") {
		t.Errorf("write to /tmp: %+v %q, %v", res, res.Output, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Errorf("%s/f was written", outside)
	}
	// No remounting / read-write, not even as root; no sysctl writes.
	res, _ = execT(t, b, context.Background(), ExecRequest{Args: bash(`mount -o remount,rw / 2>/dev/null && echo remounted; cat /proc/sys/kernel/hostname 2>/dev/null > /proc/sys/kernel/hostname && echo sysctl; echo end`)})
	if string(res.Output) != "end\n" {
		t.Errorf("escape attempts: %q", res.Output)
	}
}

func TestBubblewrapReadsOutside(t *testing.T) {
	t.Parallel()
	b, _ := newBwrap(t)
	want, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Skip(err)
	}
	res, err := execT(t, b, context.Background(), ExecRequest{Args: []string{"cat", "/etc/passwd"}})
	if err != nil || res.ExitCode != 0 || string(res.Output) != string(want) {
		t.Errorf("cat /etc/passwd: %+v, %v", res, err)
	}
}

func TestBubblewrapNoNetwork(t *testing.T) {
	t.Parallel()
	b, root := newBwrap(t)
	assertNoTCP(t, root, b)
}

// assertNoTCP checks that a command run through ops cannot connect to a
// listener on the loopback interface that the same command reaches from
// outside the sandbox, in root. It returns the listener's count of
// connections, for more attempts to check.
func assertNoTCP(t *testing.T, root string, ops ExecOps) (accepted func() int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	first := make(chan struct{}) // closed when the first connection is counted
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if n.Add(1) == 1 {
				close(first)
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := bash(`exec 3<>/dev/tcp/127.0.0.1/` + port + ` && echo connected`)

	// The same command reaches the listener from outside the sandbox.
	res, err := execT(t, NewLocalExec(root), context.Background(), ExecRequest{Args: connect})
	if err != nil || string(res.Output) != "connected\n" {
		t.Fatalf("outside the sandbox: %+v %q, %v", res, res.Output, err)
	}
	// The listener counts that connection on its own goroutine: wait for
	// it, so that it cannot be taken for one from the sandbox.
	select {
	case <-first:
	case <-time.After(watchdog):
		t.Fatal("the listener never counted the connection from outside the sandbox")
	}
	before := n.Load()
	res, err = execT(t, ops, context.Background(), ExecRequest{Args: connect, Timeout: testwait.Bound(20 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || strings.Contains(string(res.Output), "connected") {
		t.Errorf("inside the sandbox: %+v %q; want the connection to fail", res, res.Output)
	}
	if n.Load() != before {
		t.Error("the listener accepted a connection from the sandbox")
	}
	return func() int32 { return n.Load() - before }
}

func TestBubblewrapBasics(t *testing.T) {
	t.Parallel()
	b, root := newBwrap(t)
	must(t, os.Symlink(realTempDir(t), filepath.Join(root, "out")))
	res, err := execT(t, b, context.Background(), ExecRequest{
		Args:  bash(`echo "$FOO $TMPDIR"; cat; echo err >&2; exit 4`),
		Env:   []string{"FOO=bar"},
		Stdin: []byte("in\n"),
	})
	if err != nil || string(res.Output) != "bar /tmp\nin\nerr\n" || res.ExitCode != 4 {
		t.Errorf("got %+v %q, %v", res, res.Output, err)
	}
	if _, err := b.Exec(context.Background(), ExecRequest{Args: []string{"pwd"}, Dir: "out"}); err == nil || !strings.Contains(err.Error(), "outside the working directory") {
		t.Errorf("Dir out: got %v", err)
	}
	if _, err := b.Exec(context.Background(), ExecRequest{Args: []string{"agentsh-no-such-program"}}); err == nil || !strings.Contains(err.Error(), `"agentsh-no-such-program" not found`) {
		t.Errorf("unknown program: got %v", err)
	}
	if _, err := NewBubblewrapExec("/"); err == nil {
		t.Error("NewBubblewrapExec(/): no error")
	}
}

// sandboxProcs lists the host pids of live processes whose command line
// contains tag.
func sandboxProcs(tag string) []string {
	var pids []string
	for _, p := range listProcs() {
		if p.state == 'Z' {
			continue
		}
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
		if strings.Contains(string(b), tag) {
			pids = append(pids, strconv.Itoa(p.pid))
		}
	}
	return pids
}

// TestBubblewrapKillsEverything: cancelling a run ends every process in
// the sandbox, including one that left the process group (setsid), and a
// process that ignores SIGTERM is killed after the grace period.
func TestBubblewrapKillsEverything(t *testing.T) {
	t.Parallel()
	b, _ := newBwrap(t)
	b.Grace = 300 * time.Millisecond
	for _, tt := range []struct {
		script string
		procs  int // sleeps started
		want   int
	}{
		// 97.""N: the tag 97.N is in the sleeps' command lines, not the shell's.
		{`setsid sleep 97.""%[1]s & sleep 97.""%[1]s & (trap "" TERM; exec sleep 97.""%[1]s) & wait`, 3, 143},
		{`trap "" TERM; sleep 97.""%[1]s & while :; do sleep 0.05; done`, 1, 137},
	} {
		n := fmt.Sprintf("%06d1", (time.Now().UnixNano()/1000)%1000000)
		tag := "97." + n
		script := fmt.Sprintf(tt.script, n)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			defer cancel()
			deadline := time.Now().Add(watchdog)
			for len(sandboxProcs(tag)) < tt.procs {
				if time.Now().After(deadline) {
					t.Errorf("%s: the sleeps never showed up", script)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		res, err := execT(t, b, ctx, ExecRequest{Args: bash(script)})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !res.Canceled || res.ExitCode != tt.want {
			t.Errorf("%s: got %+v %q, want Canceled with exit code %d", script, res, res.Output, tt.want)
		}
		if left := sandboxProcs(tag); len(left) > 0 {
			t.Errorf("%s: processes left: %v", script, left)
			for _, p := range left {
				n, _ := strconv.Atoi(p)
				_ = killPid(n)
			}
		}
	}
}

func TestBubblewrapTimeout(t *testing.T) {
	t.Parallel()
	b, _ := newBwrap(t)
	res, err := execT(t, b, context.Background(), ExecRequest{Args: []string{"sleep", "100"}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Canceled || res.ExitCode != 143 {
		t.Errorf("got %+v %q, want TimedOut with exit code 143", res, res.Output)
	}
	// Background processes end with the command.
	res, err = execT(t, b, context.Background(), ExecRequest{Args: bash(`setsid sleep 100 & sleep 100 & echo done`)})
	if err != nil || string(res.Output) != "done\n" || res.ExitCode != 0 {
		t.Errorf("background: got %+v %q, %v", res, res.Output, err)
	}
}
