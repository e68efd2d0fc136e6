package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// LocalFiles is the default FileOps: the local filesystem below one
// directory, through os.Root, so no path and no symbolic link can lead
// outside it, even one changed while a call runs. Only regular files are
// read and written: files are opened without blocking (a named pipe never
// stalls a call) and their type and size are checked on the open file.
// Safe for concurrent use.
type LocalFiles struct {
	root      *os.Root
	abs, real string // the directory as opened, and with links resolved
}

var _ FileOps = (*LocalFiles)(nil)

// OpenLocalFiles opens dir as the root of a LocalFiles.
func OpenLocalFiles(dir string) (*LocalFiles, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open working directory: %w", err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open working directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return &LocalFiles{root: r, abs: abs, real: real}, nil
}

// Close releases the root.
func (l *LocalFiles) Close() error { return l.root.Close() }

// ReadFile reads the regular file at p, at most limit bytes.
func (l *LocalFiles) ReadFile(ctx context.Context, p string, limit int64) ([]byte, error) {
	r, err := l.walk(p, false)
	defer r.close()
	if err != nil {
		return nil, describe(p, err)
	}
	data, _, err := r.read(ctx, p, limit)
	return data, err
}

// Stat follows symbolic links (inside the root).
func (l *LocalFiles) Stat(_ context.Context, p string) (fs.FileInfo, error) {
	r, err := l.walk(p, false)
	defer r.close()
	if err != nil {
		return nil, describe(p, err)
	}
	return r.info, nil
}

// readDirBatch is how many entries ReadDir reads between checks of ctx.
const readDirBatch = 1024

// ReadDir lists a directory sorted by name.
func (l *LocalFiles) ReadDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	r, err := l.walk(p, false)
	defer r.close()
	if err != nil {
		return nil, describe(p, err)
	}
	if !r.info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: errors.New("not a directory")}
	}
	f, err := r.dir.OpenFile(r.name, openDirFlags, 0)
	if err != nil {
		return nil, describe(p, err)
	}
	defer f.Close()
	var entries []fs.DirEntry
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := f.ReadDir(readDirBatch)
		entries = append(entries, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, describe(p, err)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// WriteFile replaces p atomically (see replaceFile). An existing file
// keeps its mode; a symbolic link is written through, not replaced;
// missing parent directories are created, and removed again if the write
// fails.
func (l *LocalFiles) WriteFile(ctx context.Context, p string, data []byte) error {
	r, err := l.walk(p, true)
	defer r.close()
	if err != nil {
		return describe(p, err)
	}
	mode := fs.FileMode(0o644)
	if r.info != nil {
		if !r.info.Mode().IsRegular() {
			return &NotRegularError{Path: p, Mode: r.info.Mode().Type()}
		}
		mode = r.info.Mode().Perm()
	}
	// Missing directories are made one below the other, each from the
	// handle of its parent (as many handles as directories made, and as
	// many steps), so a failed write can take them back, deepest first.
	dir := r.dir
	var parents []*os.Root // the directory each one was made in
	var made []string
	undo := func(err error) error {
		for i := len(made) - 1; i >= 0; i-- {
			parents[i].Remove(made[i]) // only while empty
		}
		return describe(p, err)
	}
	for _, name := range r.missing {
		switch err := dir.Mkdir(name, 0o755); {
		case err == nil:
			parents, made = append(parents, dir), append(made, name)
		case !errors.Is(err, fs.ErrExist): // made meanwhile: used, not undone
			return undo(err)
		}
		sub, err := dir.OpenRoot(name)
		if err != nil {
			return undo(err)
		}
		r.opened = append(r.opened, sub)
		dir = sub
	}
	if err := replaceFile(ctx, dir, r.name, data, mode, nil); err != nil {
		return undo(err)
	}
	return nil
}

// EditFile reads p, passes its content to edit and writes the result to
// the file that was read: the same directory handle and name, after
// checking that the name still holds the same file.
func (l *LocalFiles) EditFile(ctx context.Context, p string, limit int64, edit func([]byte) ([]byte, error)) error {
	r, err := l.walk(p, false)
	defer r.close()
	if err != nil {
		return describe(p, err)
	}
	data, st, err := r.read(ctx, p, limit)
	if err != nil {
		return err
	}
	out, err := edit(data)
	if err != nil {
		return err
	}
	if int64(len(out)) > limit {
		return &FileSizeError{Path: p, Size: int64(len(out)), Limit: limit}
	}
	same := func() error {
		now, err := r.dir.Lstat(r.name)
		if err != nil || !os.SameFile(now, st) {
			return &fs.PathError{Op: "edit", Path: p, Err: errReplaced}
		}
		return nil
	}
	return describe(p, replaceFile(ctx, r.dir, r.name, out, st.Mode().Perm(), same))
}

// errReplaced is EditFile's error when the file it read was replaced
// before it could write it.
var errReplaced = errors.New("replaced while it was being edited; nothing was written")

// readChunk is how much a read asks for at once, between checks of ctx.
const readChunk = 1 << 20

// read opens the resolved file without blocking, checks on the open file
// that it is a regular file of at most limit bytes, and reads it through
// a cap of limit+1 bytes whatever its size said. p names it in errors.
func (r *resolved) read(ctx context.Context, p string, limit int64) ([]byte, fs.FileInfo, error) {
	// What the walk saw decides first, so a device or a pipe is not even
	// opened; the checks on the open file below catch a swap since.
	if !r.info.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: p, Mode: r.info.Mode().Type()}
	}
	f, err := r.dir.OpenFile(r.name, openReadFlags, 0)
	if err != nil {
		return nil, nil, describe(p, err)
	}
	defer f.Close()
	return readRegular(ctx, f, p, limit)
}

// readRegular reads f, which must be a regular file of at most limit
// bytes: type and size come from the open descriptor (fstat).
func readRegular(ctx context.Context, f *os.File, p string, limit int64) ([]byte, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, describe(p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: p, Mode: st.Mode().Type()}
	}
	if st.Size() > limit {
		return nil, nil, &FileSizeError{Path: p, Size: st.Size(), Limit: limit}
	}
	data, err := readCapped(ctx, f, p, st.Size(), limit)
	if err != nil {
		return nil, nil, err
	}
	return data, st, nil
}

// readCapped reads r to its end, expecting size bytes, but never more
// than limit+1 bytes, whatever size said: a reader with more than limit
// is a *FileSizeError.
func readCapped(ctx context.Context, r io.Reader, p string, size, limit int64) ([]byte, error) {
	// One byte more than the size, to see the end without growing.
	buf := make([]byte, 0, min(size, limit)+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, &FileSizeError{Path: p, Size: -1, Limit: limit}
			}
			buf = append(buf, 0)[:len(buf)]
			buf = buf[:len(buf):min(int64(cap(buf)), limit+1)]
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || err == nil && n == 0 {
			return buf, nil
		}
		if err != nil {
			return nil, describe(p, err)
		}
	}
}
