package executor

import (
	"fmt"
	"strings"
)

// Mode is how ExecuteAll schedules a batch of calls.
type Mode int32

const (
	// ModeSerial runs calls one after another.
	ModeSerial Mode = iota
	// ModeParallel pools every call whose tool is not explicitly unsafe
	// (fail-open: undeclared counts as safe).
	ModeParallel
	// ModeMixed pools only calls whose tool is explicitly safe
	// (fail-closed: undeclared counts as unsafe).
	ModeMixed
)

func (m Mode) String() string {
	switch m {
	case ModeSerial:
		return "serial"
	case ModeParallel:
		return "parallel"
	case ModeMixed:
		return "mixed"
	}
	return fmt.Sprintf("Mode(%d)", int32(m))
}

// ParseMode parses "serial", "parallel" or "mixed".
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(s) {
	case "serial":
		return ModeSerial, nil
	case "parallel":
		return ModeParallel, nil
	case "mixed":
		return ModeMixed, nil
	}
	return 0, fmt.Errorf("unknown execution mode %q: want serial, parallel or mixed", s)
}

// pooled reports whether a call of a tool with the given declaration may
// overlap other calls in mode m.
func (m Mode) pooled(safe *bool) bool {
	switch m {
	case ModeParallel:
		return safe == nil || *safe
	case ModeMixed:
		return safe != nil && *safe
	}
	return false
}
