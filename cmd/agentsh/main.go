// Command agentsh is an embedded scripting agent shell: define tools,
// hooks and middleware in Starlark, and run every tool call through one
// pipeline.
//
//	agentsh                         REPL; piped stdin runs as a script
//	agentsh run FILE.star [ARGS...] run a script (ARGS in argv)
//	agentsh -c CODE                 run a snippet
//	agentsh call TOOL [JSON]        one call through the pipeline
//	agentsh tools [--json]          list the registered tools
//
// Run "agentsh help" for the flags. Exit codes: 0 ok, 1 script error or
// failed call, 2 usage, 128+N stopped by signal N (130 for Ctrl-C, 143 for
// SIGTERM, 129 for SIGHUP).
package main

import (
	"os"

	"github.com/agentsh/agentsh/script/sandbox"
)

func main() {
	sandbox.Init() // a run_code child runs its snippet here and exits
	os.Exit(agentsh(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
