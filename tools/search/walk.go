package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
)

// This file holds the one directory walk that decides which files a
// search sees (ignore rules, hidden files, .git, symbolic links) and in
// which order. The native backend walks the disk with it; the fd backend
// walks the listing fd printed.

type entryKind uint8

const (
	kindFile  entryKind = iota // a regular file
	kindDir                    // a directory (not a symbolic link to one)
	kindOther                  // symbolic links, devices, sockets, ...: never visited
)

type dirEntry struct {
	name string
	kind entryKind
}

// compareEntries orders the entries of one directory so that a walk
// yields full paths in byte-wise order: a directory "x" sorts as "x/".
func compareEntries(a, b dirEntry) int {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	// One name is a prefix of the other (names in a directory differ).
	next := func(e dirEntry, name string) int {
		if n < len(name) {
			return int(name[n])
		}
		if e.kind == kindDir {
			return '/'
		}
		return -1
	}
	return next(a, an) - next(b, bn)
}

// dirHandle is an open directory. Native files are opened through it, so
// a walk never resolves a path with more than one component and never
// follows a symbolic link; it is closed when the walk and every file job
// that holds it are done.
type dirHandle struct {
	rel  string // relative to the search root, "" for the root
	sys  dirSys // the open directory; zero in a listing
	refs atomic.Int32
}

func (d *dirHandle) acquire() { d.refs.Add(1) }

func (d *dirHandle) release() {
	if d.refs.Add(-1) == 0 {
		d.sys.close()
	}
}

// walkSource is what a walk reads directories from.
type walkSource interface {
	// openDir opens the directory rel, named name inside parent.
	openDir(parent *dirHandle, name, rel string) (*dirHandle, error)
	// readDir lists a directory, in any order.
	readDir(d *dirHandle) ([]dirEntry, error)
	// hasGit reports whether a directory holds a ".git" entry.
	hasGit(d *dirHandle, entries []dirEntry) bool
	// readGitignore returns the content of the directory's .gitignore,
	// which its listing shows as a regular file.
	readGitignore(d *dirHandle) []byte
}

// walker walks the tree below one search root.
type walker struct {
	src      walkSource
	top      *os.Root // the search root, for the start path and its parents
	hidden   bool
	noIgnore bool
	// skipDir, if set, prunes directories no result can come from.
	skipDir func(rel string) bool
	// file is called for every file the search sees, in byte-wise path
	// order; returning false stops the walk. d stays valid during the
	// call; a callback that keeps it must acquire it.
	file func(d *dirHandle, name, rel string) bool
	// stopped, if set, is polled for every entry and while a large
	// directory is sorted; once it returns true the walk ends.
	stopped func() bool
	// unordered skips sorting entries, for a walk that only looks.
	unordered bool
}

// errStop ends a walk early without an error.
var errStop = errors.New("search: stop")

