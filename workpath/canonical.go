package workpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ErrOutside is wrapped by the error of a path that leaves the working
// directory, lexically or through a symbolic link.
var ErrOutside = errors.New("outside the working directory")

// ErrInvalid is wrapped by the error of a path that is not a path: a
// quoted form that does not decode, or a NUL byte.
var ErrInvalid = errors.New("not a valid path")

// pathError is a path that cannot be made canonical: its message for
// people, its kind (ErrOutside or ErrInvalid) for errors.Is.
type pathError struct {
	msg  string
	kind error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &pathError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// maxLinks bounds the symbolic links one path may go through, as the
// kernel's ELOOP does.
const maxLinks = 40

// Decode returns p bare: a path in the quoted form (it starts with ")
// unquoted, any other path as it is. A NUL byte is refused.
func Decode(p string) (string, error) {
	if strings.HasPrefix(p, `"`) {
		u, err := Unquote(p)
		if err != nil {
			return "", errorf(ErrInvalid, "path %s is not a valid quoted path: %v. Give the path bare, or quoted as the tools print it", p, err)
		}
		p = u
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errorf(ErrInvalid, "path %s contains a NUL byte", QuoteAlways(p))
	}
	return p, nil
}

// Lexical returns p (bare or quoted) relative to dir, an absolute, clean
// directory: slash-separated and clean, "." for dir itself. An absolute p
// must lie under dir; a relative one must not climb out of it with "..".
// Symbolic links are not looked at.
func Lexical(dir, p string) (string, error) {
	p, err := Decode(p)
	if err != nil {
		return "", err
	}
	if p == "" {
		return ".", nil
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		rel, ok := under(dir, filepath.Clean(native))
		if !ok {
			return "", outside(p, dir)
		}
		return rel, nil
	}
	clean := path.Clean(filepath.ToSlash(native))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", outside(p, dir)
	}
	return clean, nil
}

