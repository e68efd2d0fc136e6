package search

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"strings"
)

// Fd is the backend that lists files with fd (fdfind on Debian) for Glob.
//
// fd 8.6 cannot apply .gitignore files outside a git repository, and
// cannot turn off .ignore and .fdignore files without turning off
// .gitignore too. So fd lists every regular file below the search path
// (--type f --hidden --no-ignore --exclude .git), and the walker shared
// with the native backend applies the rules to that listing: the results
// are the native backend's, but fd also lists what the rules leave out
// (node_modules and the like), and the whole listing is collected before
// the first path is emitted. The pattern never reaches fd; it is matched
// in Go with doublestar, like everywhere else.
//
// fd prints what it found by path, and a directory swapped for a symbolic
// link while it runs makes it list what the link points to, even outside
// the root. So a name is emitted only if it names a regular file below
// the root, reached through directories only (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS; see beneath and nameCheck), which
// costs an fstatat per name emitted and an openat2 per directory. The listing is NUL-separated (--print0),
// so names holding a newline are read right.
//
// fd killed by a signal, or ending with a status other than 0, is an
// error, never a partial listing. fd names with --show-errors what it
// could not read: files denied by permissions are skipped, as on every
// backend; if it missed anything else (a path longer than PATH_MAX, which
// fd cannot open but the native walk can), the native walk answers
// instead; any other message is an error (see external.go).
//
// A Fd is safe for concurrent use.
type Fd struct {
	root string
	fd   string
}

var _ Globber = (*Fd)(nil)

// NewFd returns the fd backend for the tree at root, or an error if
// neither fd nor fdfind is installed.
func NewFd(root string) (*Fd, error) {
	for _, name := range []string{"fd", "fdfind"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		// Debian's fd is another program (fdclone): check the version.
		out, err := exec.Command(p, "--version").Output()
		if err != nil || !(bytes.HasPrefix(out, []byte("fd ")) || bytes.HasPrefix(out, []byte("fdfind "))) {
			continue
		}
		return &Fd{root: root, fd: p}, nil
	}
	return nil, errors.New("search: fd not found (looked for fd and fdfind); install it (Debian: apt-get install fd-find) or use the native backend, which needs nothing")
}

// Glob implements Globber.
func (f *Fd) Glob(ctx context.Context, req GlobRequest, emit func(string) bool) error {
	top, start, pat, err := openGlob(ctx, f.root, req)
	if err != nil {
		return err
	}
	defer top.Close()
	isFile, err := startKind(top, start)
	if err != nil {
		return err
	}
	files := newBeneath(top, f.root)
	defer files.close()
	names := newDirChecks(files)
	defer names.close()
	list := &listSource{files: files, names: names, pat: pat, dirs: map[string][]dirEntry{}, git: map[string]bool{}}
	if isFile {
		return globWalk(ctx, list, top, req, start, pat, func(rel string) bool {
			return !names.isFile(rel) || emit(rel)
		})
	}
	missed, err := f.list(ctx, start, list)
	if err != nil {
		return err
	}
	var src walkSource = list
	if missed {
		src = newDiskSource(top, f.root)
	}
	return globWalk(ctx, src, top, req, start, pat, emit)
}

// list runs fd over start and reads its listing into src. missed reports
// that fd could not read part of the tree that the native walk can.
func (f *Fd) list(ctx context.Context, start string, src *listSource) (missed bool, err error) {
	scope := start
	if scope == "" {
		scope = "."
	}
	cmd := exec.CommandContext(ctx, f.fd, "--type", "f", "--hidden", "--no-ignore", "--show-errors",
		"--exclude", ".git", "--color", "never", "--print0", "--search-path="+scope)
	cmd.Dir = f.root
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, fmt.Errorf("search: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("search: running fd: %w", err)
	}
	src.read(stdout, start)
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := checkExit("fd", cmd.ProcessState, werr, &stderr, 0); err != nil {
		return false, err
	}
	switch v, msg := judgeStderr(&stderr); v {
	case stderrOther:
		return false, fmt.Errorf("search: fd failed: %s", msg)
	case stderrMissed:
		return true, nil
	}
	return false, nil
}

