package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentsh/agentsh"
)

// stopSignals end a run the way Ctrl-C does: SIGINT, SIGTERM and SIGHUP.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Bounds of the stop that follows a signal. The run's context is cancelled
// at once, which stops scripts, searches and tool calls and sends their
// processes SIGTERM. killAfter later, process groups still running get
// SIGKILL, without waiting out their grace period. exitAfter later,
// agentsh exits whatever is still running, so a signal always ends it
// within two seconds.
const (
	killAfter = time.Second
	exitAfter = 1800 * time.Millisecond
)

// stopped is the cause of a context cancelled by a signal.
type stopped struct{ sig syscall.Signal }

func (s *stopped) Error() string { return "interrupted by " + signalName(s.sig) }

// exitCode is 128 + the signal's number, as shells report it: 130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP.
func (s *stopped) exitCode() int { return 128 + int(s.sig) }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// stopCause returns the signal that cancelled ctx, or nil.
func stopCause(ctx context.Context) *stopped {
	if ctx == nil {
		return nil
	}
	var s *stopped
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return nil
}

// interrupted reports whether a signal stopped the run.
func interrupted(ctx context.Context) bool { return stopCause(ctx) != nil }

// stopper turns signals into the end of a run. The first signal calls
// cancel with its cause and starts the clock: killAfter later every child
// process group is killed, exitAfter later the process exits with the
// signal's code. A second signal exits at once.
type stopper struct {
	signals   []os.Signal
	cancel    func(cause error)
	stderr    io.Writer
	killAfter time.Duration
	exitAfter time.Duration
	killAll   func()
	exit      func(code int)

	sig  chan os.Signal
	done chan struct{}
}

func newStopper(cancel func(error), stderr io.Writer, signals ...os.Signal) *stopper {
	return &stopper{
		signals: signals, cancel: cancel, stderr: stderr,
		killAfter: killAfter, exitAfter: exitAfter,
		killAll: agentsh.KillCommands, exit: os.Exit,
		sig: make(chan os.Signal, 2), done: make(chan struct{}),
	}
}

// start relays the process's stop signals until stop is called.
func (s *stopper) start() {
	signal.Notify(s.sig, s.signals...)
	go s.watch()
}

// stop ends the relay. Signals that arrive later get Go's default
// handling, which ends the process.
func (s *stopper) stop() {
	signal.Stop(s.sig)
	close(s.done)
}

func (s *stopper) watch() {
	var first os.Signal
	select {
	case first = <-s.sig:
	case <-s.done:
		return
	}
	cause := &stopped{sig: first.(syscall.Signal)}
	s.cancel(cause)
	kill := time.AfterFunc(s.killAfter, s.killAll)
	defer kill.Stop()
	deadline := time.NewTimer(s.exitAfter)
	defer deadline.Stop()
	select {
	case <-s.done:
		return
	case <-s.sig:
	case <-deadline.C:
		fmt.Fprintf(s.stderr, "agentsh: %s did not stop the run within %s; exiting\n", signalName(cause.sig), s.exitAfter)
	}
	s.killAll()
	s.exit(cause.exitCode())
}

// runContext bounds a non-interactive run by --timeout and cancels it on a
// stop signal (see stopper); the returned function releases both.
func runContext(timeout time.Duration, stderr io.Writer) (context.Context, func()) {
	base, cancel := context.WithCancelCause(context.Background())
	ctx, cancelTimeout := base, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancelTimeout = context.WithTimeout(base, timeout)
	}
	s := newStopper(cancel, stderr, stopSignals...)
	s.start()
	return ctx, func() { s.stop(); cancelTimeout(); cancel(nil) }
}
