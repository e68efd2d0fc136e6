//go:build amd64 || arm64

package process

import (
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter evaluates the sandbox's filter, as bwrap receives it, on one
// system call.
func runFilter(t *testing.T, arch uint32, nr uintptr, args ...uint64) uint32 {
	t.Helper()
	raw, err := sandboxFilter()
	if err != nil {
		t.Fatal(err)
	}
	return runFilterOf(t, raw, arch, nr, args...)
}

// runFilterOf evaluates the filter raw on one system call.
func runFilterOf(t *testing.T, raw []byte, arch uint32, nr uintptr, args ...uint64) uint32 {
	t.Helper()
	var prog []bpf.RawInstruction
	for i := 0; i+8 <= len(raw); i += 8 {
		prog = append(prog, bpf.RawInstruction{
			Op: binary.LittleEndian.Uint16(raw[i:]), Jt: raw[i+2], Jf: raw[i+3],
			K: binary.LittleEndian.Uint32(raw[i+4:]),
		})
	}
	return runProg(t, prog, arch, nr, args...)
}

// runProg evaluates a seccomp filter on one system call.
func runProg(t *testing.T, prog []bpf.RawInstruction, arch uint32, nr uintptr, args ...uint64) uint32 {
	t.Helper()
	ins, ok := bpf.Disassemble(prog)
	if !ok {
		t.Fatalf("the filter holds instructions that do not disassemble: %v", ins)
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("the filter does not load: %v", err)
	}
	// struct seccomp_data, as the filter sees it: the kernel loads words
	// in the machine's order, the VM in network order, so each word the
	// filter loads (nr, arch, the low halves of the arguments on a
	// little-endian machine) is stored big-endian here.
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], uint32(nr))
	binary.BigEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(data[20+8*i:], uint32(a>>32))
	}
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// filterCall is a system call and the filter's verdict on it.
type filterCall struct {
	name string
	nr   uintptr
	args []uint64
	want uint32
}

