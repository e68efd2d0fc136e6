package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/proctest"
	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/tools/process"
)

// TestMain lets the test binary act as a sandbox child.
func TestMain(m *testing.M) {
	Init()
	os.Exit(m.Run())
}

func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("sandbox children need Linux")
	}
}

func TestReplyRoundTrip(t *testing.T) {
	for _, r := range []reply{
		{status: statusOK, output: "1\n"},
		{status: statusOK},
		{status: statusError, output: "a\x00b\xff\n", msg: "boom\nline 2"},
		{status: statusTimeout, output: "started\n", msg: "timed out"},
		{status: statusPanic, msg: "runtime error"},
	} {
		b := r.encode()
		got, ok := parseReply(b)
		if !ok || got != r {
			t.Errorf("parseReply(%q) = %+v, %v; want %+v", b, got, ok, r)
		}
		// A reply cut short, or with bytes after it, is never taken for
		// a whole one.
		for i := 0; i < len(b); i++ {
			if got, ok := parseReply(b[:i]); ok {
				t.Errorf("parseReply(%q), a cut reply, = %+v", b[:i], got)
			}
		}
		if got, ok := parseReply(append(b, 'x')); ok {
			t.Errorf("parseReply with a trailing byte = %+v", got)
		}
	}
	for _, bad := range []string{
		"",
		"\n",
		"agentsh-run-code 1 ok 1\nx",
		"agentsh-run-code 2 ok 1 0\nx",
		"agentsh-run-code 1 maybe 1 0\nx",
		"agentsh-run-code 1 ok -1 2\nx",
		"fatal error: out of memory\n",
	} {
		if got, ok := parseReply([]byte(bad)); ok {
			t.Errorf("parseReply(%q) = %+v; want no reply", bad, got)
		}
	}
}

func TestRequestArgs(t *testing.T) {
	want := request{lang: "lua", limits: process.Limits{Memory: 64 << 20, CPU: 3 * time.Second}, timeout: 1500 * time.Millisecond, maxSteps: 99}
	args := want.args()
	if args[0] != childArg {
		t.Fatalf("args[0] = %q, want %q", args[0], childArg)
	}
	got, err := parseRequest(args[1:])
	if err != nil || got != want {
		t.Errorf("parseRequest(%q) = %+v, %v; want %+v", args[1:], got, err, want)
	}
	for _, bad := range [][]string{
		{"-lang", "cobol"},
		{"-lang", "lua", "extra"},
		{"-lang", "lua", "-memory", "lots"},
		{"-nope"},
	} {
		if _, err := parseRequest(bad); err == nil {
			t.Errorf("parseRequest(%q) succeeded; want an error", bad)
		}
	}
}

func TestRun(t *testing.T) {
	needLinux(t)
	s := New(Config{})
	for _, c := range []struct{ lang, code, want string }{
		{"starlark", "print(1 + 2)", "3\n"},
		{"lua", "print(1 + 2)", "3\n"},
		{"starlark", "", ""},
	} {
		got, err := s.Run(context.Background(), c.lang, c.code)
		if err != nil || got != c.want {
			t.Errorf("Run(%s, %q) = %q, %v; want %q", c.lang, c.code, got, err, c.want)
		}
	}
	out, err := s.Run(context.Background(), "starlark", "print('x')\nfail('boom')")
	if out != "x\n" || err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failing snippet: %q, %v; want its output and its error", out, err)
	}
	if _, err := s.Run(context.Background(), "cobol", "x"); err == nil || !strings.Contains(err.Error(), `unknown language "cobol"; want one of lua, starlark`) {
		t.Errorf("unknown language: %v", err)
	}
}

// TestRunConcurrent: every run gets its own child and its own output.
func TestRunConcurrent(t *testing.T) {
	needLinux(t)
	s := New(Config{})
	const n = 8
	var wg sync.WaitGroup
	got := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			lang, code := "starlark", fmt.Sprintf("print(%d)", i)
			if i%2 == 1 {
				lang = "lua"
			}
			got[i], errs[i] = s.Run(context.Background(), lang, code)
		})
	}
	wg.Wait()
	for i := range n {
		if want := fmt.Sprintf("%d\n", i); got[i] != want || errs[i] != nil {
			t.Errorf("run %d: %q, %v; want %q", i, got[i], errs[i], want)
		}
	}
}

