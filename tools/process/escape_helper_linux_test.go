package process

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary is the escape suite's helper program, instead of a test
// run, when it is started under the name escapeHelperName (its copies are
// named so) or with escapeHelperArg first (when it starts itself again as
// /proc/self/exe): a program that makes the raw system calls no shell
// tool makes (raw sockets, TIOCSTI, ptrace, mounts in a user namespace),
// run inside the sandbox from a copy in the working directory, and the
// victims the test starts outside it.
const (
	escapeHelperName = "escape-helper"
	escapeHelperArg  = "agentsh-escape-helper"
)

func init() {
	switch {
	case len(os.Args) > 1 && filepath.Base(os.Args[0]) == escapeHelperName:
		os.Exit(escapeHelper(os.Args[1], os.Args[2:]))
	case len(os.Args) > 2 && os.Args[1] == escapeHelperArg:
		os.Exit(escapeHelper(os.Args[2], os.Args[3:]))
	}
}

// errNoAnswerAwaited is what a read from a sendOnly connection returns.
var errNoAnswerAwaited = errors.New("the query was sent; no answer is awaited")

// sendOnly is a DNS server connection whose reads return at once.
type sendOnly struct{ net.Conn }

func (sendOnly) Read([]byte) (int, error) { return 0, errNoAnswerAwaited }

// victimCell is the memory a victim-mem process exposes; an attacker that
// can write another process's memory writes here.
var victimCell [8]byte

