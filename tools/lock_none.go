//go:build !unix || aix

package tools

import (
	"errors"
	"os"
)

// tryLock never locks here: without flock, no temporary file is ever
// taken for stale.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("file locks are not supported on this system")
}
