//go:build !linux

package search

import (
	"errors"
	"io"
	"os"
	"strings"
)

// beneath opens what an external program (rg, fd) reported, by the path
// it printed, through os.Root, which never leaves the search root: the
// program may have read something else (a directory swapped for a
// symbolic link while it ran reads as the link's target); whatever it
// printed is checked against what is opened here. Symbolic links that
// stay inside the root are refused by a check before the open, which a
// concurrent writer can race, but os.Root still keeps the open inside.
//
// A beneath is safe for concurrent use.
type beneath struct {
	top *os.Root
}

func newBeneath(top *os.Root, _ string) *beneath { return &beneath{top: top} }

func (b *beneath) close() {}

// errNotRegular is the error of opening something that is not a regular
// file: a FIFO or a device put where rg saw a file is never read.
var errNotRegular = errors.New("not a regular file")

// open opens the regular file rel (slash-separated, relative to the root)
// for reading.
func (b *beneath) open(rel string) (io.ReadCloser, error) {
	if !b.isFile(rel) {
		return nil, errNotRegular
	}
	f, err := b.top.Open(rel)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// isFile reports whether rel names a regular file below the root, reached
// through directories only.
func (b *beneath) isFile(rel string) bool {
	if !cleanBelow(rel) {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		fi, err := b.top.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			return false
		}
		if i < len(parts)-1 && !fi.IsDir() || i == len(parts)-1 && !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// nameCheck tells which names are regular files below the root. A
// nameCheck is used by one goroutine.
type nameCheck struct{ b *beneath }

func (b *beneath) newNameCheck() *nameCheck { return &nameCheck{b: b} }

// isFile reports whether rel names a regular file.
func (n *nameCheck) isFile(rel string) bool { return n.b.isFile(rel) }

// exists reports whether the directory dir ("" for the root) has an
// entry name, of any kind.
func (n *nameCheck) exists(dir, name string) bool {
	_, err := n.b.top.Lstat(joinRel(dir, name))
	return err == nil
}

func (n *nameCheck) close() {}
