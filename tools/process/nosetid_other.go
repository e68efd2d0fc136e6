//go:build !linux || !(amd64 || arm64)

package process

import (
	"fmt"
	"runtime"
)

// sandboxFilter has no rules for this system: see nosetid_linux.go.
func sandboxFilter() ([]byte, error) {
	return nil, fmt.Errorf("process: the bubblewrap sandbox needs a seccomp filter that agentsh has only for linux/amd64 and linux/arm64, not %s/%s: without it, files created in the sandbox could be setuid", runtime.GOOS, runtime.GOARCH)
}

// bridgeFilter has no rules for this system either.
func bridgeFilter() ([]byte, error) { return sandboxFilter() }
