package process

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The network bridge. Bubblewrap runs a command with no network of its
// own (--unshare-net leaves it a loopback interface and nothing else), so
// when the run may reach allowed hosts the proxy's unix socket is bound
// into the sandbox, and this program runs there first, as the sandbox's
// init (--as-pid-1): it listens on 127.0.0.1 at the proxy's own port in
// the sandbox's network namespace, forwards every connection to the
// socket, runs the command with HTTPS_PROXY and the like pointing at
// itself (proxyEnv), and exits with the command's status.
//
// As the sandbox's init it is what bwrap's own init would be: the run's
// stopper sends SIGTERM to the processes below it, not to it, and SIGKILL
// to it, which ends every process in the sandbox; when the command exits,
// it exits, and the rest of the sandbox with it; it reaps the orphans
// meanwhile. The command starts in a session of its own, with the
// bridge's standard input, output and error, as it would without the
// bridge. A signal sent to the bridge itself is passed on to the command.

// bridgeSignals are the signals the bridge passes on to the command.
var bridgeSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH,
	syscall.SIGCONT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
}

// withBridge adds the network bridge to a bwrap command line that ends
// with "--", when the plan has a proxy: the executable and the proxy's
// socket bound read-only on the sandbox's own /run (outside the working
// directory), the bridge as the sandbox's init, and its command line,
// which ends with "--" for the command to follow.
func withBridge(pl *plan, args []string) []string {
	if pl.proxy == nil || len(args) == 0 || args[len(args)-1] != "--" {
		return args
	}
	_, port, _ := net.SplitHostPort(pl.proxy.Addr())
	dir := bridgeDir(pl)
	exe, sock := path.Join(dir, ".agentsh-bridge"), path.Join(dir, ".agentsh-proxy.sock")
	return append(args[:len(args)-1:len(args)-1],
		"--ro-bind", "/proc/"+strconv.Itoa(os.Getpid())+"/exe", exe,
		"--ro-bind", pl.proxy.SocketPath(), sock,
		"--as-pid-1",
		"--", exe, bridgeArg, port, sock, "--")
}

// bridgeDir is a directory on one of the sandbox's own temporary file
// systems that is neither in the working directory, whose directories are
// the real ones, nor in the hidden home.
func bridgeDir(pl *plan) string {
	for _, d := range []string{"/run", "/tmp"} {
		if !within(pl.root, d) && (pl.home == "" || !within(pl.home, d)) {
			return d
		}
	}
	return "/dev"
}

// bridgeMain is the bridge: args are PORT SOCKET -- COMMAND [ARGS...].
// It returns the command's exit status, 128+N when a signal N ended it,
// and 1 when the bridge or the command cannot start.
func bridgeMain(args []string) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintf(os.Stderr, "agentsh: network bridge: want PORT SOCKET -- COMMAND, got %q\n", args)
		return 1
	}
	port, sock, argv := args[0], args[1], args[3:]
	addr := net.JoinHostPort("127.0.0.1", port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentsh: the sandbox's network bridge cannot listen on %s: %v\n", addr, err)
		return 1
	}
	go forwardAll(ln, sock)

	prog, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		err = nil // as execvp, which bwrap uses, would run it
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentsh: cannot run %s in the sandbox: %v\n", argv[0], errors.Unwrap(err))
		return 1
	}
	// The bridge keeps unix sockets for itself: the command cannot trace
	// it or reach its descriptors (not dumpable), and gets them refused
	// again (startConfined).
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "agentsh: network bridge: %v\n", err)
		return 1
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, bridgeSignals...)
	cmd, err := startConfined(prog, argv, &os.ProcAttr{
		Env:   proxyEnv(os.Environ(), addr),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentsh: cannot run %s in the sandbox: %v\n", argv[0], err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Signal(s)
		}
	}()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			fmt.Fprintf(os.Stderr, "agentsh: network bridge: wait for %s: %v\n", argv[0], err)
			return 1
		case pid != cmd.Pid: // an orphan, reaped
			continue
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}

// startConfined starts the command from a thread of its own under
// refuseUnixSockets: a seccomp filter applies to the thread that installs it
// and what it forks, so the bridge's other threads keep their unix
// sockets. The thread is never unlocked, so it ends with its goroutine.
func startConfined(prog string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	type started struct {
		p   *os.Process
		err error
	}
	done := make(chan started, 1)
	go func() {
		runtime.LockOSThread() // for good: see above
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- started{err: fmt.Errorf("no_new_privs: %w", err)}
			return
		}
		if err := refuseUnixSockets(); err != nil {
			done <- started{err: err}
			return
		}
		p, err := os.StartProcess(prog, argv, attr)
		done <- started{p, err}
	}()
	s := <-done
	return s.p, s.err
}

// forwardAll forwards each connection ln accepts to the unix socket
// sock, until ln is closed.
func forwardAll(ln net.Listener, sock string) {
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of descriptors, say: wait for one to close
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go func() {
			u, err := net.Dial("unix", sock)
			if err != nil {
				msg := "agentsh: the sandbox's network proxy cannot be reached: " + err.Error() + "\n"
				fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
				c.Close()
				return
			}
			splice(c, u, 0)
		}()
	}
}
