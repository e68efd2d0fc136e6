//go:build linux && !(amd64 || arm64)

package process

// refuseUnixSockets has no filter for this architecture (see
// nosetid_other.go); the bridge runs only where the sandbox's filter does.
func refuseUnixSockets() error {
	_, err := sandboxFilter()
	return err
}
