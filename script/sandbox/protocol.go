package sandbox

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/agentsh/agentsh/tools/process"
)

// childArg, as os.Args[1], makes a process a sandbox child (see Init).
const childArg = "__agentsh_run_code"

// request is what a child is asked to do. Everything but the code travels
// on the command line, so the child knows its limits before it reads its
// input; the code is its standard input.
type request struct {
	lang     string
	limits   process.Limits
	timeout  time.Duration // 0: none; the parent still kills the child
	maxSteps uint64
}

func (r request) args() []string {
	return []string{childArg,
		"-lang", r.lang,
		"-memory", strconv.FormatInt(r.limits.Memory, 10),
		"-cpu", r.limits.CPU.String(),
		"-timeout", r.timeout.String(),
		"-steps", strconv.FormatUint(r.maxSteps, 10),
	}
}

func parseRequest(args []string) (request, error) {
	var r request
	fs := flag.NewFlagSet(childArg, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&r.lang, "lang", "", "")
	fs.Int64Var(&r.limits.Memory, "memory", 0, "")
	fs.DurationVar(&r.limits.CPU, "cpu", 0, "")
	fs.DurationVar(&r.timeout, "timeout", 0, "")
	fs.Uint64Var(&r.maxSteps, "steps", 0, "")
	if err := fs.Parse(args); err != nil {
		return r, err
	}
	if fs.NArg() > 0 {
		return r, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if _, ok := runner(r.lang); !ok {
		return r, fmt.Errorf("unknown language %q", r.lang)
	}
	return r, nil
}

// A child's reply is its only standard output:
//
//	agentsh-run-code 1 STATUS OUTPUT_BYTES MESSAGE_BYTES\n OUTPUT MESSAGE
//
// STATUS is ok, error (MESSAGE is the error), timeout (the snippet
// stopped at its deadline) or panic. Lengths make any byte sequence safe
// in OUTPUT and MESSAGE, and a reply cut short by a dying child is never
// taken for a whole one.
const replyMagic = "agentsh-run-code 1"

type status string

const (
	statusOK      status = "ok"
	statusError   status = "error"
	statusTimeout status = "timeout"
	statusPanic   status = "panic"
)

type reply struct {
	status status
	output string
	msg    string
}

func (r reply) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %d %d\n", replyMagic, r.status, len(r.output), len(r.msg))
	b.WriteString(r.output)
	b.WriteString(r.msg)
	return b.Bytes()
}

func parseReply(b []byte) (reply, bool) {
	head, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return reply{}, false
	}
	var r reply
	var magic, version string
	var nOut, nMsg int
	if n, err := fmt.Sscanf(string(head), "%s %s %s %d %d", &magic, &version, &r.status, &nOut, &nMsg); err != nil || n != 5 ||
		magic+" "+version != replyMagic || nOut < 0 || nMsg < 0 || nOut+nMsg != len(rest) {
		return reply{}, false
	}
	switch r.status {
	case statusOK, statusError, statusTimeout, statusPanic:
	default:
		return reply{}, false
	}
	r.output, r.msg = string(rest[:nOut]), string(rest[nOut:])
	return r, true
}

// snippetError is a snippet's own error, as the child reported it: the
// message the in-process runner's error has.
type snippetError struct {
	msg   string
	cause error // context.DeadlineExceeded for a timeout
}

func (e *snippetError) Error() string { return e.msg }
func (e *snippetError) Unwrap() error { return e.cause }

// result is what the parent's caller gets for a reply.
func (r reply) result() (string, error) {
	switch r.status {
	case statusOK:
		return r.output, nil
	case statusTimeout:
		return r.output, &snippetError{msg: r.msg, cause: context.DeadlineExceeded}
	case statusPanic:
		return r.output, &snippetError{msg: "panic in the sandbox: " + r.msg}
	}
	return r.output, &snippetError{msg: r.msg}
}