func TestRunWithoutInit(t *testing.T) {
	initialized.Store(false)
	defer initialized.Store(true)
	out, err := New(Config{}).Run(context.Background(), "starlark", "print(1)")
	if !errors.Is(err, ErrNotInitialized) || out != "" {
		t.Fatalf("got %q, %v; want ErrNotInitialized", out, err)
	}
	if !strings.Contains(err.Error(), "sandbox.Init()") || !strings.Contains(err.Error(), "starlark.RunSandboxed") {
		t.Errorf("the error does not say what to call: %v", err)
	}
}

// TestRunLimits looks at a running child from outside: its limits, its
// environment and its process group.
func TestRunLimits(t *testing.T) {
	needLinux(t)
	s := New(Config{Memory: 100 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, "lua", "while true do end")
		done <- err
	}()
	pid := waitForChild(t, done)

	limits, err := os.ReadFile("/proc/" + pid + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	// 20 s of deadline, the grace and a second, rounded up.
	for name, want := range map[string]string{
		"Max cpu time":       "22",
		"Max file size":      "0",
		"Max open files":     "64",
		"Max core file size": "0",
	} {
		if got := limitField(string(limits), name); got != want+" "+want {
			t.Errorf("%s: soft and hard %q, want %q", name, got, want+" "+want)
		}
	}
	as := strings.Fields(limitField(string(limits), "Max address space"))
	if len(as) != 2 || as[0] != as[1] || as[0] == "unlimited" {
		t.Fatalf("address space limit %q; want one number for soft and hard", as)
	}
	if n, _ := strconv.ParseInt(as[0], 10, 64); n < 100<<20 || n > 100<<20+8<<30 {
		t.Errorf("address space limit %d; want the start-up reservation plus 100 MiB", n)
	}
	env, _ := os.ReadFile("/proc/" + pid + "/environ")
	wantEnv := "GOMAXPROCS=1\x00"
	if tz, ok := os.LookupEnv("TZ"); ok {
		wantEnv += "TZ=" + tz + "\x00"
	}
	if raceEnv != "" {
		wantEnv += raceEnv + "\x00"
	}
	if string(env) != wantEnv {
		t.Errorf("environment %q, want %q", env, wantEnv)
	}
	stat, _ := os.ReadFile("/proc/" + pid + "/stat")
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if f[2] != pid || f[3] != pid {
		t.Errorf("process group %s and session %s; want both %s, its own", f[2], f[3], pid)
	}

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v; want an error that wraps context.Canceled", err)
	}
	if left := children(); len(left) > 0 {
		t.Errorf("children left behind: %v", left)
	}
}

// TestRunMemoryLimit: the limit is Config.Memory, SetMemory changes it,
// and its error carries the hint.
func TestRunMemoryLimit(t *testing.T) {
	needLinux(t)
	s := New(Config{MemoryHint: func(limit int64) string { return fmt.Sprintf("raise %d", limit) }})
	// 120 MB fits in the default 256 MiB, and is well above 32 MiB even
	// with the race detector, whose runtime reserves a first heap arena
	// before the limit is set (and whose shadow memory takes its share
	// of the limit: 20 MB fits in 256 MiB then).
	const code = "x = 'a' * 120000000\nprint(len(x))"
	fits, want := code, "120000000\n"
	if raceEnabled {
		fits, want = "x = 'a' * 20000000\nprint(len(x))", "20000000\n"
	}
	if out, err := s.Run(context.Background(), "starlark", fits); out != want || err != nil {
		t.Fatalf("%q under the default limit: %q, %v", fits, out, err)
	}
	s.SetMemory(32 << 20)
	if got := s.Memory(); got != 32<<20 {
		t.Errorf("Memory() = %d after SetMemory(32 MiB)", got)
	}
	_, err := s.Run(context.Background(), "starlark", code)
	var le *process.LimitError
	if !errors.As(err, &le) || le.Resource != "memory" {
		t.Fatalf("120 MB under 32 MiB: %v; want a memory LimitError", err)
	}
	if want := "exceeded the memory limit (32 MiB); raise 33554432"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	s.SetMemory(0)
	if got := s.Memory(); got != process.DefaultMemory {
		t.Errorf("Memory() = %d after SetMemory(0), want the default", got)
	}
}

