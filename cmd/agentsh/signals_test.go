package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/proctest"
	"github.com/agentsh/agentsh/internal/testwait"
)

// stopBound is how long agentsh may take to exit after a stop signal on
// an idle machine (testwait.Bound scales it for the load).
const stopBound = 2 * time.Second

// signalCase is an agentsh command to stop with a signal once it is busy.
type signalCase struct {
	name  string
	args  []string
	files map[string]string // written to the command's directory first
	stdin string            // what the command reads; stdin stays open
	// ready is a line on stdout, or a file whose appearance in the
	// directory shows that the command is busy.
	readyLine, readyFile string
	// settle: the work starts just after the ready line, so the signal
	// waits until agentsh has been busy for a moment (settleTicks).
	settle bool
	sparse string // a sparse text file of some GiB to write first
	needs  string // a program the case needs on PATH
	// ownPIDs: the child may run in a sandbox with process ids of its
	// own, so the pid it writes is not the host's; the processes agentsh
	// started (which include the sandbox's) are checked instead.
	ownPIDs bool
}

// settleTicks is how much CPU (in clock ticks, 10 ms each) agentsh and
// its children use after the ready line of a case marked settle before
// the signal: the work has started, however busy the machine is.
const settleTicks = 10

// childPIDCommand is a bash command that writes its pid to child.pid and
// then sleeps, ignoring SIGTERM, so that only SIGKILL stops it.
const childPIDCommand = `trap '' TERM; echo $$ > child.pid; exec sleep 60`

var signalCases = []signalCase{
	{
		name:      "run starlark loop",
		args:      []string{"--max-steps", "100000000000", "run", "spin.star"},
		files:     map[string]string{"spin.star": "print('ready')\nwhile True:\n    pass\n"},
		readyLine: "ready",
	},
	{
		name:      "run lua loop",
		args:      []string{"run", "spin.lua"},
		files:     map[string]string{"spin.lua": "print('ready')\nwhile true do end\n"},
		readyLine: "ready",
	},
	{
		name:      "run lua pattern backtracking",
		args:      []string{"run", "pattern.lua"},
		files:     map[string]string{"pattern.lua": "print('ready')\nstring.find(string.rep('a', 40), '(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b')\n"},
		readyLine: "ready",
		settle:    true,
	},
	{
		name:      "run native grep of a huge file",
		args:      []string{"run", "grep.star"},
		files:     map[string]string{"grep.star": "print('ready')\ninvoke_tool('grep', {'pattern': '[a-z]x{3}y', 'path': 'huge.txt'})\n"},
		sparse:    "huge.txt",
		readyLine: "ready",
		settle:    true,
	},
	{
		name:      "run ripgrep grep of a huge tree",
		args:      []string{"--grep-backend", "ripgrep", "run", "grep.star"},
		files:     map[string]string{"grep.star": "print('ready')\ninvoke_tool('grep', {'pattern': '[a-z]x{3}y'})\n"},
		sparse:    "huge.txt",
		needs:     "rg",
		readyLine: "ready",
		settle:    true,
	},
	{
		name:      "run run_code child",
		args:      []string{"run", "code.star"},
		files:     map[string]string{"code.star": "print('ready')\ninvoke_tool('run_code', {'language': 'lua', 'code': 'while true do end', 'timeout_ms': 600000})\n"},
		readyLine: "ready",
		settle:    true,
	},
	{
		name:      "run bash child that ignores SIGTERM",
		args:      []string{"run", "child.star"},
		files:     map[string]string{"child.star": fmt.Sprintf("invoke_tool('bash', {'command': %q})\n", childPIDCommand)},
		readyFile: "child.pid",
	},
	{
		// agentsh ask: the model's bash call is the work the signal stops.
		name: "ask with a bash child that ignores SIGTERM",
		args: []string{"--sandbox", "off", "--approve", "always", "--load", "model.star", "ask", "--print", "go"},
		files: map[string]string{"model.star": fmt.Sprintf(
			"model(lambda messages, tools: {'tool_calls': [{'name': 'bash', 'args': {'command': %q}}]})\n", childPIDCommand)},
		readyFile: "child.pid",
	},
	{
		// The same in the model's default sandbox.
		name: "ask with a sandboxed bash child that ignores SIGTERM",
		args: []string{"--approve", "always", "--load", "model.star", "ask", "--print", "go"},
		files: map[string]string{"model.star": fmt.Sprintf(
			"model(lambda messages, tools: {'tool_calls': [{'name': 'bash', 'args': {'command': %q}}]})\n", childPIDCommand)},
		readyFile: "child.pid",
		ownPIDs:   true,
	},
	{
		name:      "call bash child that ignores SIGTERM",
		args:      []string{"call", "bash", fmt.Sprintf(`{"command": %q}`, childPIDCommand)},
		readyFile: "child.pid",
	},
	{
		name: "test with a bash child",
		args: []string{"test", "."},
		files: map[string]string{"child_test.star": fmt.Sprintf(
			"def test_child():\n    invoke_tool('bash', {'command': %q})\n", childPIDCommand)},
		readyFile: "child.pid",
	},
}