// cleanPath checks a request's Path and returns it slash-separated and
// clean, "" for the root.
func cleanPath(p string) (string, error) {
	if p == "" || p == "." {
		return "", nil
	}
	if strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("search: path %q is absolute; want a path relative to the search root", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("search: path %q is outside the search root", p)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

// walk visits the files below start (a clean path relative to the root,
// "" for the root). A start that names a file visits just that file. The
// start path itself is searched even if it is hidden or ignored; the
// .gitignore files of its parent directories apply below it.
func (w *walker) walk(start string) error {
	var stack ignoreStack
	if start != "" {
		isFile, err := startKind(w.top, start)
		if err != nil {
			return err
		}
		parts := strings.Split(start, "/")
		if isFile {
			return w.walkFile(parts[:len(parts)-1], parts[len(parts)-1], start)
		}
		parent := ""
		for i := range parts {
			stack = w.parentRules(stack, parent)
			parent = strings.Join(parts[:i+1], "/")
		}
	}
	d, err := w.src.openDir(nil, path.Base("/"+start), start)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	d.acquire()
	err = w.walkDir(d, stack)
	d.release()
	if err == errStop {
		err = nil
	}
	return err
}

// startKind checks a request's start path (clean, relative to the root):
// every component must exist and none may be a symbolic link. It reports
// whether the path names a regular file.
func startKind(top *os.Root, start string) (isFile bool, err error) {
	if start == "" {
		return false, nil
	}
	parts := strings.Split(start, "/")
	for i := range parts {
		rel := strings.Join(parts[:i+1], "/")
		fi, err := top.Lstat(rel)
		if err != nil {
			return false, fmt.Errorf("search: path %q: %w", start, notExistErr(err))
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return false, fmt.Errorf("search: path %q: %q is a symbolic link, which a search does not follow", start, rel)
		case i == len(parts)-1 && fi.Mode().IsRegular():
			return true, nil
		case !fi.IsDir():
			return false, fmt.Errorf("search: path %q is not a regular file or directory", start)
		}
	}
	return false, nil
}

// walkFile visits a start path that names a file.
func (w *walker) walkFile(dirParts []string, name, rel string) error {
	dir := strings.Join(dirParts, "/")
	dname := "."
	if len(dirParts) > 0 {
		dname = dirParts[len(dirParts)-1]
	}
	d, err := w.src.openDir(nil, dname, dir)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	d.acquire()
	w.file(d, name, rel)
	d.release()
	return nil
}

// parentRules adds the rules of a parent directory of the start path.
func (w *walker) parentRules(stack ignoreStack, rel string) ignoreStack {
	join := func(name string) string {
		if rel == "" {
			return name
		}
		return rel + "/" + name
	}
	if _, err := w.top.Lstat(join(".git")); err == nil {
		stack = nil // a repository: rules from above it do not apply
	}
	if w.noIgnore {
		return stack
	}
	if fi, err := w.top.Lstat(join(".gitignore")); err == nil && fi.Mode().IsRegular() {
		if f, err := w.top.Open(join(".gitignore")); err == nil {
			data, err := readAll(f)
			f.Close()
			if err == nil {
				stack = stack.push(&ignoreFrame{dir: rel, patterns: parseGitignore(data)})
			}
		}
	}
	return stack
}

func notExistErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (w *walker) isStopped() bool { return w.stopped != nil && w.stopped() }

func (w *walker) walkDir(d *dirHandle, stack ignoreStack) error {
	if w.isStopped() {
		return errStop
	}
	entries, err := w.src.readDir(d)
	if err != nil {
		// An unreadable directory below the start is skipped, as an
		// unreadable file is.
		return nil
	}
	if w.src.hasGit(d, entries) {
		stack = nil
	}
	if !w.noIgnore {
		for _, e := range entries {
			if e.name == ".gitignore" && e.kind == kindFile {
				if data := w.src.readGitignore(d); data != nil {
					stack = stack.push(&ignoreFrame{dir: d.rel, patterns: parseGitignore(data)})
				}
				break
			}
		}
	}
	if !w.unordered && !sortEntries(entries, w.isStopped) {
		return errStop
	}
	for _, e := range entries {
		if w.isStopped() {
			return errStop
		}
		if e.kind == kindOther || e.name == ".git" || (!w.hidden && e.name[0] == '.') {
			continue
		}
		rel := e.name
		if d.rel != "" {
			rel = d.rel + "/" + e.name
		}
		if !w.noIgnore && stack.ignored(rel, e.name, e.kind == kindDir) {
			continue
		}
		if e.kind == kindFile {
			if !w.file(d, e.name, rel) {
				return errStop
			}
			continue
		}
		if w.skipDir != nil && w.skipDir(rel) {
			continue
		}
		sub, err := w.src.openDir(d, e.name, rel)
		if err != nil {
			continue
		}
		sub.acquire()
		err = w.walkDir(sub, stack)
		sub.release()
		if err != nil {
			return err
		}
	}
	return nil
}

// sortRun is the most entries sorted without a check of stopped.
const sortRun = 4096

// sortEntries sorts a directory's entries with compareEntries. A large
// directory is sorted in runs, which are then merged, with a check of
// stopped between runs and every sortRun entries of a merge; it returns
// false, leaving entries in any order, once stopped returns true.
func sortEntries(entries []dirEntry, stopped func() bool) bool {
	n := len(entries)
	for i := 0; i < n; i += sortRun {
		if i > 0 && stopped() {
			return false
		}
		slices.SortFunc(entries[i:min(i+sortRun, n)], compareEntries)
	}
	if n <= sortRun {
		return true
	}
	src, dst := entries, make([]dirEntry, n)
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			if !mergeEntries(dst[lo:hi], src[lo:mid], src[mid:hi], stopped) {
				return false
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
	return true
}

// mergeEntries merges the sorted a and b into out, checking stopped
// every sortRun entries.
func mergeEntries(out, a, b []dirEntry, stopped func() bool) bool {
	i, j := 0, 0
	for k := range out {
		if k%sortRun == sortRun-1 && stopped() {
			return false
		}
		if j >= len(b) || (i < len(a) && compareEntries(a[i], b[j]) <= 0) {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
	return true
}
