//go:build linux

package search

import (
	"encoding/binary"
	"io"
	"os"
	"strings"
	"syscall"
)

// On Linux the walk holds directory file descriptors and opens every
// entry relative to its directory with O_NOFOLLOW: a path is never
// resolved from the root and a symbolic link is never followed, even if
// one replaces a directory during the walk. Reading through raw file
// descriptors also spares the os.File bookkeeping (poller registration,
// fcntl calls), which costs more than the search on small files.

// dirSys is an open directory.
type dirSys struct {
	fd   int
	open bool
}

func (s *dirSys) close() {
	if s.open {
		syscall.Close(s.fd)
		s.open = false
	}
}

const (
	dirFlags  = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fileFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
)

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dirfd, name, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// diskSource walks the disk. It is used by one goroutine.
type diskSource struct {
	top      *os.Root
	rootPath string
	buf      []byte      // getdents scratch
	stopped  func() bool // if set, polled between reads of a directory
}

func newDiskSource(top *os.Root, rootPath string) *diskSource {
	return &diskSource{top: top, rootPath: rootPath}
}

func (s *diskSource) openDir(parent *dirHandle, name, rel string) (*dirHandle, error) {
	if parent != nil {
		fd, err := openat(parent.sys.fd, name, dirFlags)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		return &dirHandle{rel: rel, sys: dirSys{fd: fd, open: true}}, nil
	}
	// From the root (which may itself be a symbolic link), one component
	// at a time.
	fd, err := openat(atFdcwd, s.rootPath, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: s.rootPath, Err: err}
	}
	if rel != "" {
		for c := range strings.SplitSeq(rel, "/") {
			nfd, err := openat(fd, c, dirFlags)
			syscall.Close(fd)
			if err != nil {
				return nil, &os.PathError{Op: "open", Path: rel, Err: err}
			}
			fd = nfd
		}
	}
	return &dirHandle{rel: rel, sys: dirSys{fd: fd, open: true}}, nil
}

func (s *diskSource) readDir(d *dirHandle) ([]dirEntry, error) {
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	var entries []dirEntry
	for {
		if s.stopped != nil && s.stopped() {
			return entries, errStop
		}
		n, err := syscall.Getdents(d.sys.fd, s.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return entries, err
		}
		if n <= 0 {
			return entries, nil
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8,
		// name NUL-terminated.
		for b := s.buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := indexNul(name); i >= 0 {
				name = name[:i]
			}
			typ := b[18]
			b = b[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirEntry{name: string(name), kind: kindOther}
			switch typ {
			case syscall.DT_REG:
				e.kind = kindFile
			case syscall.DT_DIR:
				e.kind = kindDir
			case syscall.DT_UNKNOWN:
				if fi, err := os.Lstat(s.rootPath + "/" + joinRel(d.rel, e.name)); err == nil {
					if fi.Mode().IsRegular() {
						e.kind = kindFile
					} else if fi.IsDir() {
						e.kind = kindDir
					}
				}
			}
			entries = append(entries, e)
		}
	}
}

func indexNul(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func (*diskSource) hasGit(_ *dirHandle, entries []dirEntry) bool {
	for _, e := range entries {
		if e.name == ".git" {
			return true
		}
	}
	return false
}

func (s *diskSource) readGitignore(d *dirHandle) []byte {
	fd, err := openat(d.sys.fd, ".gitignore", fileFlags)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	data, err := readAll(rawFile(fd))
	if err != nil {
		return nil
	}
	return data
}

// rawFile reads a file descriptor.
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return syscall.Close(int(f)) }

// openFile opens the file name in d for reading. The listing said it was
// a regular file; what was opened is checked again, so a FIFO or device
// swapped in since is never read.
func (d *dirHandle) openFile(name string) (searchFile, error) {
	fd, err := openat(d.sys.fd, name, fileFlags)
	if err != nil {
		return nil, err
	}
	f, err := regularFile(fd)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// regularFile returns fd as a file if it is open on a regular file, and
// closes it otherwise.
func regularFile(fd int) (rawFile, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, errNotRegular
	}
	return rawFile(fd), nil
}

// atFdcwd is AT_FDCWD: the current directory for *at system calls.
const atFdcwd = -0x64

// outputPipe returns a pipe for rg's output: a blocking read end (rg
// output is read in big chunks by one goroutine; a blocking read spares
// the poller a wake-up per chunk), and a write end for rg as large as an
// unprivileged process may make it (1 MiB by default), which saves many
// switches between rg and the reader when rg prints a lot.
func outputPipe() (io.ReadCloser, *os.File, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	const fSetPipeSz = 1031
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[1]), fSetPipeSz, 1<<20)
	return rawFile(p[0]), os.NewFile(uintptr(p[1]), "|1"), nil
}
