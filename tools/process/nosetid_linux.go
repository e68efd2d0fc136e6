//go:build amd64 || arm64

package process

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

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
// Under Bubblewrap the filter also refuses to make a unix socket
// (socket(2) with AF_UNIX, EPERM; bwrapRules). A process inside could
// otherwise connect to any host service whose socket it can reach by
// path: a read-only file system does not stop connect(2) (docker.sock, an
// ssh or gpg agent, a database). Without the call there are no unix
// sockets at all: none to the host, by path or abstract name, inside the
// working directory or out, and none between processes inside either
// (socketpair(2), which makes a connected pair with no address, still
// works). A run with the network bridge (bridge_linux.go), which connects
// to the proxy's unix socket from inside the sandbox, gets the filter
// without this rule (bridgeFilter): its command reaches the unix sockets
// it can see by path outside the hidden directories (/tmp, /run, home);
// abstract ones are in another network namespace.
//
// And it refuses the kernel's key management (keyctl, add_key,
// request_key, EPERM): the user's keyring is the same inside the sandbox
// as out, and holds what the user keeps there (tokens, Kerberos tickets).
// (The Landlock backend refuses all of these in confineRules.)
//
// On both backends it refuses prlimit(2) on any process but the caller
// (EPERM): without a PID namespace (Landlock) a command could lower the
// limits of a host process of its user.

// modeBits are what the filter keeps out of file modes.
const modeBits = unix.S_ISUID | unix.S_ISGID

// devBit is set in S_IFCHR and S_IFBLK and in no other file type.
const devBit = unix.S_IFCHR & unix.S_IFBLK

// argTest is a test on a 32-bit half of a system call's argument (the
// low one unless hi): with bpf.JumpBitsSet, true when any of val's bits
// are set; with bpf.JumpEqual or bpf.JumpNotEqual, a comparison with val.
type argTest struct {
	arg  int
	hi   bool
	cond bpf.JumpTest
	val  uint32
}

func bitsSet(arg int, mask uint32) argTest { return argTest{arg, false, bpf.JumpBitsSet, mask} }
func equal(arg int, val uint32) argTest    { return argTest{arg, false, bpf.JumpEqual, val} }
func notEqual(arg int, val uint32) argTest { return argTest{arg, false, bpf.JumpNotEqual, val} }

// ruleCase is a verdict (a SECCOMP_RET_ value) for the calls that pass
// all its tests.
type ruleCase struct {
	all []argTest
	ret uint32
}

// syscallRule decides a system call: the first of its cases whose tests
// all hold, otherwise ret.
type syscallRule struct {
	nr    uint32
	cases []ruleCase
	ret   uint32
}

func errnoRet(errno unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(errno) }

// always refuses every call of nr with errno.
func always(nr uintptr, errno unix.Errno) syscallRule {
	return syscallRule{nr: uint32(nr), ret: errnoRet(errno)}
}

// refuseIf refuses a call of nr with EPERM when the tests of any one
// alternative all hold, and allows it otherwise.
func refuseIf(nr uintptr, alternatives ...[]argTest) syscallRule {
	r := syscallRule{nr: uint32(nr), ret: unix.SECCOMP_RET_ALLOW}
	for _, all := range alternatives {
		r.cases = append(r.cases, ruleCase{all, errnoRet(unix.EPERM)})
	}
	return r
}

func modeRule(nr uintptr, modeArg int) syscallRule {
	return refuseIf(nr, []argTest{bitsSet(modeArg, modeBits)})
}

func openRule(nr uintptr, flagsArg, modeArg int) syscallRule {
	return refuseIf(nr, []argTest{bitsSet(flagsArg, unix.O_CREAT|unix.O_TMPFILE&^unix.O_DIRECTORY), bitsSet(modeArg, modeBits)})
}

func mknodRule(nr uintptr, modeArg int) syscallRule {
	return refuseIf(nr, []argTest{bitsSet(modeArg, modeBits)}, []argTest{bitsSet(modeArg, devBit)})
}

// commonRules hold on every architecture; legacyRules (per architecture)
// add the calls that only older ABIs have.
var commonRules = []syscallRule{
	modeRule(unix.SYS_FCHMOD, 1),
	modeRule(unix.SYS_FCHMODAT, 2),
	modeRule(unix.SYS_FCHMODAT2, 2),
	openRule(unix.SYS_OPENAT, 2, 3),
	mknodRule(unix.SYS_MKNODAT, 2),
	always(unix.SYS_OPENAT2, unix.ENOSYS),
	always(unix.SYS_IO_URING_SETUP, unix.EPERM),
	// prlimit on another process (pid 0 is the caller's own, as
	// setrlimit and the C library use it): it could take a host
	// process's limits away where no PID namespace hides it.
	refuseIf(unix.SYS_PRLIMIT64, []argTest{notEqual(0, 0)}),
}