// replCases stop the REPL (on a pipe, -i) with SIGTERM or SIGHUP; SIGINT
// there cancels an evaluation without ending the session.
var replCases = []signalCase{
	{
		name:      "repl at the prompt",
		args:      []string{"-i"},
		stdin:     "print('ready')\n",
		readyLine: "ready",
	},
	{
		name:      "repl evaluating",
		args:      []string{"-i", "--max-steps", "100000000000"},
		stdin:     "print('ready')\nwhile True:\n    pass\n\n",
		readyLine: "ready",
	},
	{
		name:      "repl with a bash child",
		args:      []string{"-i"},
		stdin:     fmt.Sprintf("invoke_tool('bash', {'command': %q})\n", childPIDCommand),
		readyFile: "child.pid",
	},
}

// TestStopSignals checks that SIGINT, SIGTERM and SIGHUP end every
// command within stopBound, with exit code 128+N, and that no child
// process is left: a bash child that ignores SIGTERM is killed.
func TestStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts agentsh processes; skipped with -short")
	}
	t.Parallel() // most cases wait out agentsh's grace before a kill
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	for _, c := range signalCases {
		for _, sig := range sigs {
			t.Run(c.name+"/"+signalName(sig), func(t *testing.T) {
				t.Parallel()
				stopWithSignal(t, c, sig)
			})
		}
	}
	for _, c := range replCases {
		for _, sig := range sigs[1:] {
			t.Run(c.name+"/"+signalName(sig), func(t *testing.T) {
				t.Parallel()
				stopWithSignal(t, c, sig)
			})
		}
	}
}

func stopWithSignal(t *testing.T, c signalCase, sig syscall.Signal) {
	if c.needs != "" {
		if _, err := exec.LookPath(c.needs); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install ripgrep)", c.needs)
		}
	}
	cmd := agentshCmd(t, c.args...)
	for name, content := range c.files {
		if err := os.WriteFile(filepath.Join(cmd.Dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if c.sparse != "" {
		writeSparseText(t, filepath.Join(cmd.Dir, c.sparse), 8<<30)
	}
	cmd.Args = append(cmd.Args[:1], append([]string{"--workdir", cmd.Dir}, cmd.Args[1:]...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := newLockedBuffer()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, c.stdin)

	// One reader drains stdout, passing lines on while waitReady may want
	// them; cmd.Wait follows once stdout is closed.
	lines := make(chan string, 64)
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody is waiting for lines any more
			}
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	childPID := waitReady(t, c, cmd.Dir, lines, exited, stderr)
	if c.settle {
		start := proctest.CPUTicks(cmd.Process.Pid)
		testwait.Until(t, "agentsh to get busy after its ready line", func() bool {
			return proctest.CPUTicks(cmd.Process.Pid)-start >= settleTicks
		})
	}
	family := proctest.Descendants(cmd.Process.Pid)

	bound := testwait.Bound(stopBound)
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		took := time.Since(sent)
		if got, want := exitCode(t, err), 128+int(sig); got != want {
			t.Errorf("exit %d after %s, want %d; stderr:\n%s", got, signalName(sig), want, stderr.String())
		}
		if took > bound {
			t.Errorf("agentsh took %s to exit after %s, want at most %s", took, signalName(sig), bound)
		}
	case <-time.After(testwait.Step):
		t.Fatalf("agentsh did not exit within %s of %s; stderr:\n%s", testwait.Step, signalName(sig), stderr.String())
	}
	if c.ownPIDs && len(family) == 0 {
		t.Errorf("no process started by agentsh was found while it ran")
	}
	if childPID > 0 && !c.ownPIDs && proctest.Alive(childPID) {
		syscall.Kill(childPID, syscall.SIGKILL)
		t.Errorf("the bash child (pid %d) outlived agentsh", childPID)
	}
	for _, pid := range family {
		if proctest.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d, started by agentsh, outlived it", pid)
		}
	}
}

// writeSparseText writes a text file of size bytes that takes no disk
// space: a line of text, then one long line of NUL bytes (a hole), which
// no pattern of these tests matches quickly.
func writeSparseText(t *testing.T, name string, size int64) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Repeat("some text here\n", 1024)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// waitReady waits until the command is busy and returns the pid its bash
// child wrote, if any.
func waitReady(t *testing.T, c signalCase, dir string, lines <-chan string, exited <-chan error, stderr *lockedBuffer) int {
	t.Helper()
	deadline := time.After(testwait.Step)
	if c.readyLine != "" {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("agentsh closed stdout before printing %q; stderr:\n%s", c.readyLine, stderr.String())
				}
				if l == c.readyLine {
					return 0
				}
			case <-deadline:
				t.Fatalf("agentsh did not print %q; stderr:\n%s", c.readyLine, stderr.String())
			}
		}
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			t.Fatalf("agentsh exited (%v) before %s appeared; stderr:\n%s", err, c.readyFile, stderr.String())
		case <-deadline:
			t.Fatalf("%s did not appear; stderr:\n%s", c.readyFile, stderr.String())
		case <-tick.C:
		}
		b, err := os.ReadFile(filepath.Join(dir, c.readyFile))
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s holds %q, want a pid", c.readyFile, b)
		}
		return pid
	}
}

