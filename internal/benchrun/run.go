package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// stage is one process of a pipeline.
type stage struct {
	path string
	args []string
	dir  string
	env  []string // added to the harness's environment
	// okCodes are the exit statuses other than 0 that are not failures
	// (rg's 1, "nothing matched").
	okCodes []int
	stdin   string // fed on standard input; the first stage only
}

// pipeline is one command as the user types it: stages joined stdout to
// stdin, "rg -l | head -100". It is started without a shell, so no shell
// start-up is timed, and measured as a whole: from the first start to the
// last exit, with the CPU time of every stage summed and the largest
// peak RSS of any stage.
type pipeline []stage

// String is the pipeline as a shell command, for the report.
func (p pipeline) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		var b strings.Builder
		for _, e := range s.env {
			b.WriteString(e + " ")
		}
		b.WriteString(shellQuote(baseName(s.path)))
		for _, a := range s.args {
			b.WriteString(" " + shellQuote(a))
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, " | ")
}

// sample is one measured run.
type sample struct {
	wall, user, sys time.Duration
	maxRSS          int64 // bytes; 0 where the system does not say
	outBytes        int64
}

// errStage is a stage that failed: it exited with a status it may not
// exit with, or was killed.
type errStage struct {
	cmd    string
	state  *os.ProcessState
	stderr string
}

func (e *errStage) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	if msg != "" {
		msg = ": " + msg
	}
	return fmt.Sprintf("%s: %v%s", e.cmd, e.state, msg)
}

// run runs p once with its last stage's output written to out and
// returns what it took (outBytes stays 0 when out is a file, which the
// last stage writes itself). A stage before the last that dies of SIGPIPE
// (head closed the pipe) has not failed.
func (p pipeline) run(ctx context.Context, out io.Writer) (sample, error) {
	cmds := make([]*exec.Cmd, len(p))
	errs := make([]*bytes.Buffer, len(p))
	var closeAfterStart []*os.File
	defer func() {
		for _, f := range closeAfterStart {
			f.Close()
		}
	}()
	counter := &countWriter{w: out}
	for i, s := range p {
		c := exec.CommandContext(ctx, s.path, s.args...)
		c.Dir = s.dir
		if len(s.env) > 0 {
			c.Env = append(os.Environ(), s.env...)
		}
		errs[i] = &bytes.Buffer{}
		c.Stderr = &capWriter{b: errs[i], max: 64 << 10}
		if i == 0 && s.stdin != "" {
			c.Stdin = strings.NewReader(s.stdin)
		}
		cmds[i] = c
	}
	for i := 0; i+1 < len(cmds); i++ {
		r, w, err := os.Pipe()
		if err != nil {
			return sample{}, err
		}
		cmds[i].Stdout, cmds[i+1].Stdin = w, r
		closeAfterStart = append(closeAfterStart, r, w)
	}
	cmds[len(cmds)-1].Stdout = counter
	if f, ok := out.(*os.File); ok {
		cmds[len(cmds)-1].Stdout = f // straight to the file: no copy through this process
	}

	start := time.Now()
	for i, c := range cmds {
		if err := c.Start(); err != nil {
			for _, d := range cmds[:i] {
				d.Process.Kill()
				d.Wait()
			}
			return sample{}, fmt.Errorf("start %s: %w", p[i].path, err)
		}
	}
	for _, f := range closeAfterStart {
		f.Close()
	}
	closeAfterStart = nil
	var s sample
	var failed error
	for i, c := range cmds {
		err := c.Wait()
		if c.ProcessState == nil {
			failed = errors.Join(failed, err)
			continue
		}
		user, sys, rss := usage(c.ProcessState)
		s.user += user
		s.sys += sys
		s.maxRSS = max(s.maxRSS, rss)
		if err != nil && !p[i].allowed(c.ProcessState, i == len(cmds)-1) {
			failed = errors.Join(failed, &errStage{cmd: pipeline{p[i]}.String(), state: c.ProcessState, stderr: errs[i].String()})
		}
	}
	s.wall = time.Since(start)
	s.outBytes = counter.n
	if ctx.Err() != nil {
		return s, ctx.Err()
	}
	return s, failed
}

// allowed reports whether a stage that ended with st did its job.
func (s stage) allowed(st *os.ProcessState, last bool) bool {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return !last && ws.Signal() == syscall.SIGPIPE
	}
	return st.ExitCode() == 0 || slices.Contains(s.okCodes, st.ExitCode())
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// capWriter keeps the first max bytes written to it and drops the rest,
// so a child that floods stderr cannot grow the harness.
type capWriter struct {
	b   *bytes.Buffer
	max int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