// Offsets in struct seccomp_data; an argument's low half is at its own
// offset on the little-endian machines this file is built for.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// bwrapRules are what the Bubblewrap backend adds to commonRules: no
// keyrings and, unless unixSockets, no unix sockets (see the top of the
// file).
func bwrapRules(unixSockets bool) []syscallRule {
	rules := []syscallRule{
		always(unix.SYS_KEYCTL, unix.EPERM),
		always(unix.SYS_ADD_KEY, unix.EPERM),
		always(unix.SYS_REQUEST_KEY, unix.EPERM),
	}
	if !unixSockets {
		rules = append(rules, refuseIf(unix.SYS_SOCKET, []argTest{equal(0, unix.AF_UNIX)}))
	}
	return rules
}

// sandboxFilter assembles the Bubblewrap backend's filter as the array of
// struct sock_filter that bwrap --seccomp reads.
func sandboxFilter() ([]byte, error) { return bwrapFilter(false) }

// bridgeFilter is the filter for a run with the network bridge: as
// sandboxFilter, but unix sockets can be made, since the bridge reaches
// the proxy through one. The bridge puts the command it runs under
// noUnixSockets on top (bridge_linux.go).
func bridgeFilter() ([]byte, error) { return bwrapFilter(true) }

// refuseUnixSockets is the filter the bridge adds for its command: the
// unix sockets bridgeFilter lets through are refused again. It applies to
// the calling thread and what it starts.
func refuseUnixSockets() error {
	filter, err := sockFilters([]syscallRule{refuseIf(unix.SYS_SOCKET, []argTest{equal(0, unix.AF_UNIX)})})
	if err != nil {
		return err
	}
	return installFilter(filter)
}

// sockFilters assembles tables (see assembleFilter) as the instructions
// seccomp(2) takes.
func sockFilters(tables ...[]syscallRule) ([]unix.SockFilter, error) {
	raw, err := assembleFilter(tables...)
	if err != nil {
		return nil, err
	}
	out := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		out[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	return out, nil
}

// installFilter puts the calling thread, and the processes it starts,
// under filter: without TSYNC the process's other threads stay as they
// were, so the caller locks the thread and never unlocks it. The thread
// must have no_new_privs.
func installFilter(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("cannot install the seccomp filter: %w", errno)
	}
	return nil
}

func bwrapFilter(unixSockets bool) ([]byte, error) {
	raw, err := assembleFilter(commonRules, legacyRules, bwrapRules(unixSockets))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 8*len(raw))
	for _, ins := range raw {
		out = binary.LittleEndian.AppendUint16(out, ins.Op)
		out = append(out, ins.Jt, ins.Jf)
		out = binary.LittleEndian.AppendUint32(out, ins.K)
	}
	return out, nil
}

// assembleFilter assembles a filter of the rules of every table: a call
// of another architecture fails with ENOSYS, a call a rule names gets
// the rule's verdict, and every other call is allowed.
func assembleFilter(tables ...[]syscallRule) ([]bpf.RawInstruction, error) {
	ret := func(v uint32) bpf.Instruction { return bpf.RetConstant{Val: v} }
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		ret(errnoRet(unix.ENOSYS)),
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if foreignNr != 0 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: foreignNr, SkipFalse: 1}, ret(errnoRet(unix.ENOSYS)))
	}
	seen := map[uint32]bool{}
	for _, r := range slices.Concat(tables...) {
		// A call's first rule decides it: a second would never be read.
		if seen[r.nr] {
			return nil, fmt.Errorf("process: two seccomp rules for system call %d", r.nr)
		}
		seen[r.nr] = true
		var block []bpf.Instruction
		for _, c := range r.cases {
			for i, t := range c.all {
				off := uint32(offArgs + 8*t.arg)
				if t.hi {
					off += 4
				}
				// Past this test: the remaining tests, then the verdict.
				rest := 2*(len(c.all)-i-1) + 1
				block = append(block,
					bpf.LoadAbsolute{Off: off, Size: 4},
					bpf.JumpIf{Cond: t.cond, Val: t.val, SkipFalse: uint8(rest)})
			}
			block = append(block, ret(c.ret))
		}
		block = append(block, ret(r.ret))
		if len(block) > 255 {
			return nil, fmt.Errorf("process: seccomp rule for system call %d is too long", r.nr)
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: r.nr, SkipFalse: uint8(len(block))})
		prog = append(prog, block...)
	}
	prog = append(prog, ret(unix.SECCOMP_RET_ALLOW))
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("process: assembling the seccomp filter: %w", err)
	}
	return raw, nil
}
