package workpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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
// Components that do not exist are taken as written.
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
// directory) below the resolved directory, as the kernel would: a link's
// target replaces it, an absolute target must lie under the directory,
// and ".." in a target climbs from the link's own directory.
func (d *Dir) resolve(rel string, followLast bool) (string, error) {
	todo := strings.Split(rel, "/")
	var done []string // resolved components
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
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
		cur := filepath.Join(d.real, filepath.FromSlash(strings.Join(append(done, name), "/")))
		fi, err := os.Lstat(cur)
		if err != nil {
			// Nothing there (yet), or nothing this process may see: the
			// rest is as written, and must not climb out either.
			// A ".." after a directory that is not there fails in the
			// kernel (and in the tools): not a path to clean away.
			for _, t := range todo {
				if t == ".." {
					return "", errorf(fs.ErrNotExist, "path %s does not exist", QuoteAlways(rel))
				}
			}
			return path.Clean(strings.Join(append(append(done, name), todo...), "/")), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, name)
			continue
		}
		if links++; links > maxLinks {
			return "", errorf(ErrInvalid, "path %s: too many levels of symbolic links", QuoteAlways(rel))
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", fmt.Errorf("path %s: %v", QuoteAlways(rel), err)
		}
		target = filepath.ToSlash(target)
		if filepath.IsAbs(filepath.FromSlash(target)) {
			t := filepath.Clean(filepath.FromSlash(target))
			r, ok := under(d.real, t)
			if !ok {
				if r, ok = under(d.path, t); !ok {
					return "", d.linkOutside(rel)
				}
			}
			done = done[:0]
			if r != "." {
				todo = append(strings.Split(r, "/"), todo...)
			}
			continue
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return strings.Join(done, "/"), nil
}

func (d *Dir) linkOutside(rel string) error {
	return errorf(ErrOutside, "path %s leads outside the working directory through a symbolic link", QuoteAlways(rel))
}
