package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentsh/agentsh/telemetry/otlpenv"
)

// startTraces builds what the OTEL_* variables ask for, once per process
// (nil: no traces, nothing started); failed exports are said on stderr.
func startTraces(stderr io.Writer) (*otlpenv.Traces, error) {
	return otlpenv.FromEnv(context.Background(), otlpenv.Options{Version: version(),
		Warn: func(err error) { fmt.Fprintf(stderr, "agentsh: %v\n", err) }})
}

// traceCommand opens the command's root span, "agentsh COMMAND"; its
// function ends it with the exit code. mcp serve has none: each of its
// requests' calls is a trace of its own. Nor have the commands of durable
// runs: each execution of a run (run, resume, a batch's task) is its own
// span, with the run's id (see runner).
func (o *options) traceCommand(ctx context.Context) (context.Context, func(code int)) {
	c := otlpenv.Command{Name: o.command}
	switch {
	case o.command == "mcp":
		return ctx, func(int) {}
	case o.command == "" || o.command == "run":
		c.Name, c.Script = "run", "<stdin>"
		if o.hasCode {
			c.Script = "<command-line>"
		} else if len(o.positional) > 0 {
			c.Script = o.positional[0]
		}
	case o.command == "hook" && len(o.positional) > 0:
		c.Detail = o.positional[0] // the agent, or install and uninstall
	}
	if o.journal != nil {
		c.RunID = o.journal.ID()
	}
	return o.traces.Start(ctx, c)
}
