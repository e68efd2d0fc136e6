//go:build unix && !aix

package tools

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without waiting. It reports false
// if another open file holds one, and an error if flock is not supported.
func tryLock(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lockErr error
	if err := rc.Control(func(fd uintptr) {
		lockErr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
	}); err != nil {
		return false, err
	}
	switch {
	case lockErr == nil:
		return true, nil
	case errors.Is(lockErr, unix.EWOULDBLOCK):
		return false, nil
	}
	return false, lockErr
}
