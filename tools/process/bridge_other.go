//go:build !linux

package process

import (
	"fmt"
	"os"
	"runtime"
)

func bridgeMain([]string) int {
	fmt.Fprintf(os.Stderr, "agentsh: the sandbox's network bridge runs only on Linux, not %s\n", runtime.GOOS)
	return 1
}

func withBridge(_ *plan, args []string) []string { return args }
