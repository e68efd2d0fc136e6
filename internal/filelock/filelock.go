// Package filelock takes exclusive locks on open files, across processes:
// flock on Unix, LockFileEx on Windows. A lock is the process's open
// file's, so it ends when the file is closed or the process dies; locks
// of one process on two open files of the same path exclude each other
// too, so goroutines that each open the file are kept apart as well.
package filelock

import "os"

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error { return lockFile(f) }

// Unlock releases the lock Lock took.
func Unlock(f *os.File) { unlockFile(f) }

// Append appends b to f, which is open with O_APPEND, in one write while
// it holds an exclusive lock on f: the records of processes that append
// to one file at the same time never interleave or tear.
func Append(f *os.File, b []byte) error {
	if err := lockFile(f); err != nil {
		return err
	}
	defer unlockFile(f)
	_, err := f.Write(b)
	return err
}
