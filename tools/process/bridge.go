package process

import (
	"errors"
	"os"
	"sync/atomic"
)

// bridgeArg, as the first argument, makes this program the network
// bridge of a Bubblewrap sandbox (see bridge_linux.go).
const bridgeArg = "__agentsh_network_bridge__"

// bridgeReady is set by Init in a program that can serve as the bridge.
var bridgeReady atomic.Bool

// ErrNotInitialized is the error of a Bubblewrap run with allowed hosts
// in a program that did not call Init.
var ErrNotInitialized = errors.New("process: this program cannot let sandboxed commands reach their allowed hosts under Bubblewrap because it did not call process.Init() first thing in main (or TestMain)")

// Init lets this program serve as the network bridge of a sandbox. When
// the process was started as one (inside Bubblewrap, by a Sandbox whose
// runs may reach allowed hosts), Init runs the bridge and the sandboxed
// command and exits with the command's status: it never returns.
// Otherwise it returns at once. Call it first thing in main, before flags
// are parsed or standard input is read; a test binary whose tests run
// such commands calls it first thing in TestMain.
func Init() {
	if len(os.Args) > 1 && os.Args[1] == bridgeArg {
		os.Exit(bridgeMain(os.Args[2:]))
	}
	bridgeReady.Store(true)
}