// escapeHelper runs one mode and returns the exit code: 0 when what it
// tried worked, 1 when it was refused (the reason on stderr).
func escapeHelper(mode string, args []string) int {
	fmt.Fprintf(os.Stderr, "escape-helper started %s\n", mode)
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "escape-helper %s: %v\n", mode, err)
		return 1
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	num := func(i int) int {
		n, _ := strconv.ParseUint(arg(i), 0, 64)
		return int(n)
	}
	switch mode {
	case "dial": // network address: connect and send a byte
		c, err := net.DialTimeout(arg(0), arg(1), 3*time.Second)
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("x")); err != nil {
			return fail(err)
		}
		fmt.Println("connected")
	case "dns": // server name: one lookup through that server only
		// The test's server takes the query and never answers: what
		// counts is that the query got out, so the lookup does not wait
		// out the resolver's timeouts for an answer.
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := net.Dial("udp", arg(0))
			return sendOnly{c}, err
		}}
		// Room for a loaded machine: a query the sandbox stops fails at once.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		addrs, err := r.LookupHost(ctx, arg(1))
		if errors.Is(err, errNoAnswerAwaited) {
			fmt.Println("query sent")
			break
		}
		if err != nil {
			return fail(err)
		}
		fmt.Println("resolved", addrs)
	case "rawudp", "rawip": // port payload: a UDP datagram to 127.0.0.1 made by hand
		if err := sendRaw(mode == "rawip", num(0), []byte(arg(1))); err != nil {
			return fail(err)
		}
		fmt.Println("sent")
	case "tiocsti": // target text: push text into a terminal's input
		if err := tiocsti(arg(0), arg(1)); err != nil {
			return fail(err)
		}
		fmt.Println("injected")
	case "ptrace-poke", "mem-write", "vm-write": // pid addr: write 8 bytes of another process
		if err := pokeMemory(mode, num(0), uintptr(num(1))); err != nil {
			return fail(err)
		}
		fmt.Println("written")
	case "vm-read": // pid addr n: read another process's memory
		buf := make([]byte, num(2))
		n, err := unix.ProcessVMReadv(num(0), []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}},
			[]unix.RemoteIovec{{Base: uintptr(num(1)), Len: len(buf)}}, 0)
		if err != nil {
			return fail(err)
		}
		fmt.Printf("read %q\n", buf[:n])
	case "seize": // pid: trace a process (without stopping it)
		runtime.LockOSThread()
		if err := unix.PtraceSeize(num(0)); err != nil {
			return fail(err)
		}
		fmt.Println("seized-ok")
	case "pidfd-getfd": // pid fd: take a copy of another process's descriptor and write through it
		pidfd, err := unix.PidfdOpen(num(0), 0)
		if err != nil {
			return fail(err)
		}
		fd, err := unix.PidfdGetfd(pidfd, num(1), 0)
		if err != nil {
			return fail(err)
		}
		if _, err := unix.Write(fd, []byte("ESCAPED through a stolen descriptor\n")); err != nil {
			return fail(err)
		}
		fmt.Println("written")
	case "fsetown": // pid: have the kernel signal pid (SIGWINCH) for I/O on a pipe
		if err := signalByIO(num(0)); err != nil {
			return fail(err)
		}
		fmt.Println("signalled")
	case "creat-suid": // path: create a file with the setuid bit in open(2)
		fd, err := unix.Open(arg(0), unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL, 0o4755)
		if err != nil {
			return fail(err)
		}
		unix.Close(fd)
		fmt.Println("created")
	case "setxattr": // path name value
		if err := unix.Setxattr(arg(0), arg(1), []byte(arg(2)), 0); err != nil {
			return fail(err)
		}
		fmt.Println("set")
	case "keyring-read": // description: find a user key in the keyrings this process can search, and read it
		for _, ring := range []int{unix.KEY_SPEC_USER_KEYRING, unix.KEY_SPEC_SESSION_KEYRING} {
			id, err := unix.KeyctlSearch(ring, "user", arg(0), 0)
			if err != nil {
				fmt.Fprintf(os.Stderr, "search keyring %d: %v\n", ring, err)
				continue
			}
			buf := make([]byte, 256)
			n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
			if err != nil {
				return fail(err)
			}
			fmt.Printf("key: %q\n", buf[:min(n, len(buf))])
			return 0
		}
		return 1
	case "userns": // op args…: run nsops in a new user and mount namespace
		cmd := exec.Command("/proc/self/exe", append([]string{escapeHelperArg, "nsops"}, args...)...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			// Keep the namespace's capabilities across exec (the
			// child's uid is unmapped, so exec would drop them).
			AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE, unix.CAP_SETFCAP},
		}
		if err := cmd.Run(); err != nil {
			return fail(fmt.Errorf("in a new user namespace: %w", err))
		}
	case "nsops": // op args… file text: a mount operation, then append text to file
		return nsops(args)
	case "victim-mem": // print &victimCell, then wait to be killed (or end by itself)
		fmt.Printf("%#x\n", uintptr(unsafe.Pointer(&victimCell[0])))
		time.Sleep(300 * time.Second)
	case "blocked-sleep": // argv0: exec sleep with SIGWINCH blocked, so that one sent stays pending
		runtime.LockOSThread()
		var set unix.Sigset_t
		set.Val[0] = 1 << (uint(unix.SIGWINCH) - 1)
		if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil); err != nil {
			return fail(err)
		}
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			return fail(err)
		}
		// The test kills it; if the test dies first, it ends by itself.
		return fail(syscall.Exec(sleep, []string{arg(0), "300"}, os.Environ()))
	case "daemon": // token pidfile: start a process in a new session that ignores SIGTERM and SIGHUP, write its pid, and leave
		cmd := exec.Command("/proc/self/exe", escapeHelperArg, "linger", arg(0))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(arg(1), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			return fail(err)
		}
		fmt.Println("daemon started")
	case "linger":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		time.Sleep(1000 * time.Second)
	default:
		return fail(errors.New("unknown mode"))
	}
	return 0
}

