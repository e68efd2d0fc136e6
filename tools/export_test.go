package tools

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
)

// SetTestHookWrote makes every write call f after each chunk it puts in
// its temporary file (nil: no hook). For child processes of tests only.
func SetTestHookWrote(f func(tmp string)) { testHookWrote = f }

// OpenedPath resolves p as x's file tools do before they open it — the
// tool's own reading of the path (x.resolve), then LocalFiles' walk,
// with create as a write does — without opening or changing anything.
// It returns the path reached, relative to the working directory's real
// path (with the directories a write would create), and what is there
// (nil if it would be created).
func OpenedPath(x *Extension, p string, create bool) (string, fs.FileInfo, error) {
	rel, err := x.resolve(p)
	if err != nil {
		return "", nil, err
	}
	l, ok := x.files.(*LocalFiles)
	if !ok {
		return "", nil, errors.New("OpenedPath: the extension's FileOps is not LocalFiles")
	}
	r, err := l.walk(rel, create)
	defer r.close()
	if err != nil {
		return "", nil, err
	}
	// A directory opened below the root is named after the names walked
	// to it (os.Root joins them), all real directories.
	dir, err := filepath.Rel(l.abs, r.dir.Name())
	if err != nil {
		return "", nil, err
	}
	parts := append([]string{filepath.ToSlash(dir)}, r.missing...)
	return path.Join(append(parts, r.name)...), r.info, nil
}
