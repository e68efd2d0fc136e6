//go:build linux

package search

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
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
		unix.Close(s.fd)
		s.open = false
	}
}

const (
	dirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fileFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK
)

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
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
	fd, err := openat(unix.AT_FDCWD, s.rootPath, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: s.rootPath, Err: err}
	}
	if rel != "" {
		for c := range strings.SplitSeq(rel, "/") {
			nfd, err := openat(fd, c, dirFlags)
			unix.Close(fd)
			if err != nil {
				return nil, &os.PathError{Op: "open", Path: rel, Err: err}
			}
			fd = nfd
		}
	}
	return &dirHandle{rel: rel, sys: dirSys{fd: fd, open: true}}, nil
}

// Offsets in struct linux_dirent64, which getdents64 fills: d_ino and
// d_off (8 bytes each), d_reclen (2), d_type (1), then the name,
// NUL-terminated and padded to d_reclen.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

func (s *diskSource) readDir(d *dirHandle) ([]dirEntry, error) {
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	var entries []dirEntry
	for {
		if s.stopped != nil && s.stopped() {
			return entries, errStop
		}
		n, err := unix.Getdents(d.sys.fd, s.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return entries, err
		}
		if n <= 0 {
			return entries, nil
		}
		for b := s.buf[:n]; len(b) >= direntName; {
			reclen := int(binary.NativeEndian.Uint16(b[direntReclen:]))
			if reclen < direntName || reclen > len(b) {
				break
			}
			name := b[direntName:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			typ := b[direntType]
			b = b[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirEntry{name: string(name), kind: kindOther}
			if typ == unix.DT_UNKNOWN {
				// Some file systems leave the type to a stat, made
				// relative to the directory like every other open.
				var st unix.Stat_t
				if unix.Fstatat(d.sys.fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
					typ = uint8(st.Mode & unix.S_IFMT >> 12)
				}
			}
			switch typ {
			case unix.DT_REG:
				e.kind = kindFile
			case unix.DT_DIR:
				e.kind = kindDir
			}
			entries = append(entries, e)
		}
	}
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
	defer unix.Close(fd)
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
		n, err := unix.Read(int(f), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return unix.Close(int(f)) }

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
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, errNotRegular
	}
	return rawFile(fd), nil
}

// outputPipe returns a pipe for rg's output: a blocking read end (rg
// output is read in big chunks by one goroutine; a blocking read spares
// the poller a wake-up per chunk), and a write end for rg as large as an
// unprivileged process may make it (1 MiB by default), which saves many
// switches between rg and the reader when rg prints a lot.
func outputPipe() (io.ReadCloser, *os.File, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	// Best effort: a smaller pipe only costs more switches.
	_, _ = unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, 1<<20)
	return rawFile(p[0]), os.NewFile(uintptr(p[1]), "|1"), nil
}
