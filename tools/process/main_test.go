package process

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as a sandbox's network bridge
// (Init), which the Bubblewrap tests with allowed hosts run.
func TestMain(m *testing.M) {
	Init()
	os.Exit(m.Run())
}
