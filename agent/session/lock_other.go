//go:build !unix || aix

package session

import "os"

// lock does nothing where flock is not available: concurrent writers are
// not detected there.
func lock(f *os.File) error { return nil }
