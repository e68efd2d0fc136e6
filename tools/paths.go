package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// resolve turns a path from a tool call into a clean slash path relative
// to the working directory ("." for the directory itself). It accepts
// relative paths and absolute paths inside the working directory, and
// refuses everything that leaves it lexically. Symbolic links are checked
// later, where the file is opened (FileOps) or by confineLocal.
func (x *Extension) resolve(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	if p == "" {
		return ".", nil
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		rel, err := filepath.Rel(x.root, filepath.Clean(native))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", x.outside(p)
		}
		return filepath.ToSlash(rel), nil
	}
	clean := path.Clean(filepath.ToSlash(native))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", x.outside(p)
	}
	return clean, nil
}

func (x *Extension) outside(p string) error {
	return fmt.Errorf("path %q is outside the working directory %s; use a path inside it", p, x.root)
}

// confineLocal checks that rel (from resolve) does not lead outside the
// working directory through symbolic links on the local filesystem, for
// tools that hand paths to other programs (search backends, bash). A path
// that does not exist yet is checked through its deepest existing parent.
// It returns the absolute path.
func (x *Extension) confineLocal(rel string) (string, error) {
	abs := filepath.Join(x.root, filepath.FromSlash(rel))
	existing, rest := abs, ""
	for {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			if !within(x.realRoot, real) {
				return "", fmt.Errorf("path %q leads outside the working directory %s through a symbolic link", rel, x.root)
			}
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path %q: %v", rel, unwrapPathError(err))
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", fmt.Errorf("path %q: %v", rel, err)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
}

// within reports whether p is dir or below it (both absolute and clean).
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == string(filepath.Separator)
}

// unwrapPathError drops the *PathError wrapper, whose path is absolute and
// would repeat what the message already says.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// friendlyFSError rewrites errors from FileOps for a model to act on.
func friendlyFSError(rel string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", rel)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", rel)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Errorf("path %q leads outside the working directory through a symbolic link", rel)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", rel, pe.Err)
	}
	return fmt.Errorf("%s: %v", rel, err)
}
