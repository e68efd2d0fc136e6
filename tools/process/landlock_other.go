//go:build !linux || !(amd64 || arm64)

package process

import (
	"fmt"
	"runtime"
)

// newLandlockConfiner: the Landlock backend needs Linux, and the seccomp
// filter agentsh has for amd64 and arm64 only.
func newLandlockConfiner() (confiner, error) {
	return nil, fmt.Errorf("the Landlock backend runs only on linux/amd64 and linux/arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
}
