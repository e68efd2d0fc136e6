package process

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// foreignNr and above are x32 system calls.
	foreignNr = 0x40000000
)

var legacyRules = []syscallRule{
	modeRule(unix.SYS_CHMOD, 1),
	openRule(unix.SYS_OPEN, 1, 2),
	modeRule(unix.SYS_CREAT, 1),
	mknodRule(unix.SYS_MKNOD, 1),
}