// listSource is a walk source over a listing of file paths. It keeps of
// the listing only what the walk can use: the files the pattern matches
// that are regular files below the root, and .gitignore files. Both
// checks are made as fd prints, while it runs, so that little is left to
// do once it has ended: measured over GOROOT/src, checking the names
// after fd had ended made the backend take 1.7 to 2.1 times as long as
// fdfind -t f -e go | LC_ALL=C sort.
type listSource struct {
	files *beneath
	names *dirChecks
	pat   *namePattern
	dirs  map[string][]dirEntry // directory → entries
	git   map[string]bool       // directory → it holds a .git entry
}

// read reads fd's NUL-separated paths of regular files below start.
func (s *listSource) read(r io.Reader, start string) {
	s.git[start] = s.names.exists(start, ".git")
	prefix := ""
	if start != "" {
		prefix = start + "/"
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		p, err := br.ReadString(0)
		p = strings.TrimPrefix(strings.TrimSuffix(p, "\x00"), "./")
		if sub, ok := strings.CutPrefix(p, prefix); ok && sub != "" {
			s.add(p, sub, start)
		}
		if err != nil {
			return
		}
	}
}

// add adds the file rel, at sub below start, if the walk may want it. A
// name fd printed may have been reached through a directory swapped for
// a symbolic link while it ran: one the pattern matches is kept only if
// it names a regular file below the root now. A .gitignore is kept for
// its rules, which are read below the root when they are needed.
func (s *listSource) add(rel, sub, start string) {
	if !cleanBelow(rel) {
		return
	}
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	want := s.pat.match(sub)
	if !want && name != ".gitignore" || want && !s.names.isFile(rel) {
		return
	}
	entries, seen := s.dirs[dir]
	s.dirs[dir] = append(entries, dirEntry{name: name, kind: kindFile})
	for !seen && dir != start {
		s.git[dir] = s.names.exists(dir, ".git")
		parent, dname := path.Split(dir)
		parent = strings.TrimSuffix(parent, "/")
		entries, seen = s.dirs[parent]
		s.dirs[parent] = append(entries, dirEntry{name: dname, kind: kindDir})
		dir = parent
	}
}

func (s *listSource) openDir(_ *dirHandle, _, rel string) (*dirHandle, error) {
	return &dirHandle{rel: rel}, nil
}

// readDir returns a directory's entries in walk order, each once, even if
// fd printed a name twice.
func (s *listSource) readDir(d *dirHandle) ([]dirEntry, error) {
	entries := s.dirs[d.rel]
	slices.SortFunc(entries, compareEntries)
	return slices.Compact(entries), nil
}

func (s *listSource) hasGit(d *dirHandle, _ []dirEntry) bool {
	return s.git[d.rel]
}

func (s *listSource) readGitignore(d *dirHandle) []byte {
	rd, err := s.files.open(joinRel(d.rel, ".gitignore"))
	if err != nil {
		return nil
	}
	defer rd.Close()
	data, err := readAll(rd)
	if err != nil {
		return nil
	}
	return data
}

// dirChecks are nameChecks for the few directories fd prints names of at
// a time: its threads print each its own directory's, interleaved, and a
// nameCheck keeps one directory open. Measured over GOROOT/src (1,324
// directories) with strace: one nameCheck made 1,557 openat2 calls, these
// 1,265.
type dirChecks struct {
	checks [4]*nameCheck
	dirs   [4]string
	next   int // the slot to reuse next
}

func newDirChecks(b *beneath) *dirChecks {
	d := &dirChecks{}
	for i := range d.checks {
		d.checks[i] = b.newNameCheck()
	}
	return d
}

// forDir returns the nameCheck that has dir open, or the one that
// opened its directory longest ago.
func (d *dirChecks) forDir(dir string) *nameCheck {
	for i, c := range d.checks {
		if d.dirs[i] == dir {
			return c
		}
	}
	i := d.next
	d.next = (d.next + 1) % len(d.checks)
	d.dirs[i] = dir
	return d.checks[i]
}

func (d *dirChecks) isFile(rel string) bool {
	dir := ""
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir = rel[:i]
	}
	return d.forDir(dir).isFile(rel)
}

func (d *dirChecks) exists(dir, name string) bool { return d.forDir(dir).exists(dir, name) }

func (d *dirChecks) close() {
	for _, c := range d.checks {
		c.close()
	}
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
