//go:build linux

package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// watchdog turns a hang into a failure; it is never a timing assertion.
const watchdog = testwait.Step

// execT runs req on e, failing the test if it takes longer than watchdog.
func execT(t *testing.T, e ExecOps, ctx context.Context, req ExecRequest) (ExecResult, error) {
	t.Helper()
	type out struct {
		res ExecResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := e.Exec(ctx, req)
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-time.After(watchdog):
		t.Fatalf("Exec(%q) did not return within %s", req.Args, watchdog)
		return ExecResult{}, nil
	}
}

// growTimeout runs a command that a timeout is to stop, through run,
// with a timeout that grows fourfold from first until run reports that
// the command got ready (set a trap, started its children) before it was
// stopped: on a busy machine the first timeouts may fire before, which
// would test nothing. Past testwait.Step the test fails, with what run
// last said.
func growTimeout(t testing.TB, first time.Duration, run func(timeout time.Duration) (ready bool, last string)) {
	t.Helper()
	for timeout := first; ; timeout = min(4*timeout, testwait.Step) {
		ready, last := run(timeout)
		if ready {
			return
		}
		if timeout >= testwait.Step {
			t.Fatalf("the command was never ready before its timeout of %s: %s", timeout, last)
		}
	}
}

// timeoutWhenReady runs req on e with a Timeout that grows (growTimeout)
// until the command made the file ready before it was stopped.
func timeoutWhenReady(t *testing.T, e ExecOps, req ExecRequest, ready string) ExecResult {
	t.Helper()
	var res ExecResult
	growTimeout(t, 300*time.Millisecond, func(timeout time.Duration) (bool, string) {
		os.Remove(ready)
		req.Timeout = timeout
		var err error
		if res, err = execT(t, e, context.Background(), req); err != nil {
			t.Fatalf("%q: %v", req.Args, err)
		}
		_, err = os.Stat(ready)
		return err == nil, fmt.Sprintf("%q made no %s: %+v %q", req.Args, ready, res, res.Output)
	})
	return res
}

func bash(script string) []string { return []string{"bash", "-c", script} }

// realTempDir is a temporary directory with its symbolic links resolved.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitLines polls path until it has at least n lines and returns them.
func waitLines(t *testing.T, path string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for {
		b, _ := os.ReadFile(path)
		if lines := strings.Fields(string(b)); len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not get %d lines within %s; it has %q", path, n, watchdog, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether process pid exists and is not a zombie (a zombie
// whose parent does not reap it is dead all the same).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// assertGone fails if any of pids is alive. The processes were SIGKILLed
// before Exec returned; Exec waits until the kernel has done with them, so
// no waiting is needed here.
func assertGone(t *testing.T, pids []string) {
	t.Helper()
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad pid %q", s)
		}
		if alive(pid) {
			t.Errorf("process %d is still running after Exec returned", pid)
			_ = killPid(pid)
		}
	}
}

func killPid(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func TestLocalExecExitCodes(t *testing.T) {
	t.Parallel()
	e := NewLocalExec(t.TempDir())
	tests := []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"false", 1},
		{"exit 255", 255},
		{"kill -TERM $$", 143},
		{"kill -KILL $$", 137},
	}
	for _, tt := range tests {
		res, err := execT(t, e, context.Background(), ExecRequest{Args: bash(tt.script)})
		if err != nil {
			t.Fatalf("%s: %v", tt.script, err)
		}
		if res.ExitCode != tt.want || res.TimedOut || res.Canceled {
			t.Errorf("%s: got %+v, want exit code %d", tt.script, res, tt.want)
		}
	}
}

