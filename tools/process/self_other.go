//go:build !linux

package process

import (
	"context"
	"errors"
	"runtime"
)

var errSelfNeedsLinux = errors.New("process: running a child of this program under kernel limits needs Linux, not " + runtime.GOOS)

// RunSelf runs this program again as a child process under limits; see
// the Linux version. Elsewhere it fails.
func RunSelf(ctx context.Context, req SelfRequest) (SelfResult, error) {
	return SelfResult{ExitCode: -1}, errSelfNeedsLinux
}

// RestrictSelf puts the calling process under l; see the Linux version.
// Elsewhere it fails.
func RestrictSelf(l Limits) error { return errSelfNeedsLinux }

func cpuKillCode(int) bool { return false }
