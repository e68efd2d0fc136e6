//go:build linux && !(amd64 || arm64)

package process

import "golang.org/x/sys/unix"

// noUnixSockets has no rules for this architecture (see nosetid_other.go);
// the bridge runs only where the sandbox's filter does.
func noUnixSockets() ([]unix.SockFilter, error) {
	_, err := sandboxFilter()
	return nil, err
}
