package sandbox

import (
	"context"
	"fmt"
	"io"

	"github.com/agentsh/agentsh/tools/process"
)

// childMain is a sandbox child: it puts itself under its limits, reads the
// snippet, runs it and writes the reply. It returns the exit code; a
// snippet that fails still exits 0, with its error in the reply.
func childMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	req, err := parseRequest(args)
	if err != nil {
		fmt.Fprintf(stderr, "agentsh sandbox: %v\n", err)
		return 2
	}
	if err := process.RestrictSelf(req.limits); err != nil {
		fmt.Fprintf(stderr, "agentsh sandbox: %v\n", err)
		return 2
	}
	code, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "agentsh sandbox: read the snippet: %v\n", err)
		return 2
	}
	ctx := context.Background()
	if req.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.timeout)
		defer cancel()
	}
	r := runSnippet(ctx, req, string(code))
	r.output = process.CapOutput(r.output, maxOutputChars)
	r.msg = process.CapOutput(r.msg, maxMessageChars)
	if _, err := stdout.Write(r.encode()); err != nil {
		fmt.Fprintf(stderr, "agentsh sandbox: write the reply: %v\n", err)
		return 2
	}
	return 0
}

// runSnippet runs code with the in-process runner of req.lang.
func runSnippet(ctx context.Context, req request, code string) (r reply) {
	defer func() {
		if v := recover(); v != nil {
			r = reply{status: statusPanic, msg: fmt.Sprint(v)}
		}
	}()
	run, _ := runner(req.lang) // parseRequest checked that there is one
	out, err := run(ctx, code, req.maxSteps)
	switch {
	case err == nil:
		return reply{status: statusOK, output: out}
	case ctx.Err() != nil:
		return reply{status: statusTimeout, output: out, msg: err.Error()}
	}
	return reply{status: statusError, output: out, msg: err.Error()}
}