// sendRaw sends payload to 127.0.0.1:port as UDP through a raw socket,
// with the IP header made by the kernel (rawudp) or by hand (rawip).
func sendRaw(hdrIncl bool, port int, payload []byte) error {
	udp := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(udp[0:], 40000)
	binary.BigEndian.PutUint16(udp[2:], uint16(port))
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(payload)))
	udp = append(udp, payload...) // checksum 0: none, which IPv4 allows
	proto, pkt := unix.IPPROTO_UDP, udp
	if hdrIncl {
		proto = unix.IPPROTO_RAW
		ip := []byte{0x45, 0, 0, 0, 0, 0, 0, 0, 64, unix.IPPROTO_UDP, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1}
		binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)+len(udp)))
		pkt = append(ip, udp...)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, proto)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Sendto(fd, pkt, 0, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
}

// tiocsti pushes text into the input of the terminal target: a path, or
// fd:N for a descriptor the process has.
func tiocsti(target, text string) error {
	fd := -1
	if n, ok := strings.CutPrefix(target, "fd:"); ok {
		fd, _ = strconv.Atoi(n)
	} else {
		var err error
		// No O_NOCTTY: a terminal opened by a session leader without one
		// becomes its controlling terminal, which TIOCSTI then accepts.
		if fd, err = unix.Open(target, unix.O_RDWR, 0); err != nil {
			return err
		}
		defer unix.Close(fd)
	}
	for i := 0; i < len(text); i++ {
		b := text[i]
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&b))); e != 0 {
			return e
		}
	}
	return nil
}

// pokeMemory writes "ESCAPED!" at addr in process pid: by ptrace, through
// /proc/pid/mem, or with process_vm_writev.
func pokeMemory(how string, pid int, addr uintptr) error {
	data := []byte("ESCAPED!")
	switch how {
	case "ptrace-poke":
		runtime.LockOSThread() // ptrace requests come from the tracing thread
		if err := unix.PtraceAttach(pid); err != nil {
			return err
		}
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != nil {
			return err
		}
		_, err := unix.PtracePokeData(pid, addr, data)
		if derr := unix.PtraceDetach(pid); err == nil {
			err = derr
		}
		return err
	case "mem-write":
		f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteAt(data, int64(addr))
		return err
	default:
		_, err := unix.ProcessVMWritev(pid, []unix.Iovec{{Base: &data[0], Len: uint64(len(data))}},
			[]unix.RemoteIovec{{Base: addr, Len: len(data)}}, 0)
		return err
	}
}

// signalByIO asks the kernel to send SIGWINCH to pid when a pipe becomes
// readable (F_SETOWN, F_SETSIG, O_ASYNC), and writes to the pipe.
func signalByIO(pid int) error {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETOWN, pid); err != nil {
		return err
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETSIG, int(unix.SIGWINCH)); err != nil {
		return err
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_ASYNC|unix.O_NONBLOCK); err != nil {
		return err
	}
	_, err := unix.Write(p[1], []byte("x"))
	return err
}

// nsops runs in a new user and mount namespace: one mount operation
// (umount MOUNTPOINT, remount MOUNTPOINT read-write, or bind SRC DST and
// make it writable), then, whatever became of it, appends text to file.
func nsops(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "nsops: want op args… file text")
		return 2
	}
	file, text := args[len(args)-2], args[len(args)-1]
	_ = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	var err error
	switch op := args[0]; op {
	case "umount":
		err = unix.Unmount(args[1], unix.MNT_DETACH)
	case "remount":
		err = unix.Mount("", args[1], "", unix.MS_REMOUNT|unix.MS_BIND, "")
	case "bind":
		if err = unix.Mount(args[1], args[2], "", unix.MS_BIND|unix.MS_REC, ""); err == nil {
			err = unix.Mount("", args[2], "", unix.MS_REMOUNT|unix.MS_BIND, "")
		}
	default:
		err = fmt.Errorf("unknown op %q", op)
	}
	fmt.Fprintf(os.Stderr, "nsops %s: %v\n", args[0], err)
	f, werr := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if werr == nil {
		_, werr = f.WriteString(text)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
	}
	if werr != nil {
		fmt.Fprintf(os.Stderr, "nsops write %s: %v\n", file, werr)
		return 1
	}
	fmt.Println("written")
	return 0
}