func TestLocalExecOutputInterleaved(t *testing.T) {
	t.Parallel()
	e := NewLocalExec(t.TempDir())
	res, err := execT(t, e, context.Background(), ExecRequest{Args: bash(`echo out1; echo err1 >&2; printf out2; echo; echo err2 1>&2; exit 2`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "out1\nerr1\nout2\nerr2\n"; string(res.Output) != want || res.ExitCode != 2 {
		t.Errorf("got %q (exit %d), want %q (exit 2)", res.Output, res.ExitCode, want)
	}
}

func TestLocalExecStdin(t *testing.T) {
	t.Parallel()
	e := NewLocalExec(t.TempDir())
	res, err := execT(t, e, context.Background(), ExecRequest{Args: []string{"cat"}, Stdin: []byte("hello\nworld")})
	if err != nil || string(res.Output) != "hello\nworld" {
		t.Errorf("cat: got %q, %v", res.Output, err)
	}
	big := bytes.Repeat([]byte("x"), 3<<20)
	res, err = execT(t, e, context.Background(), ExecRequest{Args: []string{"wc", "-c"}, Stdin: big})
	if err != nil || strings.TrimSpace(string(res.Output)) != strconv.Itoa(len(big)) {
		t.Errorf("wc -c of 3 MiB: got %q, %v", res.Output, err)
	}
	// A process that never reads a large stdin does not hang the run.
	res, err = execT(t, e, context.Background(), ExecRequest{Args: []string{"true"}, Stdin: big})
	if err != nil || res.ExitCode != 0 {
		t.Errorf("true with unread stdin: got %+v, %v", res, err)
	}
	// No Stdin: standard input is empty.
	res, err = execT(t, e, context.Background(), ExecRequest{Args: []string{"wc", "-c"}})
	if err != nil || strings.TrimSpace(string(res.Output)) != "0" {
		t.Errorf("wc -c without stdin: got %q, %v", res.Output, err)
	}
}

func TestLocalExecEnv(t *testing.T) {
	t.Setenv("AGENTSH_TEST_SECRET", "s3cret")
	e := NewLocalExec(t.TempDir())
	res, err := execT(t, e, context.Background(), ExecRequest{
		Args: bash(`echo "foo=$FOO secret=${AGENTSH_TEST_SECRET:-unset} term=$TERM home=${HOME:+set}"`),
		Env:  []string{"FOO=bar", "FOO=baz"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "foo=baz secret=unset term=dumb home=set\n"; string(res.Output) != want {
		t.Errorf("got %q, want %q", res.Output, want)
	}
	// BaseEnv replaces DefaultEnv; the request's Env still wins.
	e.BaseEnv = []string{"PATH=" + os.Getenv("PATH"), "A=base", "B=base"}
	res, err = execT(t, e, context.Background(), ExecRequest{Args: []string{"env"}, Env: []string{"C=req", "B=req"}})
	if want := "PATH=" + os.Getenv("PATH") + "\nA=base\nB=req\nC=req\n"; err != nil || string(res.Output) != want {
		t.Errorf("BaseEnv: got %q, %v; want %q", res.Output, err, want)
	}
	for _, bad := range []string{"NOEQUALS", "=value", "A=b\x00c"} {
		if _, err := e.Exec(context.Background(), ExecRequest{Args: []string{"true"}, Env: []string{bad}}); err == nil || !strings.Contains(err.Error(), "not KEY=VALUE") {
			t.Errorf("Env %q: got %v, want a KEY=VALUE error", bad, err)
		}
	}
}

func TestDefaultEnv(t *testing.T) {
	t.Setenv("AGENTSH_TEST_SECRET", "s3cret")
	t.Setenv("LC_TIME", "C")
	env := strings.Join(DefaultEnv(), "\n") + "\n"
	for _, want := range []string{"PATH=", "LC_TIME=C\n", "TERM=dumb\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("DefaultEnv lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "AGENTSH_TEST_SECRET") {
		t.Errorf("DefaultEnv inherits AGENTSH_TEST_SECRET:\n%s", env)
	}
}

func TestLocalExecDir(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	outside := realTempDir(t)
	must(t, os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink("sub/deep", filepath.Join(root, "in")))
	must(t, os.WriteFile(filepath.Join(root, "sub", "hello.sh"), []byte("#!/bin/sh\necho hello from $(pwd)\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "sub", "noexec.sh"), []byte("#!/bin/sh\n"), 0o644))
	e := NewLocalExec(root)

	for dir, want := range map[string]string{"": root, ".": root, "sub": root + "/sub", "sub/deep/": root + "/sub/deep", "in": root + "/sub/deep"} {
		res, err := execT(t, e, context.Background(), ExecRequest{Args: []string{"pwd"}, Dir: dir})
		if err != nil || string(res.Output) != want+"\n" {
			t.Errorf("Dir %q: got %q, %v; want %q", dir, res.Output, err, want)
		}
	}
	res, err := execT(t, e, context.Background(), ExecRequest{Args: []string{"./hello.sh"}, Dir: "sub"})
	if err != nil || string(res.Output) != "hello from "+root+"/sub\n" {
		t.Errorf("./hello.sh: got %q, %v", res.Output, err)
	}

	errs := []struct {
		req  ExecRequest
		want []string
	}{
		{ExecRequest{Args: []string{"pwd"}, Dir: "out"}, []string{`"out"`, outside, "outside the working directory"}},
		{ExecRequest{Args: []string{"pwd"}, Dir: "out/x"}, []string{`"out/x"`}},
		{ExecRequest{Args: []string{"pwd"}, Dir: "../"}, []string{`"../"`, "outside the working directory"}},
		{ExecRequest{Args: []string{"pwd"}, Dir: "missing"}, []string{`"missing"`, "does not exist"}},
		{ExecRequest{Args: []string{"pwd"}, Dir: "file"}, []string{`"file"`, "not a directory"}},
		{ExecRequest{Args: []string{"agentsh-no-such-program"}}, []string{`"agentsh-no-such-program"`, "not found on PATH"}},
		{ExecRequest{Args: []string{"./missing.sh"}, Dir: "sub"}, []string{`"./missing.sh"`, "no such file"}},
		{ExecRequest{Args: []string{"./noexec.sh"}, Dir: "sub"}, []string{`"./noexec.sh"`, "not executable"}},
		{ExecRequest{Args: []string{"sub"}, Env: []string{"PATH=" + root}}, []string{`"sub"`, "not found on PATH"}},
		{ExecRequest{}, []string{"no program"}},
	}
	for _, tt := range errs {
		_, err := e.Exec(context.Background(), tt.req)
		if err == nil {
			t.Errorf("%+v: no error", tt.req)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not contain %q", tt.req, err, w)
			}
		}
	}
	if _, err := NewLocalExec(filepath.Join(root, "nope")).Exec(context.Background(), ExecRequest{Args: []string{"true"}}); err == nil {
		t.Error("a missing root: no error")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestLocalExecTimeout(t *testing.T) {
	t.Parallel()
	e := NewLocalExec(t.TempDir())
	res, err := execT(t, e, context.Background(), ExecRequest{Args: bash("echo started; exec sleep 100"), Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Canceled || res.ExitCode != 143 {
		t.Errorf("got %+v, want TimedOut with exit code 143 (SIGTERM)", res)
	}
}

// TestLocalExecTimeoutKillsTree lets a timeout stop a shell with background
// children and grandchildren; none may survive. The timeout grows until
// the script had time to record its processes.
func TestLocalExecTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	script := `sleep 100 & echo $! >> pids; (sleep 100 & echo $! >> pids; wait) & sleep 100 & echo $! >> pids; echo $$ >> pids; echo done >> pids; wait`
	growTimeout(t, 200*time.Millisecond, func(timeout time.Duration) (bool, string) {
		os.Remove(filepath.Join(root, "pids"))
		res, err := execT(t, e, context.Background(), ExecRequest{Args: bash(script), Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Canceled {
			t.Fatalf("got %+v, want TimedOut", res)
		}
		b, _ := os.ReadFile(filepath.Join(root, "pids"))
		var pids []string
		for _, l := range strings.Fields(string(b)) {
			if l != "done" {
				pids = append(pids, l)
			}
		}
		assertGone(t, pids)
		return len(pids) == 4, fmt.Sprintf("the script recorded %q", b)
	})
}

func TestLocalExecCancelKillsTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitLines(t, filepath.Join(root, "pids"), 4)
		cancel()
	}()
	res, err := execT(t, e, ctx, ExecRequest{Args: bash(`sleep 100 & echo $! >> pids; (sleep 100 & echo $! >> pids; wait) & echo $! >> pids; echo $$ >> pids; wait`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.TimedOut || res.ExitCode != 143 {
		t.Errorf("got %+v, want Canceled with exit code 143", res)
	}
	assertGone(t, waitLines(t, filepath.Join(root, "pids"), 4))
}

// TestLocalExecBackgroundLeftBehind: a command that exits leaving a
// background process that holds its output pipe returns at once, and the
// background process is killed.
func TestLocalExecBackgroundLeftBehind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	for _, script := range []string{
		`sleep 100 & echo $! > pid; echo done`,
		`(sleep 100 & echo $! > pid); echo done`,
		`(trap "" TERM HUP; exec sleep 100) & echo $! > pid; echo done`,
	} {
		res, err := execT(t, e, context.Background(), ExecRequest{Args: bash(script)})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Output) != "done\n" || res.ExitCode != 0 || res.TimedOut || res.Canceled {
			t.Errorf("%s: got %+v", script, res)
		}
		assertGone(t, waitLines(t, filepath.Join(root, "pid"), 1))
	}
}

// TestLocalExecEscapedProcess documents the limit of process groups: a
// process that moves to a session of its own survives, but holding the
// output pipe does not make Exec hang.
func TestLocalExecEscapedProcess(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	res, err := execT(t, e, context.Background(), ExecRequest{Args: bash(`setsid bash -c 'echo $$ > pid; exec sleep 100' & sleep 0.1; echo done`)})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitLines(t, filepath.Join(root, "pid"), 1)[0]
	n, _ := strconv.Atoi(pid)
	t.Cleanup(func() { _ = killPid(n) })
	if !strings.Contains(string(res.Output), "done") || res.ExitCode != 0 {
		t.Errorf("got %+v", res)
	}
}

// TestLocalExecGrace: a process that ignores SIGTERM is killed (SIGKILL)
// after the grace period; one that does not is stopped by SIGTERM.
func TestLocalExecGrace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	e.Grace = 200 * time.Millisecond
	for _, tt := range []struct {
		script string
		want   int
	}{
		{`trap "" TERM; echo $$ > pid; while :; do sleep 0.05; done`, 137},
		{`trap "echo got TERM; exit 7" TERM; echo $$ > pid; while :; do sleep 0.05; done`, 7},
	} {
		os.Remove(filepath.Join(root, "pid"))
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			waitLines(t, filepath.Join(root, "pid"), 1)
			cancel()
		}()
		res, err := execT(t, e, ctx, ExecRequest{Args: bash(tt.script)})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !res.Canceled || res.ExitCode != tt.want {
			t.Errorf("%s: got %+v, want Canceled with exit code %d", tt.script, res, tt.want)
		}
		assertGone(t, waitLines(t, filepath.Join(root, "pid"), 1))
	}
}

func TestLocalExecCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := NewLocalExec(root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Exec(ctx, ExecRequest{Args: bash("touch ran")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// TestLocalExecHugeOutput: output far beyond MaxOutput keeps its head and
// tail and costs memory in proportion to MaxOutput, not to the output.
func TestLocalExecHugeOutput(t *testing.T) {
	// Not parallel: it measures allocations.
	e := NewLocalExec(t.TempDir())
	e.MaxOutput = 1 << 20
	const n = 4000000 // seq 1 n writes about 30 MB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := execT(t, e, context.Background(), ExecRequest{Args: []string{"seq", "1", strconv.Itoa(n)}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := 1; i <= n; i++ {
		total += len(strconv.Itoa(i)) + 1
	}
	out := string(res.Output)
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, fmt.Sprintf("\n%d\n%d\n", n-1, n)) {
		t.Errorf("output does not keep head and tail: %q ... %q", out[:20], out[len(out)-20:])
	}
	marker := fmt.Sprintf("\n... [%d bytes omitted] ...\n", total-(e.MaxOutput))
	if !strings.Contains(out, marker) {
		i := strings.Index(out, "\n... [")
		t.Errorf("output lacks marker %q; has %q", marker, out[i:i+40])
	}
	if len(out) != e.MaxOutput+len(marker) {
		t.Errorf("len(output) = %d, want %d", len(out), e.MaxOutput+len(marker))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("capturing %d bytes allocated %d bytes; want it bounded by the cap", total, alloc)
	}
}

func TestLocalExecConcurrent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "d"), 0o755))
	e := NewLocalExec(root)
	e.Grace = 100 * time.Millisecond
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := ExecRequest{Args: bash(`echo "$N"; cat; echo "$N" >&2`), Env: []string{"N=" + strconv.Itoa(i)}, Stdin: []byte("in" + strconv.Itoa(i) + "\n")}
			if i%2 == 1 {
				req.Dir = "d"
			}
			if i%4 == 3 {
				req = ExecRequest{Args: bash(`sleep 100`), Timeout: 50 * time.Millisecond}
			}
			res, err := execT(t, e, context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			if i%4 == 3 {
				if !res.TimedOut {
					t.Errorf("run %d: got %+v, want TimedOut", i, res)
				}
				return
			}
			if want := fmt.Sprintf("%d\nin%d\n%d\n", i, i, i); string(res.Output) != want {
				t.Errorf("run %d: got %q, want %q", i, res.Output, want)
			}
		}()
	}
	wg.Wait()
}
