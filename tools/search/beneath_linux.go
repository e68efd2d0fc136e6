//go:build linux

package search

import (
	"errors"
	"io"
	"os"
	"strings"

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
	fd, err := openat(unix.AT_FDCWD, rootPath, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		fd = -1
	}
	return &beneath{rootFd: fd}
}

func (b *beneath) close() {
	if b.rootFd >= 0 {
		unix.Close(b.rootFd)
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
	f, err := regularFile(fd)
	if err != nil {
		return nil, err // not a nil-valued rawFile in an interface
	}
	return f, nil
}

func (b *beneath) openat(rel string, flags int) (int, error) {
	if b.rootFd < 0 {
		return -1, unix.EBADF
	}
	if !cleanBelow(rel) {
		return -1, unix.EINVAL
	}
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	for range 16 {
		fd, err := unix.Openat2(b.rootFd, rel, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN:
			continue // EAGAIN: a rename raced a ".." (rel has none)
		case unix.ENOSYS, unix.EPERM, unix.E2BIG, unix.ENAMETOOLONG:
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
		next, err := openat(fd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	next, err := openat(fd, parts[len(parts)-1], flags|unix.O_NOFOLLOW)
	if fd != dirfd {
		unix.Close(fd)
	}
	return next, err
}

// nameCheck tells which names, met in walk order, are regular files below
// the root. It keeps the directory of the last name open (found with
// openat2, as open does), so that a name costs one fstatat: a name is
// confirmed as an entry of a directory that was below the root, reached
// through directories only, when it was opened, as the native walk
// confirms the entries it reads. A nameCheck is used by one goroutine.
type nameCheck struct {
	b     *beneath
	dir   string
	dirFd int // -1 if dir could not be opened
	open  bool
}

func (b *beneath) newNameCheck() *nameCheck { return &nameCheck{b: b, dirFd: -1} }

// isFile reports whether rel names a regular file.
func (n *nameCheck) isFile(rel string) bool {
	if !cleanBelow(rel) {
		return false
	}
	dir, base := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, base = rel[:i], rel[i+1:]
	}
	st, ok := n.lstat(dir, base)
	return ok && st.Mode&unix.S_IFMT == unix.S_IFREG
}

// exists reports whether the directory dir ("" for the root) has an
// entry name, of any kind.
func (n *nameCheck) exists(dir, name string) bool {
	if dir != "" && !cleanBelow(dir) {
		return false
	}
	_, ok := n.lstat(dir, name)
	return ok
}

func (n *nameCheck) lstat(dir, name string) (unix.Stat_t, bool) {
	var st unix.Stat_t
	fd := n.b.rootFd
	if dir != "" {
		if !n.open || dir != n.dir {
			n.close()
			n.dir, n.open = dir, true
			n.dirFd, _ = n.b.openat(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		}
		fd = n.dirFd
	}
	if fd < 0 {
		return st, false
	}
	for {
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return st, err == nil
		}
	}
}

func (n *nameCheck) close() {
	if n.open && n.dirFd >= 0 {
		unix.Close(n.dirFd)
	}
	n.open, n.dirFd = false, -1
}
