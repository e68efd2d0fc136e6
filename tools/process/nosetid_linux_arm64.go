package process

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	foreignNr = 0 // no second ABI shares the architecture's number
)

// arm64 has only the *at forms of these calls.
var legacyRules []syscallRule

var legacyMetadataCalls []uintptr
