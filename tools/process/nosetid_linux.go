//go:build amd64 || arm64

package process

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The sandbox's seccomp filter. The working directory is writable from
// inside the sandbox and is the host's own directory, so a file made
// there keeps its owner and mode on the host. A process inside runs as
// root when agentsh does; --cap-drop ALL takes away the capabilities to
// make device nodes or to change files root does not own, but root still
// owns what it creates and may set the setuid and setgid bits on it: a
// setuid-root program planted in the working directory would give any
// host user root. Bind mounts are nosuid, which guards the sandbox, not
// the host. So the kernel refuses, with EPERM, every system call that
// would give a file those bits or make a device node; every other call is
// allowed.
//
// Calls that carry a mode: chmod, fchmod, fchmodat, fchmodat2 (refused if
// the mode has S_ISUID or S_ISGID); open, openat, creat (refused if they
// may create a file, O_CREAT or O_TMPFILE, with such a mode); mknod,
// mknodat (refused for such a mode, and for character and block devices;
// FIFOs, sockets and regular files stay allowed). openat2 passes its mode
// in memory a filter cannot read, so it fails with ENOSYS and C libraries
// fall back to openat; io_uring could open files past the filter, so its
// setup fails with EPERM. A system call of another ABI (x32, or 32-bit
// code on a 64-bit kernel) fails with ENOSYS.
//
// The filter also refuses to make a unix socket (socket(2) with AF_UNIX,
// EPERM). A process inside could otherwise connect to any host service
// whose socket it can reach by path: a read-only file system does not
// stop connect(2) (docker.sock, an ssh or gpg agent, a database), nor
// does Landlock. Without the call there are no unix sockets at all: none
// to the host, by path or abstract name, inside the working directory or
// out, and none between processes inside either (socketpair(2), which
// makes a connected pair with no address, still works). A run with the
// network bridge (bridge_linux.go), which connects to the proxy's unix
// socket from inside the sandbox, gets the filter without this rule
// (bridgeFilter): under Bubblewrap its command reaches the unix sockets
// it can see by path outside the hidden directories (/tmp, /run, home);
// abstract ones are in another network namespace.
//
// And it refuses the kernel's key management (keyctl, add_key,
// request_key, EPERM): the user's keyring is the same inside the sandbox
// as out, and holds what the user keeps there (tokens, Kerberos tickets).

// modeBits are what the filter keeps out of file modes.
const modeBits = unix.S_ISUID | unix.S_ISGID

// devBit is set in S_IFCHR and S_IFBLK and in no other file type.
const devBit = unix.S_IFCHR & unix.S_IFBLK

// argBits is a test on the low 32 bits of a system call's argument: true
// when any of mask's bits are set or, with equal, when they are mask.
type argBits struct {
	arg   int
	mask  uint32
	equal bool
}

// syscallRule refuses a system call when all tests of any one of its
// alternatives are true; with no alternatives it refuses every call.
type syscallRule struct {
	nr    uint32
	errno unix.Errno
	any   [][]argBits
}

func modeRule(nr uintptr, modeArg int) syscallRule {
	return syscallRule{nr: uint32(nr), errno: unix.EPERM, any: [][]argBits{{{arg: modeArg, mask: modeBits}}}}
}

func openRule(nr uintptr, flagsArg, modeArg int) syscallRule {
	return syscallRule{nr: uint32(nr), errno: unix.EPERM, any: [][]argBits{
		{{arg: flagsArg, mask: unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY}, {arg: modeArg, mask: modeBits}},
	}}
}

func mknodRule(nr uintptr, modeArg int) syscallRule {
	return syscallRule{nr: uint32(nr), errno: unix.EPERM, any: [][]argBits{{{arg: modeArg, mask: modeBits}}, {{arg: modeArg, mask: devBit}}}}
}

// commonRules hold on every architecture; legacyRules (per architecture)
// add the calls that only older ABIs have.
var commonRules = []syscallRule{
	modeRule(unix.SYS_FCHMOD, 1),
	modeRule(unix.SYS_FCHMODAT, 2),
	modeRule(unix.SYS_FCHMODAT2, 2),
	openRule(unix.SYS_OPENAT, 2, 3),
	mknodRule(unix.SYS_MKNODAT, 2),
	{nr: unix.SYS_OPENAT2, errno: unix.ENOSYS},
	{nr: unix.SYS_IO_URING_SETUP, errno: unix.EPERM},
	{nr: unix.SYS_KEYCTL, errno: unix.EPERM},
	{nr: unix.SYS_ADD_KEY, errno: unix.EPERM},
	{nr: unix.SYS_REQUEST_KEY, errno: unix.EPERM},
}

// unixSocketRule refuses socket(AF_UNIX, ...): see the top of the file.
var unixSocketRule = syscallRule{nr: unix.SYS_SOCKET, errno: unix.EPERM, any: [][]argBits{{{arg: 0, mask: unix.AF_UNIX, equal: true}}}}

// Offsets in struct seccomp_data; an argument's low half is at its own
// offset on the little-endian machines this file is built for.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// sandboxFilter assembles the filter as the array of struct sock_filter
// that bwrap --seccomp reads.
func sandboxFilter() ([]byte, error) { return assembleFilter(true) }

// bridgeFilter is the filter for a run with the network bridge: as
// sandboxFilter, but unix sockets can be made.
func bridgeFilter() ([]byte, error) { return assembleFilter(false) }

func assembleFilter(noUnixSockets bool) ([]byte, error) {
	ret := func(errno unix.Errno) bpf.Instruction {
		return bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(errno)}
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		ret(unix.ENOSYS),
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if foreignNr != 0 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: foreignNr, SkipFalse: 1}, ret(unix.ENOSYS))
	}
	rules := append(append([]syscallRule(nil), commonRules...), legacyRules...)
	if noUnixSockets {
		rules = append(rules, unixSocketRule)
	}
	for _, r := range rules {
		var block []bpf.Instruction
		for _, all := range r.any {
			for i, t := range all {
				// Past this test: the remaining tests, then the refusal.
				rest := 2*(len(all)-i-1) + 1
				cond := bpf.JumpBitsSet
				if t.equal {
					cond = bpf.JumpEqual
				}
				block = append(block,
					bpf.LoadAbsolute{Off: uint32(offArgs + 8*t.arg), Size: 4},
					bpf.JumpIf{Cond: cond, Val: t.mask, SkipFalse: uint8(rest)})
			}
			block = append(block, ret(r.errno))
		}
		if len(r.any) == 0 {
			block = append(block, ret(r.errno))
		} else {
			block = append(block, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
		}
		if len(block) > 255 {
			return nil, fmt.Errorf("process: seccomp rule for system call %d is too long", r.nr)
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: r.nr, SkipFalse: uint8(len(block))})
		prog = append(prog, block...)
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("process: assembling the seccomp filter: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, ins := range raw {
		out = binary.LittleEndian.AppendUint16(out, ins.Op)
		out = append(out, ins.Jt, ins.Jf)
		out = binary.LittleEndian.AppendUint32(out, ins.K)
	}
	return out, nil
}
