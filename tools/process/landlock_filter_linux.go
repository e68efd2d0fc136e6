//go:build amd64 || arm64

package process

import (
	"slices"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The Landlock backend's seccomp filter: the sandbox's (nosetid_linux.go)
// and more. Without namespaces of its own, a command there shares
// agentsh's process tree, network and kernel; the filter takes away what
// would let it leave its process group, reach the network other than
// through agentsh's proxy, type into a terminal, trace or mount, or reach
// the kernel interfaces only administrators need.

// nsFlags are clone's flags that make new namespaces.
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// refusedCalls fail with EPERM whatever their arguments.
var refusedCalls = []uintptr{
	unix.SYS_SETSID, // with setpgid: nothing leaves the process group
	// A listen without a bind takes a port Landlock does not see.
	unix.SYS_LISTEN,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
}

// Landlock has no right for a file's metadata: a command could change the
// mode, times, extended attributes or inode flags of any file it can
// name, outside the working directory, in .git (chmod +x a disabled
// hook) or in a read-only profile. So the filter refuses those changes
// wherever they are asked: chmod in every form, chown, extended
// attributes, inode flags, and times set through a path. Times set
// through a descriptor (futimens, as touch does after opening a file for
// writing) stay allowed, since a file opened for writing is one Landlock
// let the command write.
var metadataCalls = []uintptr{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}

// Inode flags (chattr) and the extended ones: _IOW('f', 2, long) in its
// 64- and 32-bit forms, and _IOW('X', 32, struct fsxattr).
const (
	fsIocSetflags   = unix.FS_IOC_SETFLAGS
	fsIoc32Setflags = 0x40046602
	fsIocFssetxattr = 0x401c5820
)

// confineRules are the rules the Landlock backend adds. network says
// whether the command may open TCP sockets (to reach the proxy, the one
// port Landlock lets it connect to); cookie is the run's groupCookie.
func confineRules(network bool, cookie uint32) []syscallRule {
	rules := []syscallRule{
		// setpgid: the command's own call, which makes it the leader of
		// a process group of its own, is let through; a guess at the
		// cookie kills the guesser; any other call is refused. See
		// groupCookie.
		{nr: unix.SYS_SETPGID, ret: errnoRet(unix.EPERM), cases: []ruleCase{
			{[]argTest{equal(0, 0), {0, true, bpf.JumpEqual, 0}, equal(1, 0), {1, true, bpf.JumpEqual, cookie}}, unix.SECCOMP_RET_ALLOW},
			{[]argTest{{1, true, bpf.JumpNotEqual, 0}, {1, true, bpf.JumpNotEqual, 0xffffffff}}, unix.SECCOMP_RET_KILL_PROCESS},
		}},
		// Typing into a terminal, and the Linux console's equivalent.
		// Inode flags, which Landlock does not guard either.
		refuseIf(unix.SYS_IOCTL, []argTest{equal(1, unix.TIOCSTI)}, []argTest{equal(1, unix.TIOCLINUX)},
			[]argTest{equal(1, fsIocSetflags)}, []argTest{equal(1, fsIoc32Setflags)}, []argTest{equal(1, fsIocFssetxattr)}),
		// Times through a path; a descriptor's (a NULL path) stay.
		refuseIf(unix.SYS_UTIMENSAT, []argTest{notEqual(1, 0)}, []argTest{{1, true, bpf.JumpNotEqual, 0}}),
		// No namespaces: a user namespace would give back capabilities.
		// clone3 passes its flags in memory, which a filter cannot read;
		// ENOSYS makes C libraries fall back to clone.
		refuseIf(unix.SYS_CLONE, []argTest{bitsSet(0, nsFlags)}),
		always(unix.SYS_CLONE3, unix.ENOSYS),
	}
	// socket(): nothing without the network; with it, TCP over IPv4 or
	// IPv6 only, which Landlock confines to the proxy's port (it does not
	// confine UDP before ABI 10, nor SCTP or MPTCP). Types 2 to 15 all
	// have a bit of 0xe; SOCK_STREAM is 1. socketpair stays allowed.
	if network {
		rules = append(rules, refuseIf(unix.SYS_SOCKET,
			[]argTest{notEqual(0, unix.AF_INET), notEqual(0, unix.AF_INET6)},
			[]argTest{bitsSet(1, 0xe)},
			[]argTest{notEqual(2, 0), notEqual(2, unix.IPPROTO_TCP)},
		))
	} else {
		rules = append(rules, always(unix.SYS_SOCKET, unix.EPERM))
	}
	for _, nr := range slices.Concat(refusedCalls, metadataCalls, legacyMetadataCalls) {
		rules = append(rules, always(nr, unix.EPERM))
	}
	return rules
}

// withoutCalls is rules less those for the system calls that over
// decides: a call's first rule decides it, and the Landlock backend
// refuses some calls the shared rules only inspect.
func withoutCalls(rules []syscallRule, over []syscallRule) []syscallRule {
	taken := map[uint32]bool{}
	for _, r := range over {
		taken[r.nr] = true
	}
	return slices.DeleteFunc(slices.Clone(rules), func(r syscallRule) bool { return taken[r.nr] })
}

// landlockFilter is the Landlock backend's filter for one run.
func landlockFilter(network bool, cookie uint32) ([]unix.SockFilter, error) {
	own := confineRules(network, cookie)
	return sockFilters(own, withoutCalls(slices.Concat(commonRules, legacyRules), own))
}