// under returns p (absolute, clean) relative to dir as a slash path, and
// whether p is dir or below it.
func under(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func outside(p, dir string) error {
	return errorf(ErrOutside, "path %s is outside the working directory %s; use a path inside it", QuoteAlways(p), dir)
}

// Follow says which symbolic links Dir.Canonical resolves.
type Follow uint8

const (
	// FollowAll resolves every link, the last component's too: the path
	// of a file that is read, or of a directory that is listed, searched
	// or run in, is where the link leads.
	FollowAll Follow = iota
	// FollowParents resolves the links among the directories only: a
	// file that is written or deleted is the link itself, which the
	// tools replace or remove rather than write through.
	FollowParents
	// FollowNone resolves no link: the path is only lexical.
	FollowNone
)

// Dir is a working directory that paths are made canonical against.
type Dir struct {
	path string // absolute and clean
	real string // path with its symbolic links resolved
}

// NewDir returns the working directory dir, made absolute. Its symbolic
// links are resolved once, here; a directory that does not exist (yet)
// is taken as written.
func NewDir(dir string) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("working directory %s: %v", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return &Dir{path: abs, real: real}, nil
}

// Path returns the directory, absolute and clean.
func (d *Dir) Path() string { return d.path }

// Canonical returns p (bare or quoted, relative or absolute) relative to
// the directory: slash-separated, clean, "." for the directory itself,
// with the symbolic links follow says resolved on the local filesystem.
// A path that leaves the directory, lexically or through a link, is an
// error wrapping ErrOutside; one that cannot be decoded wraps ErrInvalid.
// Components that do not exist, or that follow a file, are taken as
// written (opening them fails); a ".." among them, which only a directory
// that is there could answer, is an error.
func (d *Dir) Canonical(p string, follow Follow) (string, error) {
	rel, err := Lexical(d.path, p)
	if err != nil {
		return "", err
	}
	if follow == FollowNone || rel == "." {
		return rel, nil
	}
	return d.resolve(rel, follow == FollowAll)
}

// resolve follows the symbolic links of rel (lexical, relative to the
// directory) below the resolved directory, one component at a time, as
// the kernel would and as the tools' own resolver does when it opens the
// file (tools.LocalFiles): a link's target replaces it, ".." in a target
// goes to the parent of the directory actually reached, an absolute
// target must name the directory (as given or resolved) and goes on from
// there, and only a directory has a rest. A component that is not there
// (yet) ends the walk: the rest is taken as written.
func (d *Dir) resolve(rel string, followLast bool) (string, error) {
	todo := components(rel)
	var done []string // resolved components: real directories, then the name
	links := 0
	look := looker{dir: d.real}
	defer look.close()
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if name == ".." {
			if len(done) == 0 {
				return "", d.linkOutside(rel)
			}
			done = done[:len(done)-1]
			continue
		}
		if len(todo) == 0 && !followLast {
			done = append(done, name)
			break
		}
		fi, err := look.lstat(done, name)
		switch {
		case err != nil:
			// Nothing there (yet), or nothing this process may see: the
			// rest is as written, and the tools' open fails where this
			// walk stopped.
			return d.stuck(rel, append(append(done, name), todo...), fs.ErrNotExist, "does not exist")
		case fi.Mode()&fs.ModeSymlink == 0 && len(todo) > 0 && !fi.IsDir():
			// A file is not a directory, even on the way back up with "..".
			return d.stuck(rel, append(append(done, name), todo...), ErrInvalid, "goes through "+QuoteAlways(strings.Join(append(done, name), "/"))+", which is not a directory")
		case fi.Mode()&fs.ModeSymlink == 0:
			done = append(done, name)
			continue
		}
		if links++; links > maxLinks {
			return "", errorf(ErrInvalid, "path %s: too many levels of symbolic links", QuoteAlways(rel))
		}
		target, err := look.readlink(done, name)
		if err != nil {
			return "", fmt.Errorf("path %s: %v", QuoteAlways(rel), err)
		}
		if filepath.IsAbs(target) {
			r, ok := d.insideAbs(target)
			if !ok {
				return "", d.linkOutside(rel)
			}
			done, target = done[:0], r
		}
		todo = append(components(filepath.ToSlash(target)), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return strings.Join(done, "/"), nil
}

// looker looks at names below dir by their paths. A path longer than the
// system takes in one call (ENAMETOOLONG) is looked at beneath dir
// through os.Root handles instead, as the tools open it, so a deep path
// is no way round the canonical step; the handle of the directory last
// looked in is kept, so a walk down a deep path costs a step per name.
type looker struct {
	dir  string
	root *os.Root // dir, opened for the first long path
	cur  *os.Root // root or a directory below it ...
	at   []string // ... by these names
}

// lstat is os.Lstat of name in the directory done (names below dir).
func (l *looker) lstat(done []string, name string) (fs.FileInfo, error) {
	fi, err := os.Lstat(l.path(done, name))
	if errors.Is(err, syscall.ENAMETOOLONG) {
		d, err := l.in(done)
		if err != nil {
			return nil, err
		}
		return d.Lstat(name)
	}
	return fi, err
}

// readlink is os.Readlink of name in the directory done.
func (l *looker) readlink(done []string, name string) (string, error) {
	target, err := os.Readlink(l.path(done, name))
	if errors.Is(err, syscall.ENAMETOOLONG) {
		d, err := l.in(done)
		if err != nil {
			return "", err
		}
		return d.Readlink(name)
	}
	return target, err
}

func (l *looker) path(done []string, name string) string {
	return filepath.Join(l.dir, filepath.FromSlash(strings.Join(done, "/")), name)
}

// in returns a handle of the directory done, going down from the one
// held when done is below it, else from dir.
func (l *looker) in(done []string) (*os.Root, error) {
	if l.root == nil {
		r, err := os.OpenRoot(l.dir)
		if err != nil {
			return nil, err
		}
		l.root, l.cur = r, r
	}
	if len(done) < len(l.at) || !slices.Equal(done[:len(l.at)], l.at) {
		l.enter(l.root, nil)
	}
	for _, n := range done[len(l.at):] {
		sub, err := l.cur.OpenRoot(n)
		if err != nil {
			return nil, err
		}
		l.enter(sub, append(l.at, n)) // l.at is the looker's own
	}
	return l.cur, nil
}

func (l *looker) enter(d *os.Root, at []string) {
	if l.cur != l.root {
		l.cur.Close()
	}
	l.cur, l.at = d, at
}

func (l *looker) close() {
	if l.root != nil {
		l.enter(l.root, nil)
		l.root.Close()
	}
}

// stuck is the canonical path of a walk that cannot go on: the names as
// written, unless a ".." is among them, which only a directory that is
// there could answer; then the path fails as it would in the tools.
func (d *Dir) stuck(rel string, names []string, kind error, why string) (string, error) {
	for _, n := range names {
		if n == ".." {
			return "", errorf(kind, "path %s %s", QuoteAlways(rel), why)
		}
	}
	return strings.Join(names, "/"), nil
}

// insideAbs maps an absolute link target to a path relative to the
// directory, if it names the directory as given or as resolved; it is
// compared name by name, not cleaned, so a ".." in the rest is walked
// like any other (a ".." that climbs out of the directory is outside,
// even where it would come back in).
func (d *Dir) insideAbs(target string) (string, bool) {
	parts := components(filepath.ToSlash(target))
	for _, base := range [...]string{d.path, d.real} {
		bp := components(filepath.ToSlash(base))
		if len(parts) >= len(bp) && filepath.VolumeName(target) == filepath.VolumeName(base) && slices.Equal(parts[:len(bp)], bp) {
			return strings.Join(parts[len(bp):], "/"), true
		}
	}
	return "", false
}

// components splits a slash path into its names, without empty and "."
// ones (and without a volume name, which insideAbs compares).
func components(p string) []string {
	p = strings.TrimPrefix(p, filepath.VolumeName(p))
	out := make([]string, 0, strings.Count(p, "/")+1)
	for c := range strings.SplitSeq(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func (d *Dir) linkOutside(rel string) error {
	return errorf(ErrOutside, "path %s leads outside the working directory through a symbolic link", QuoteAlways(rel))
}
