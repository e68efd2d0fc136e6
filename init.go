package agentsh

import (
	"github.com/agentsh/agentsh/script/sandbox"
	"github.com/agentsh/agentsh/tools/process"
)

// Init must be the first call of a program's main that composes a shell
// with the built-in tools: the program re-runs itself as run_code's
// Starlark and Lua children and as the network bridge of sandboxed
// commands, and Init is where those runs do their work and exit. In the
// program's own run it returns at once.
func Init() {
	sandbox.Init() // a run_code child runs its snippet here and exits
	process.Init() // a sandbox's network bridge runs its command here and exits
}

// KillCommands sends SIGKILL, without a grace period, to the process
// groups of every command the shells of this process are running (bash,
// run_code) and returns at once: for a program about to exit on a signal
// that must not leave processes behind. Safe to call from any goroutine,
// any number of times.
func KillCommands() { process.KillAll() }
