//go:build !linux

package search

import (
	"io"
	"os"
)

// Elsewhere the walk opens directories and files through os.Root, one
// directory at a time, which keeps every open below the directory it
// names.

// dirSys is an open directory.
type dirSys struct {
	root *os.Root
}

func (s *dirSys) close() {
	if s.root != nil {
		s.root.Close()
		s.root = nil
	}
}

// diskSource walks the disk.
type diskSource struct {
	top     *os.Root
	stopped func() bool // if set, polled between reads of a directory
}

func newDiskSource(top *os.Root, _ string) *diskSource {
	return &diskSource{top: top}
}

func (s *diskSource) openDir(parent *dirHandle, name, rel string) (*dirHandle, error) {
	var r *os.Root
	var err error
	switch {
	case parent != nil:
		r, err = parent.sys.root.OpenRoot(name)
	case rel == "":
		r, err = s.top.OpenRoot(".")
	default:
		r, err = s.top.OpenRoot(rel)
	}
	if err != nil {
		return nil, err
	}
	return &dirHandle{rel: rel, sys: dirSys{root: r}}, nil
}

func (s *diskSource) readDir(d *dirHandle) ([]dirEntry, error) {
	f, err := d.sys.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []dirEntry
	for {
		if s.stopped != nil && s.stopped() {
			return entries, errStop
		}
		des, err := f.ReadDir(4096)
		for _, de := range des {
			k := kindOther
			switch t := de.Type(); {
			case t.IsRegular():
				k = kindFile
			case t.IsDir():
				k = kindDir
			}
			entries = append(entries, dirEntry{name: de.Name(), kind: k})
		}
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			if len(entries) == 0 {
				return nil, err
			}
			return entries, nil
		}
	}
}

func (*diskSource) hasGit(_ *dirHandle, entries []dirEntry) bool {
	for _, e := range entries {
		if e.name == ".git" {
			return true
		}
	}
	return false
}

func (s *diskSource) readGitignore(d *dirHandle) []byte {
	f, err := d.sys.root.Open(".gitignore")
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := readAll(f)
	if err != nil {
		return nil
	}
	return data
}

// openFile opens the file name in d for reading.
func (d *dirHandle) openFile(name string) (searchFile, error) {
	return d.sys.root.Open(name)
}

// outputPipe returns a pipe for rg's output.
func outputPipe() (io.ReadCloser, *os.File, error) {
	return os.Pipe()
}
