package proctest

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LimitAddressSpace caps this process's address space at its current size
// plus headroom. Tests call it in a child process of their own before they
// feed it something that must not take all memory (an alias bomb, a huge
// allocation), so that a failure is an allocation error, not the machine's.
func LimitAddressSpace(headroom uint64) error {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return err
			}
			lim := kb<<10 + headroom
			return unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim})
		}
	}
	return fmt.Errorf("no VmSize in /proc/self/status")
}
