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
	{nr: unix.SYS_CREAT, errno: unix.EPERM, any: [][]argBits{{{arg: 1, mask: modeBits}}}},
	mknodRule(unix.SYS_MKNOD, 1),
}
