//go:build linux

package search

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// beneath opens what an external program (rg, fd) reported, by the path
// it printed, so that what a backend emits comes from a file the kernel
// found below the search root: openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS resolves the whole path from a descriptor of the
// root and fails if any component is a symbolic link or leads out. The
// program may have read something else (a directory swapped for a
// symbolic link while it ran reads as the link's target); whatever it
// printed is checked against what is opened here.
//
// Where openat2 is missing (Linux before 5.6, or a seccomp filter that
// refuses it) and for paths longer than PATH_MAX, the path is opened one
// component at a time with O_NOFOLLOW, each relative to the directory
// before it, which gives the same guarantee.
//
// A beneath is safe for concurrent use.
type beneath struct {
	rootFd int // -1 if the root could not be opened
}

func newBeneath(_ *os.Root, rootPath string) *beneath {
	fd, err := openat(atFdcwd, rootPath, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		fd = -1
	}
	return &beneath{rootFd: fd}
}

func (b *beneath) close() {
	if b.rootFd >= 0 {
		syscall.Close(b.rootFd)
		b.rootFd = -1
	}
}

// errNotRegular is the error of opening something that is not a regular
// file: a FIFO or a device put where rg saw a file is never read.
var errNotRegular = errors.New("not a regular file")

// open opens the regular file rel (slash-separated, relative to the root)
// for reading.
func (b *beneath) open(rel string) (io.ReadCloser, error) {
	fd, err := b.openat(rel, fileFlags)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, errNotRegular
	}
	return rawFile(fd), nil
}

// isFile reports whether rel names a regular file below the root, reached
// through directories only.
func (b *beneath) isFile(rel string) bool {
	fd, err := b.openat(rel, unix.O_PATH|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG
}

func (b *beneath) openat(rel string, flags int) (int, error) {
	if b.rootFd < 0 {
		return -1, syscall.EBADF
	}
	if !cleanBelow(rel) {
		return -1, syscall.EINVAL
	}
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	for range 16 {
		fd, err := unix.Openat2(b.rootFd, rel, &how)
		switch err {
		case nil:
			return fd, nil
		case syscall.EINTR, syscall.EAGAIN:
			continue // EAGAIN: a rename raced a ".." (rel has none)
		case syscall.ENOSYS, syscall.EPERM, syscall.E2BIG, syscall.ENAMETOOLONG:
			return openSteps(b.rootFd, rel, flags)
		}
		return -1, err
	}
	return openSteps(b.rootFd, rel, flags)
}

// openSteps opens rel below the directory dirfd one component at a time,
// following no symbolic link.
func openSteps(dirfd int, rel string, flags int) (int, error) {
	parts := strings.Split(rel, "/") // clean: no "", "." or ".."
	fd := dirfd
	for _, c := range parts[:len(parts)-1] {
		next, err := openat(fd, c, unix.O_PATH|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
		if fd != dirfd {
			syscall.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	next, err := openat(fd, parts[len(parts)-1], flags|syscall.O_NOFOLLOW)
	if fd != dirfd {
		syscall.Close(fd)
	}
	return next, err
}
