// Command agentsh is an embedded scripting agent shell: define tools,
// hooks and middleware in Starlark or Lua, and run every tool call —
// from a script, the REPL, the model or the command line — through one
// pipeline.
//
//	agentsh                          REPL (--lang lua for Lua); piped stdin runs as a script
//	agentsh [run] FILE [ARGS...]     run a .star or .lua script (ARGS in argv; Lua: arg)
//	agentsh -c CODE                  run a snippet (a sole expression is printed)
//	agentsh call TOOL [JSON]         one call through the pipeline
//	agentsh explain TOOL [JSON]      what the policies would decide, running nothing
//	agentsh ask PROMPT               ask the model once; the answer on stdout
//	agentsh tools [--json]           list the registered tools
//	agentsh test [-run RE] [PATHS]   run *_test.star and *_test.lua files
//
// --load FILE (repeatable) runs policy and tool files first; with agentsh
// test they run on every test's host. A script may start with
// #!/usr/bin/env agentsh. The languages come from their bindings
// (script/starlark, script/lua), which register themselves with package
// script; this command imports them and knows them only by name.
//
// A call no policy decides runs when a person makes it and, when the
// model makes it, only for a read-only tool; otherwise it asks (see
// --permissions). In the REPL on a terminal the person is asked; elsewhere
// --approve never (the default) rejects it and --approve always allows it.
//
// Run "agentsh help" for the flags. Exit codes: 0 ok, 1 script error or
// failed call or test, 2 usage, 3 an ask stopped at its turn limit, 4 a
// budget was exhausted, 5 a replay left its recording, 6 a call was denied
// (--fail-on-deny), 128+N stopped by signal N (130 for Ctrl-C, 143 for
// SIGTERM, 129 for SIGHUP); see outcome.go for how a run with several asks
// chooses one. With --json, runs end with a result event (docs/events.md).
package main

import (
	"os"

	"github.com/agentsh/agentsh/script/sandbox"
	"github.com/agentsh/agentsh/tools/process"
)

func main() {
	sandbox.Init() // a run_code child runs its snippet here and exits
	process.Init() // a sandbox's network bridge runs its command here and exits
	os.Exit(cli(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
