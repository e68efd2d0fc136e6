package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
)

// LocalFiles is the default FileOps: the local filesystem below one
// directory, through os.Root, so no path and no symbolic link can lead
// outside it. Safe for concurrent use.
type LocalFiles struct {
	root *os.Root
}

var _ FileOps = (*LocalFiles)(nil)

// OpenLocalFiles opens dir as the root of a LocalFiles.
func OpenLocalFiles(dir string) (*LocalFiles, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open working directory: %w", err)
	}
	return &LocalFiles{root: r}, nil
}

// Close releases the root.
func (l *LocalFiles) Close() error { return l.root.Close() }

// ReadFile reads path.
func (l *LocalFiles) ReadFile(_ context.Context, p string) ([]byte, error) {
	return l.root.ReadFile(p)
}

// Stat follows symbolic links (inside the root).
func (l *LocalFiles) Stat(_ context.Context, p string) (fs.FileInfo, error) {
	return l.root.Stat(p)
}

// ReadDir lists a directory sorted by name.
func (l *LocalFiles) ReadDir(_ context.Context, p string) ([]fs.DirEntry, error) {
	f, err := l.root.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// maxLinkHops bounds symbolic link chains, as the kernel does.
const maxLinkHops = 40

// WriteFile replaces p atomically: it writes a temporary file in the same
// directory, syncs it, and renames it over p. An existing file keeps its
// mode; a symbolic link is written through, not replaced; missing parent
// directories are created.
func (l *LocalFiles) WriteFile(_ context.Context, p string, data []byte) error {
	target, err := l.followLinks(p)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := l.root.Stat(target); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", p)
		}
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := path.Dir(target)
	if err := l.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	tmp := path.Join(dir, "."+path.Base(target)+".agentsh-"+hex.EncodeToString(suffix[:]))
	f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			l.root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := l.root.Rename(tmp, target); err != nil {
		return err
	}
	ok = true
	return nil
}

// followLinks resolves symbolic links in the last element of p, so a write
// goes to the link's target (which os.Root keeps inside the root).
func (l *LocalFiles) followLinks(p string) (string, error) {
	for range maxLinkHops {
		st, err := l.root.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := l.root.Readlink(p)
		if err != nil {
			return "", err
		}
		if path.IsAbs(dest) {
			return "", fmt.Errorf("%s is a symbolic link to an absolute path (%s); write to a path inside the working directory", p, dest)
		}
		p = path.Join(path.Dir(p), dest)
		if p == ".." || len(p) > 2 && p[:3] == "../" {
			return "", fmt.Errorf("path %q leads outside the working directory through a symbolic link", p)
		}
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}
