package process

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// foreignNr and above are x32 system calls.
	foreignNr = 0x40000000
)

// legacyMetadataCalls change a file's mode, owner or times by path: the
// Landlock backend refuses them (see metadataCalls).
var legacyMetadataCalls = []uintptr{unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN,
	unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT}

var legacyRules = []syscallRule{
	modeRule(unix.SYS_CHMOD, 1),
	openRule(unix.SYS_OPEN, 1, 2),
	modeRule(unix.SYS_CREAT, 1),
	mknodRule(unix.SYS_MKNOD, 1),
}