// TestRunDeadline: past the deadline the child is killed even in a
// builtin that does not stop by itself.
func TestRunDeadline(t *testing.T) {
	needLinux(t)
	s := New(Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Run(ctx, "starlark", "re.findall('a{1,1000}b', 'a' * 2000000)")
	// The deadline, the grace, and a second (scaled for the load) to
	// kill and reap the child.
	if d, bound := time.Since(start), 500*time.Millisecond+KillGrace+testwait.Bound(time.Second); d > bound {
		t.Errorf("returned after %v, want at most %v", d, bound)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v; want an error that wraps context.DeadlineExceeded", err)
	}
	if _, err := s.Run(ctx, "starlark", "print(1)"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after the deadline: %v; want DeadlineExceeded without a child", err)
	}
}

// TestChildWithoutReply: a child that ends without a reply is reported
// with its exit code and first line of standard error.
func TestChildWithoutReply(t *testing.T) {
	needLinux(t)
	res, err := process.RunSelf(context.Background(), process.SelfRequest{Args: []string{childArg, "-lang", "cobol"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := parseReply(res.Stdout); ok {
		t.Fatalf("a reply for a bad request: %q", res.Stdout)
	}
	got := crashed("cobol", res).Error()
	if want := `the cobol sandbox process ended with exit code 2 without a reply: agentsh sandbox: unknown language "cobol"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRunBubblewrap(t *testing.T) {
	needLinux(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap (Bubblewrap) is not installed")
	}
	bw, err := process.NewBubblewrapExec(t.TempDir())
	if err != nil {
		t.Skipf("bubblewrap cannot make a sandbox here: %v", err)
	}
	s := New(Config{Bubblewrap: bw})
	if out, err := s.Run(context.Background(), "lua", "print('in bwrap')"); out != "in bwrap\n" || err != nil {
		t.Fatalf("got %q, %v", out, err)
	}
	_, err = s.Run(context.Background(), "starlark", "s = 'x'\nfor i in range(64):\n    s = s + s\n")
	var le *process.LimitError
	if !errors.As(err, &le) || le.Resource != "memory" {
		t.Errorf("a memory bomb in bwrap: %v; want a memory LimitError", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, "starlark", "while True:\n    pass\n")
		done <- err
	}()
	pid := waitForChild(t, done)
	own, _ := os.Readlink("/proc/self/ns/pid")
	theirs, _ := os.Readlink("/proc/" + pid + "/ns/pid")
	if own == "" || theirs == own {
		t.Errorf("the child's PID namespace %q is ours (%q)", theirs, own)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
	if left := children(); len(left) > 0 {
		t.Errorf("children left behind: %v", left)
	}
}

// waitForChild returns the pid of this process's sandbox child once it
// has put itself under its limits.
func waitForChild(t *testing.T, done <-chan error) string {
	t.Helper()
	deadline := time.Now().Add(testwait.Step)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("Run returned before its child was seen: %v", err)
		default:
		}
		for _, pid := range children() {
			// The child sets its limits one by one, the core size last:
			// once that is 0 they are all in place.
			limits, err := os.ReadFile("/proc/" + pid + "/limits")
			if err == nil && !strings.HasPrefix(limitField(string(limits), "Max cpu time"), "unlimited") &&
				limitField(string(limits), "Max core file size") == "0 0" {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no restricted child appeared within %v", testwait.Step)
	return ""
}

// limitField is the soft and hard limit on the line of /proc/PID/limits
// that starts with name.
func limitField(limits, name string) string {
	for _, line := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			if f := strings.Fields(rest); len(f) >= 2 {
				return f[0] + " " + f[1]
			}
		}
	}
	return ""
}

// children lists the live sandbox children that descend from this
// process.
func children() []string {
	var out []string
	for _, pid := range proctest.Descendants(os.Getpid(), childArg) {
		out = append(out, strconv.Itoa(pid))
	}
	return out
}

// BenchmarkRun is one Run of print(1): a child process of its own, and one
// inside Bubblewrap.
func BenchmarkRun(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("sandbox children need Linux")
	}
	sandboxes := map[string]*Sandbox{"local": New(Config{})}
	if _, err := exec.LookPath("bwrap"); err == nil {
		if bw, err := process.NewBubblewrapExec(b.TempDir()); err == nil {
			sandboxes["bwrap"] = New(Config{Bubblewrap: bw})
		}
	}
	for _, name := range []string{"local", "bwrap"} {
		s := sandboxes[name]
		for _, lang := range Languages() {
			b.Run(name+"/"+lang, func(b *testing.B) {
				if s == nil {
					b.Skip("bubblewrap cannot make a sandbox here")
				}
				for b.Loop() {
					if out, err := s.Run(context.Background(), lang, "print(1)"); out != "1\n" || err != nil {
						b.Fatalf("got %q, %v", out, err)
					}
				}
			})
		}
	}
}
