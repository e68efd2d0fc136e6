package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentsh/agentsh/workpath"
)

// resolve turns a path from a tool call into a clean slash path relative
// to the working directory ("." for the directory itself): relative
// paths and absolute paths inside the working directory, bare or quoted
// as the tools print them, the same reading as the canonical call's (see
// workpath.Lexical); everything that leaves it lexically is refused.
// Symbolic links are checked later, where the file is opened (FileOps) or
// by confineLocal.
func (x *Extension) resolve(p string) (string, error) { return workpath.Lexical(x.root, p) }

// The tools print paths as workpath spells them.
var (
	quotePath   = workpath.Quote
	quoteAlways = workpath.QuoteAlways
)

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
				return "", fmt.Errorf("path %s leads outside the working directory %s through a symbolic link", quoteAlways(rel), x.root)
			}
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path %s: %v", quoteAlways(rel), unwrapPathError(err))
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", fmt.Errorf("path %s: %v", quoteAlways(rel), err)
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

// fileError rewrites an error of the file tool named tool about rel for a
// model to act on.
func fileError(tool, rel string, err error) error {
	name := quotePath(rel)
	var notReg *NotRegularError
	var size *FileSizeError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &notReg) && notReg.Mode.IsDir() && tool == "read_file":
		return fmt.Errorf("%s is a directory; use list_dir to see what it holds", name)
	case errors.As(err, &notReg) && notReg.Mode.IsDir():
		return fmt.Errorf("%s is a directory", name)
	case errors.As(err, &notReg):
		verb := map[string]string{"read_file": "reads", "write_file": "writes", "edit_file": "edits"}[tool]
		return fmt.Errorf("%s is %s; %s %s regular files only", name, fileKind(notReg.Mode), tool, verb)
	case errors.As(err, &size) && size.Size < 0:
		return fmt.Errorf("%s grew past %s's limit of %d bytes while it was read; nothing was changed. Try again once it stops growing, or search it with grep", name, tool, size.Limit)
	case errors.As(err, &size) && tool == "read_file":
		return fmt.Errorf("%s is %d bytes, more than read_file's %d; search it with grep instead", name, size.Size, size.Limit)
	case errors.As(err, &size):
		return fmt.Errorf("%s is %d bytes, more than %s's limit of %d; nothing changed. Search it with grep, or change it with bash", name, size.Size, tool, size.Limit)
	case errors.Is(err, errReplaced):
		return fmt.Errorf("%s was replaced while it was being edited; nothing was written. Read it again and redo the edit", name)
	}
	return friendlyFSError(rel, err)
}

// friendlyFSError rewrites errors from FileOps for a model to act on.
func friendlyFSError(rel string, err error) error {
	name := quotePath(rel)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", name)
	case errors.Is(err, errOutside) || strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Errorf("path %s leads outside the working directory through a symbolic link", quoteAlways(rel))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", name, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