func TestSandboxFilterVerdicts(t *testing.T) {
	const (
		allow  = unix.SECCOMP_RET_ALLOW
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		at     = ^uint64(99) // AT_FDCWD-like
	)
	calls := []filterCall{
		{"read", unix.SYS_READ, []uint64{0, 0, 10}, allow},
		{"fchmod 0755", unix.SYS_FCHMOD, []uint64{3, 0o755}, allow},
		{"fchmod 04755", unix.SYS_FCHMOD, []uint64{3, 0o4755}, eperm},
		{"fchmod 02755", unix.SYS_FCHMOD, []uint64{3, 0o2755}, eperm},
		{"fchmod sticky 01777", unix.SYS_FCHMOD, []uint64{3, 0o1777}, allow},
		{"fchmod, bits only in the high half", unix.SYS_FCHMOD, []uint64{3, 0o4755 << 32}, allow},
		{"fchmodat 0644", unix.SYS_FCHMODAT, []uint64{at, 0, 0o644}, allow},
		{"fchmodat 06755", unix.SYS_FCHMODAT, []uint64{at, 0, 0o6755}, eperm},
		{"fchmodat2 04700", unix.SYS_FCHMODAT2, []uint64{at, 0, 0o4700, 0}, eperm},
		{"openat read, stray mode", unix.SYS_OPENAT, []uint64{at, 0, unix.O_RDONLY, 0o4755}, allow},
		{"openat O_DIRECTORY, stray mode", unix.SYS_OPENAT, []uint64{at, 0, unix.O_DIRECTORY, 0o4755}, allow},
		{"openat create 0644", unix.SYS_OPENAT, []uint64{at, 0, unix.O_CREAT | unix.O_WRONLY, 0o644}, allow},
		{"openat create 04755", unix.SYS_OPENAT, []uint64{at, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, eperm},
		{"openat O_TMPFILE 02755", unix.SYS_OPENAT, []uint64{at, 0, unix.O_TMPFILE | unix.O_RDWR, 0o2755}, eperm},
		{"mknodat fifo", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFIFO | 0o644, 0}, allow},
		{"mknodat socket", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFSOCK | 0o644, 0}, allow},
		{"mknodat regular", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFREG | 0o644, 0}, allow},
		{"mknodat regular 04755", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFREG | 0o4755, 0}, eperm},
		{"mknodat char device", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFCHR | 0o666, unix.Mkdev(1, 5)}, eperm},
		{"mknodat block device", unix.SYS_MKNODAT, []uint64{at, 0, unix.S_IFBLK | 0o660, unix.Mkdev(8, 0)}, eperm},
		{"openat2", unix.SYS_OPENAT2, []uint64{at, 0, 0, 24}, enosys},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, []uint64{8, 0}, eperm},
		{"socket AF_UNIX", unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, eperm},
		{"socket AF_UNIX datagram", unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, 0}, eperm},
		{"socket AF_INET", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, allow},
		{"socket AF_INET6", unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_DGRAM, 0}, allow},
		{"socket AF_PACKET (AF_UNIX's bit set)", unix.SYS_SOCKET, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, allow},
		{"socket AF_UNIX in the high half only", unix.SYS_SOCKET, []uint64{unix.AF_UNIX << 32, unix.SOCK_STREAM, 0}, allow},
		{"socketpair AF_UNIX", unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0, 0}, allow},
		{"prlimit of the caller", unix.SYS_PRLIMIT64, []uint64{0, unix.RLIMIT_NOFILE, 0, 1}, allow},
		{"prlimit of another process", unix.SYS_PRLIMIT64, []uint64{1234, unix.RLIMIT_NOFILE, 1, 0}, eperm},
		{"keyctl", unix.SYS_KEYCTL, []uint64{unix.KEYCTL_READ, 1, 0, 0}, eperm},
		{"add_key", unix.SYS_ADD_KEY, []uint64{0, 0, 0, 0, ^uint64(3)}, eperm},
		{"request_key", unix.SYS_REQUEST_KEY, []uint64{0, 0, 0, 0}, eperm},
	}
	calls = append(calls, legacyCalls(allow, eperm)...)
	for _, c := range calls {
		if got := runFilter(t, auditArch, c.nr, c.args...); got != c.want {
			t.Errorf("%s: verdict %#x, want %#x", c.name, got, c.want)
		}
	}
	if got := runFilter(t, unix.AUDIT_ARCH_I386, unix.SYS_READ); got != enosys {
		t.Errorf("a system call of another architecture: verdict %#x, want ENOSYS", got)
	}
	if foreignNr != 0 {
		if got := runFilter(t, auditArch, foreignNr|unix.SYS_FCHMOD, 3, 0o4755); got != enosys {
			t.Errorf("an x32 system call: verdict %#x, want ENOSYS", got)
		}
	}
}

// The bridge's filter is the sandbox's but for unix sockets, which the
// bridge makes to reach the proxy.
func TestBridgeFilterVerdicts(t *testing.T) {
	strict, err := sandboxFilter()
	must(t, err)
	bridge, err := bridgeFilter()
	must(t, err)
	const allow = unix.SECCOMP_RET_ALLOW
	unixSocket := []uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0}
	if got := runFilterOf(t, bridge, auditArch, unix.SYS_SOCKET, unixSocket...); got != allow {
		t.Errorf("socket AF_UNIX under the bridge's filter: verdict %#x, want allow", got)
	}
	if got := runFilterOf(t, strict, auditArch, unix.SYS_SOCKET, unixSocket...); got == allow {
		t.Error("socket AF_UNIX under the sandbox's filter is allowed")
	}
	for _, c := range []filterCall{
		{"fchmod 04755", unix.SYS_FCHMOD, []uint64{3, 0o4755}, 0},
		{"mknodat char device", unix.SYS_MKNODAT, []uint64{0, 0, unix.S_IFCHR | 0o666, unix.Mkdev(1, 5)}, 0},
		{"keyctl", unix.SYS_KEYCTL, []uint64{unix.KEYCTL_READ, 1, 0, 0}, 0},
		{"socket AF_INET", unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, 0},
		{"read", unix.SYS_READ, []uint64{0, 0, 1}, 0},
	} {
		if got, want := runFilterOf(t, bridge, auditArch, c.nr, c.args...), runFilterOf(t, strict, auditArch, c.nr, c.args...); got != want {
			t.Errorf("%s: the bridge's filter says %#x, the sandbox's %#x", c.name, got, want)
		}
	}
}