// A run that ignores its cancelled context still ends: the stopper kills
// child process groups after killAfter and exits with the signal's code
// after exitAfter; a second signal exits at once.
func TestStopperBackstop(t *testing.T) {
	for _, second := range []bool{false, true} {
		t.Run(fmt.Sprintf("second signal %v", second), func(t *testing.T) {
			var mu sync.Mutex
			var events []string
			record := func(e string) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			}
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			s := newStopper(func(cause error) { record("cancel: " + cause.Error()) }, &stderr)
			s.killAfter, s.exitAfter = 20*time.Millisecond, 40*time.Millisecond
			if second {
				s.killAfter, s.exitAfter = time.Hour, time.Hour
			}
			s.killAll = func() { record("kill all") }
			s.exit = func(code int) { exited <- code }
			go s.watch()
			s.sig <- syscall.SIGTERM
			if second {
				s.sig <- syscall.SIGINT
			}
			select {
			case code := <-exited:
				if code != 143 {
					t.Errorf("exit code %d, want 143 (SIGTERM)", code)
				}
			case <-time.After(testwait.Step):
				t.Fatal("the stopper never exited")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(events) == 0 || events[0] != "cancel: interrupted by SIGTERM" || events[len(events)-1] != "kill all" {
				t.Errorf("events %q; want the run cancelled first and child groups killed before exit", events)
			}
			if !second && !strings.Contains(stderr.String(), "SIGTERM did not stop the run") {
				t.Errorf("stderr %q does not say why agentsh exited", stderr.String())
			}
		})
	}
}

// A stopper that was stopped ignores later signals and never exits.
func TestStopperStopped(t *testing.T) {
	s := newStopper(func(error) { t.Error("cancelled after stop") }, io.Discard)
	s.exit = func(int) { t.Error("exited after stop") }
	done := make(chan struct{})
	go func() { s.watch(); close(done) }()
	s.stop()
	<-done
}

// The exit code of a stop is 128 + the signal's number.
func TestStoppedExitCode(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
		if got := (&stopped{sig: sig}).exitCode(); got != want {
			t.Errorf("%s: exit code %d, want %d", signalName(sig), got, want)
		}
	}
}

// TestSignalInSessionEnd: a SIGTERM while a session_end hook runs stops
// the hook, and the result event, still the last, has the exit code the
// process exits with (143).
func TestSignalInSessionEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an agentsh process; skipped with -short")
	}
	cmd := agentshCmd(t, "--no-builtins", "--max-steps", "100000000000", "--load", "spin.star", "--json", "ask", "go")
	hook := "model(lambda messages, tools: 'hi')\ndef spin(e):\n    print('ready')\n    while True:\n        pass\non('session_end', spin)\n"
	if err := os.WriteFile(filepath.Join(cmd.Dir, "spin.star"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := newLockedBuffer()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var lines []string
	ready := make(chan struct{})
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == `{"event":"print","text":"ready"}` {
				close(ready)
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case <-ready:
	case err := <-exited:
		t.Fatalf("agentsh exited (%v) before its session_end hook ran; stdout:\n%s\nstderr:\n%s", err, strings.Join(lines, "\n"), stderr.String())
	case <-time.After(testwait.Step):
		t.Fatalf("the session_end hook did not start; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case err := <-exited:
		code = exitCode(t, err)
	case <-time.After(testwait.Step):
		t.Fatalf("agentsh did not exit after SIGTERM; stderr:\n%s", stderr.String())
	}
	if code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143; stderr:\n%s", code, stderr.String())
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"event":"result","exit_code":143,`) {
		t.Errorf("the last event is %s, want the result with exit_code 143; stdout:\n%s", last, strings.Join(lines, "\n"))
	}
}

// TestTimeoutBeforeSessionEnd: when --timeout has already ended the run,
// a session_end hook that never returns is cut short after a grace
// period, and the result is still the last event, with the process's
// exit code.
func TestTimeoutBeforeSessionEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an agentsh process; skipped with -short")
	}
	cmd := agentshCmd(t, "--no-builtins", "--max-steps", "100000000000", "--timeout", "1s", "--load", "spin.star", "--json", "run", "main.star")
	hook := "model(lambda messages, tools: 'hi')\ndef spin(e):\n    while True:\n        pass\non('session_end', spin)\n"
	main := "def main():\n    ask('go')\n    while True:\n        pass\nmain()\n"
	for name, src := range map[string]string{"spin.star": hook, "main.star": main} {
		if err := os.WriteFile(filepath.Join(cmd.Dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr := newLockedBuffer()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var code int
	select {
	case err := <-exited:
		code = exitCode(t, err)
	case <-time.After(testwait.Step):
		t.Fatalf("agentsh did not exit after its --timeout; stderr:\n%s", stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"event":"result"`) || !strings.Contains(last, fmt.Sprintf(`"exit_code":%d,`, code)) {
		t.Errorf("exit %d; the last event is %s, want the result with that exit code; stderr:\n%s", code, last, stderr.String())
	}
}
