package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinkHops bounds symbolic link chains, as the kernel does.
const maxLinkHops = 40

// errOutside is what resolving a path returns when a symbolic link leads
// outside the root (os.Root says "path escapes from parent" for the same).
var errOutside = errors.New("path escapes from parent")

// resolved is a path of a LocalFiles with its symbolic links resolved:
// the directory holding it, opened, and its name there. opened holds what
// must be closed. Operations on the
// name in dir cannot leave dir, whatever happens to the links on the way
// meanwhile.
type resolved struct {
	dir  *os.Root
	name string      // "." if the path is dir itself
	info fs.FileInfo // what name was when resolved (links followed); nil if it does not exist
	// missing are the directories, below dir, that a write must create
	// before name can be created in the last of them.
	missing []string
	opened  []*os.Root
}

func (r *resolved) close() {
	for _, d := range r.opened {
		d.Close()
	}
	r.opened = nil
}

// walk resolves p (clean, slash-separated, relative to the root) the way
// the kernel does, one component at a time below the root: a symbolic
// link's target replaces it in the rest of the path, a ".." goes to the
// parent of the directory actually reached (not a lexical parent), and an
// absolute link target is taken relative to the root when it names a path
// inside it. Leaving the root is errOutside. Each step opens the next
// directory beneath the one held (os.Root), so nothing here can be led
// outside by a concurrent change either: a race can only make walk fail
// or resolve to another file inside. Only one directory is held at a
// time, so a path of any depth costs one descriptor: a ".." reopens the
// parent from the root by the names resolved so far.
//
// With create, a path whose tail does not exist resolves to the deepest
// existing directory, the directories to create (missing) and the name.
// The caller must close the result, also after an error.
func (l *LocalFiles) walk(p string, create bool) (*resolved, error) {
	r := &resolved{dir: l.root}
	var names []string // the real path of r.dir below the root
	enter := func(d *os.Root) {
		r.close()
		r.dir = d
		if d != l.root {
			r.opened = append(r.opened, d)
		}
	}
	todo := components(p)
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			if len(names) == 0 {
				return r, errOutside
			}
			names = names[:len(names)-1]
			parent := l.root
			if len(names) > 0 {
				var err error
				if parent, err = l.root.OpenRoot(strings.Join(names, "/")); err != nil {
					return r, err
				}
			}
			enter(parent)
			continue
		}
		fi, err := r.dir.Lstat(c)
		if err != nil {
			if create && errors.Is(err, fs.ErrNotExist) && !slices.Contains(todo, "..") {
				all := append([]string{c}, todo...)
				r.name, r.missing = all[len(all)-1], all[:len(all)-1]
				return r, nil
			}
			return r, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			hops++
			if hops > maxLinkHops {
				return r, &fs.PathError{Op: "open", Path: p, Err: syscall.ELOOP}
			}
			dest, err := r.dir.Readlink(c)
			if err != nil {
				return r, err
			}
			if filepath.IsAbs(dest) {
				rest, ok := l.insideAbs(dest)
				if !ok {
					return r, errOutside
				}
				enter(l.root)
				names, dest = nil, rest
			}
			todo = append(components(filepath.ToSlash(dest)), todo...)
		case len(todo) == 0:
			r.name, r.info = c, fi
			return r, nil
		case fi.IsDir():
			sub, err := r.dir.OpenRoot(c)
			if err != nil {
				return r, err
			}
			enter(sub)
			names = append(names, c)
		default:
			return r, &fs.PathError{Op: "open", Path: p, Err: syscall.ENOTDIR}
		}
	}
	// The path ends at a directory: the root, or one reached through "..".
	r.name = "."
	fi, err := r.dir.Stat(".")
	r.info = fi
	return r, err
}

// insideAbs maps an absolute link target inside the root to a path
// relative to it. The target is compared component by component with the
// root's path as opened and with its real path; a ".." before the root
// is reached counts as outside, even where the kernel would come back in.
func (l *LocalFiles) insideAbs(dest string) (string, bool) {
	parts := components(filepath.ToSlash(dest))
	for _, base := range [...]string{l.abs, l.real} {
		bp := components(filepath.ToSlash(base))
		if len(parts) < len(bp) || filepath.VolumeName(dest) != filepath.VolumeName(base) {
			continue
		}
		if slices.Equal(parts[:len(bp)], bp) {
			return strings.Join(parts[len(bp):], "/"), true
		}
	}
	return "", false
}

// components splits a slash path into its names, dropping empty and "."
// ones (a volume name on Windows is dropped too; insideAbs compares it).
func components(p string) []string {
	p = strings.TrimPrefix(p, filepath.VolumeName(p))
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// describe gives an error of the filesystem the path the caller gave
// (not the name in a directory, nor a temporary file's). Other errors
// pass as they are.
func describe(p string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errOutside):
		return &fs.PathError{Op: "open", Path: p, Err: errOutside}
	case errors.As(err, &pe):
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	case errors.As(err, &le):
		return &fs.PathError{Op: le.Op, Path: p, Err: le.Err}
	}
	return err
}