// setidPayloads are the ways a command inside the sandbox might leave a
// setuid or setgid file or a device node in the working directory.
var setidPayloads = []struct{ name, script string }{
	{"chmod u+s", `cp /bin/true suid && chmod u+s suid`},
	{"chmod g+s", `cp /bin/true sgid && chmod g+s sgid`},
	{"chmod 6755", `cp /bin/true both && chmod 6755 both`},
	{"install -m 4755", `install -m 4755 /bin/true installed`},
	{"cp -p of a setuid file", `cp -p "$SETUID_SOURCE" copied`},
	{"tar of a setuid file", `tar -C "$(dirname "$SETUID_SOURCE")" -cf - "$(basename "$SETUID_SOURCE")" | tar -xpf -`},
	{"mknod char device", `mknod null c 1 3`},
	{"mknod block device", `mknod disk b 8 0`},
	{"perl chmod", `cp /bin/true perl && perl -e 'chmod 04755, "perl" or die "$!\n"'`},
	{"python open mode", `python3 -c 'import os; os.close(os.open("py", os.O_CREAT|os.O_WRONLY, 0o4755)); os.chmod("py", 0o4755)'`},
}

// Nothing made through the sandbox carries setuid or setgid bits or is a
// device node, although a process inside runs as root; without the filter
// the same commands leave a setuid-root program behind.
func TestBubblewrapNoSetidFiles(t *testing.T) {
	t.Parallel()
	b, root := newBwrap(t)
	if os.Geteuid() != 0 {
		t.Log("not running as root: the payloads cannot make root-owned files, but must still leave no setuid bits")
	}
	// The sandbox has a /tmp of its own: the source is in the root.
	source := filepath.Join(root, setuidSource)
	must(t, os.WriteFile(source, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(source, 0o4755))
	env := []string{"SETUID_SOURCE=" + source}

	for _, p := range setidPayloads {
		dir := strings.ReplaceAll(p.name, " ", "_")
		must(t, os.Mkdir(filepath.Join(root, dir), 0o755))
		res, err := execT(t, b, context.Background(), ExecRequest{Args: bash(p.script), Dir: dir, Env: env})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		t.Logf("%s: exit %d: %s", p.name, res.ExitCode, strings.TrimSpace(string(res.Output)))
	}
	if bad := setidFiles(t, root); len(bad) > 0 {
		t.Errorf("the sandbox left setuid, setgid or device files: %s", strings.Join(bad, ", "))
	}
	// Copies that preserve modes keep the file, without the bits.
	for _, copy := range []string{"cp_-p_of_a_setuid_file/copied", "tar_of_a_setuid_file/" + setuidSource} {
		if fi, err := os.Lstat(filepath.Join(root, copy)); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v; want a copy with mode 0755", copy, fi, err)
		}
	}

	// Ordinary modes, FIFOs and sockets still work.
	res, err := execT(t, b, context.Background(), ExecRequest{Args: bash(
		`cp /bin/true plain && chmod 0755 plain && mkfifo fifo && chmod 1777 . && ./plain && echo ok`)})
	if err != nil || res.ExitCode != 0 || !strings.Contains(string(res.Output), "ok") {
		t.Errorf("ordinary modes in the sandbox: %+v %q, %v", res, res.Output, err)
	}

	// The control: the payloads do plant a setuid file when bwrap runs
	// without the filter.
	control := realTempDir(t)
	args := slices.Clone(bwrapArgs(control, control))
	i := slices.Index(args, "--seccomp")
	args = slices.Delete(args, i, i+2)
	cmd := exec.Command(b.bwrap, append(args[1:], "bash", "-c", setidPayloads[0].script)...)
	cmd.Dir = control
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bwrap without the filter: %v: %s", err, out)
	}
	if bad := setidFiles(t, control); len(bad) != 1 {
		t.Errorf("without the filter the payload left %q; want one setuid file, or this test proves nothing", bad)
	}
}

// setuidSource is a setuid file the test makes outside the sandbox, for
// payloads that copy one.
const setuidSource = "setuid-source"

// setidFiles lists the files below root with setuid or setgid bits and the
// device nodes.
func setidFiles(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m := fi.Mode()
		if p == filepath.Join(root, setuidSource) {
			return nil
		}
		if m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeDevice|fs.ModeCharDevice) != 0 {
			rel, _ := filepath.Rel(root, p)
			bad = append(bad, rel+" "+m.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}
