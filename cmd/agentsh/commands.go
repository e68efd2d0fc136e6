package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/agentsh/agentsh"
	"github.com/agentsh/agentsh/core"
)

// runSnippet runs -c code in the --lang language; a sole expression's
// value is printed.
func (a *app) runSnippet(ctx context.Context, name, code string) int {
	v, err := a.sh.Interp("").Eval(ctx, name, []byte(code))
	if err != nil {
		return a.finish(err)
	}
	a.printValue(v)
	return a.finish(nil)
}

// printValue prints a REPL or snippet value (nothing for none).
func (a *app) printValue(v string) {
	if v != "" {
		a.sh.Host().Print(v)
	}
}

// callArgs reads the TOOL [JSON] of call and explain; JSON "-" is read
// from stdin.
func (a *app) callArgs() (core.Call, error) {
	args, cmd := a.opts.positional, a.opts.command
	if len(args) == 0 || len(args) > 2 {
		return core.Call{}, usagef("%s needs a tool name and at most one JSON argument: agentsh %s TOOL '{\"key\": \"value\"}'", cmd, cmd)
	}
	var raw json.RawMessage
	if len(args) == 2 {
		raw = json.RawMessage(args[1])
		if args[1] == "-" {
			b, err := io.ReadAll(a.io.in)
			if err != nil {
				return core.Call{}, fmt.Errorf("read arguments from stdin: %w", err)
			}
			raw = b
		}
	}
	return core.Call{Name: args[0], Args: raw, Origin: a.opts.as}, nil
}

// call runs: agentsh call TOOL [JSON]. Without --json the output may be
// streamed: a tool the executor grants the stream (see
// core.WithOutputStream) writes to stdout as it goes, what it would have
// returned, and the call prints nothing more.
func (a *app) call(ctx context.Context) int {
	c, err := a.callArgs()
	if err != nil {
		return a.fail(err)
	}
	stdout := &recordingWriter{w: a.io.out}
	if a.events == nil {
		ctx = core.WithOutputStream(ctx, stdout)
	}
	res := a.sh.Executor().Invoke(ctx, c)
	if a.events != nil {
		a.events.Emit(agentsh.ResultJSON(res))
	}
	if !res.OK() {
		if stop := stopCause(a.runCtx); stop != nil {
			return a.report(stop, stop)
		}
		if errors.Is(stdout.err, syscall.EPIPE) {
			return 1 // whoever read stdout has gone (| head): nothing to tell
		}
		if a.events == nil {
			fmt.Fprintf(a.io.err, "error (%s): %s\n", res.Kind(), withFlagHint(res.Err))
		}
		return 1
	}
	if a.events != nil {
		return 0
	}
	if !res.Silent && !res.Streamed {
		out := res.Display()
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		io.WriteString(a.io.out, out)
	}
	return 0
}

// recordingWriter keeps the first error of the writes to w.
type recordingWriter struct {
	w   io.Writer
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	r.record(err)
	return n, err
}

func (r *recordingWriter) WriteString(s string) (int, error) {
	n, err := io.WriteString(r.w, s)
	r.record(err)
	return n, err
}

func (r *recordingWriter) record(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
