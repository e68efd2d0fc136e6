package tools_test

import (
	"os"
	"testing"

	"github.com/agentsh/agentsh/script/sandbox"
	"github.com/agentsh/agentsh/tools/process"
)

// TestMain lets the test binary serve as a child process of the tests:
// with childEnv set it runs that child instead of the tests, and as
// run_code's sandbox child (sandbox.Init) and a sandbox's network bridge
// (process.Init).
func TestMain(m *testing.M) {
	sandbox.Init()
	process.Init()
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name))
	}
	os.Exit(m.Run())
}

// childEnv names the child a test binary runs as; see children.
const childEnv = "AGENTSH_TOOLS_TEST_CHILD"

// children are what the test binary can run as a child process, by name.
// Each gets its settings from the environment and returns an exit code.
var children = map[string]func() int{}

func runChild(name string) int {
	f, ok := children[name]
	if !ok {
		os.Stderr.WriteString("unknown test child " + name + "\n")
		return 2
	}
	return f()
}
