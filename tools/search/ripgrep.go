package search

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ripgrep is the backend that runs ripgrep (rg) for Grep. Its results are
// those of the native backend, byte for byte:
//
//   - The pattern is checked with Go's regexp, then rewritten into a Rust
//     regex that means the same (see emit in regex.go) and passed with -e;
//     paths come after "--". Nothing the caller passes becomes a flag.
//     Where Rust's regex would find less than Go's (on bytes that are not
//     UTF-8, or where ripgrep 13's engine drops matches of some runs of
//     zero-width assertions) or more (\B inside a character), rg gets a
//     pattern that matches a superset, and what it finds is checked with
//     Go's regexp: the lines rg printed, or the whole file with Multiline.
//   - rg walks nothing: the walk the native backend uses (walk.go)
//     chooses the files, with this package's ignore rules, hidden files,
//     Type and Glob, and hands them to rg by path, in runs, in byte-wise
//     path order (see rgbatch.go). rg searches exactly those
//     (--no-ignore --hidden --max-depth 0), one after another in the
//     order given (-j1), so its reports come in path order and are
//     emitted a run at a time. rg reads no .gitignore, so its
//     reading of the rules cannot differ from ours.
//   - Confinement: rg opens files by path, so a directory swapped for a
//     symbolic link while it runs makes it read what the link points to,
//     even outside the root. So rg's output is never trusted: every file
//     it reports is opened again below the root, with openat2
//     (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS), and must be a regular file;
//     every line rg printed for it, match or context, must be that
//     file's line of that number, byte for byte, with all the context
//     asked for (see checkReport in verify.go). A file that cannot be
//     opened so is dropped; one that differs is searched again in Go.
//     What is emitted was read below the root. Checking costs reading
//     the files with matches up to their last line printed, a second
//     time, from the page cache.
//   - Modes: for ModeFiles rg prints each file's first matching line
//     (-m 1), which is checked as above and is the evidence of a match;
//     -l would print nothing to check. For ModeCount rg names the files
//     with a match (-l) and each is counted in Go, opened below the
//     root: a count rg printed could not be checked for less.
//   - Binary files: rg searches every file as text (-a), and a file
//     with a NUL byte in its first 8 KiB is dropped when it is checked.
//     So rg reads binary files to their end, which the native backend
//     does not. -E none turns off BOM sniffing and transcoding.
//   - Exit: rg killed by a signal, or ending with a status other than 0
//     (matches), 1 (none) or 2 (an error), is an error, never an empty
//     result. rg names on standard error the files and directories it
//     could not read (see external.go): files denied by permissions are
//     skipped, as on every backend; anything else it missed (a file
//     gone, or a path it could not open) hands the rest of the search to
//     the native backend, and any other message is an error. Paths of
//     PATH_MAX bytes or more, which rg cannot open, are searched in Go.
//     A Path that names a file is searched in Go.
//
// Output is read in rg's standard format with --null ("path\0N:text" for
// a match, "path\0N-text" for context), which carries the exact bytes of
// every line and is 2.7 times smaller than --json, whose decoding would
// cost more than the search (15 MB against 41 MB for "func" over
// GOROOT/src).
//
// Glob uses the shared walker, as the native backend does: rg --files
// would walk the same tree with rules that differ in corner cases.
//
// A Ripgrep is safe for concurrent use.
type Ripgrep struct {
	root   string
	rg     string
	native *Native
	// batchFirst and batchMax size the runs of files given to one rg
	// (see rgbatch.go); tests make them tiny.
	batchFirst, batchMax int
}

var (
	_ Grepper = (*Ripgrep)(nil)
	_ Globber = (*Ripgrep)(nil)
)

// NewRipgrep returns the ripgrep backend for the tree at root, or an error
// if rg is not installed.
func NewRipgrep(root string) (*Ripgrep, error) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		return nil, fmt.Errorf("search: ripgrep (rg) not found; install it (Debian: apt-get install ripgrep) or use the native backend, which needs nothing: %w", err)
	}
	return &Ripgrep{root: root, rg: rg, native: NewNative(root), batchFirst: rgBatchFirst, batchMax: rgBatchMax}, nil
}

// Glob implements Globber with the native walker.
func (r *Ripgrep) Glob(ctx context.Context, req GlobRequest, emit func(string) bool) error {
	return r.native.Glob(ctx, req, emit)
}

// rustPattern returns the request's pattern for rg, and whether it may
// match more than Go's regexp does.
func rustPattern(req GrepRequest) (string, bool, error) {
	tree, err := syntax.Parse(req.Pattern, parseFlags(req))
	if err != nil {
		return "", false, fmt.Errorf("search: invalid pattern: %w", err)
	}
	if !req.Multiline {
		tree = lineSafe(tree)
	}
	tree = sortAssertions(tree)
	var st emitState
	if analyzeAssertions(tree).bad {
		tree = dropAssertions(tree)
		st.superset = true
	}
	return emit(tree, targetRust, &st), st.superset, nil
}

// tempFile writes data to a new temporary file and returns its name.
func tempFile(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("search: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("search: %w", werr)
	}
	return f.Name(), nil
}

// errRgOutput marks output the parser does not understand: the search is
// handed to the native backend.
var errRgOutput = errors.New("search: unexpected rg output")

// Grep implements Grepper.
func (r *Ripgrep) Grep(ctx context.Context, req GrepRequest, emit func(FileResult) bool) error {
	plan, err := newGrepPlan(req)
	if err != nil {
		return err
	}
	pattern, superset, err := rustPattern(req)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	top, err := openRoot(r.root)
	if err != nil {
		return err
	}
	defer top.Close()
	isFile, err := startKind(top, plan.start)
	if err != nil {
		return err
	}
	if isFile {
		// One file: not worth a process.
		return r.native.Grep(ctx, req, reduced(req.Mode, emit))
	}
	args := []string{
		"--no-config", "--color", "never", "--with-filename", "--no-heading", "--null",
		"--no-context-separator", "-a", "-E", "none", "--regex-size-limit", "1G",
		// rg searches the files it is given, and the regular files of
		// the directories it is given, in path order: no rules, no
		// deeper walk, no mmap (a file truncated under it would kill it
		// with SIGBUS).
		"--no-ignore", "--hidden", "--max-depth", "1", "--no-mmap", "--sort", "path",
	}
	switch req.Mode {
	case ModeFiles:
		// The first matching line, as evidence checkReport can check
		// by reading the file only up to it (-l would print none).
		args = append(args, "-n", "-m", "1")
	case ModeCount:
		// Which files match; the count is taken from the file itself
		// (see checker), so rg's would be of no use.
		args = append(args, "-l")
	default:
		args = append(args, "-n")
		if req.Before > 0 {
			args = append(args, "-B", strconv.Itoa(req.Before))
		}
		if req.After > 0 {
			args = append(args, "-A", strconv.Itoa(req.After))
		}
	}
	if req.Multiline {
		args = append(args, "-U")
	}
	if len(pattern) > 64<<10 {
		// Too long for one argument: give it in a file.
		name, err := tempFile("agentsh-rg-pattern-*", []byte(pattern+"\n"))
		if err != nil {
			return err
		}
		defer os.Remove(name)
		args = append(args, "-f", name)
	} else {
		args = append(args, "-e", pattern)
	}
	s := &rgSearch{r: r, top: top, plan: plan, superset: superset, args: append(args, "--")}
	return s.run(ctx, emit)
}

// reduced returns emit for results of the native backend, reduced to what
// a request's mode reads.
func reduced(mode Mode, emit func(FileResult) bool) func(FileResult) bool {
	if mode == ModeContent {
		return emit
	}
	return func(f FileResult) bool { return emit(reduce(mode, f)) }
}

// reduce drops what a mode does not read of a result.
func reduce(mode Mode, f FileResult) FileResult {
	switch {
	case f.Count == 0 || mode == ModeContent:
		return f
	case mode == ModeFiles:
		return FileResult{Path: f.Path, Count: 1}
	}
	return FileResult{Path: f.Path, Count: f.Count}
}

// searchReader searches one file opened below the root as the native
// backend does.
func (s *nativeSearcher) searchReader(rel string, rd io.Reader) FileResult {
	ra, ok := rd.(io.ReaderAt)
	if !ok {
		return FileResult{Path: rel}
	}
	return s.search(rel, ra)
}

// recheckLines keeps the lines rg reported as matches that Go's regexp
// matches too, and the context lines around those. rg printed every line
// within the context of each of its matches, a superset of Go's, so the
// lines needed are all there.
func recheckLines(plan *grepPlan, fr *FileResult) {
	var matches []int // line numbers
	verified := make([]bool, len(fr.Lines))
	for i, l := range fr.Lines {
		if l.Match && plan.m.re.MatchString(l.Text) {
			matches = append(matches, l.Number)
			verified[i] = true
		}
	}
	fr.Count = len(matches)
	if len(matches) == 0 {
		return
	}
	b, a := plan.req.Before, plan.req.After
	out := fr.Lines[:0]
	k := 0
	for i, l := range fr.Lines {
		for k < len(matches) && matches[k]+a < l.Number {
			k++
		}
		// l is needed if it lies in the context of the first verified
		// match that can still reach it.
		if k < len(matches) && matches[k]-b <= l.Number {
			l.Match = verified[i]
			out = append(out, l)
		}
	}
	fr.Lines = out
}

// errRgMissed marks a search in which rg could not read files or
// directories that the native walk can (see external.go): the search is
// handed to the native backend.
var errRgMissed = errors.New("search: rg missed part of the tree")

// runRg runs rg with args and calls each with every file's result, as it
// is read; countMode says rg was run with -l.
func (r *Ripgrep) runRg(ctx context.Context, args []string, countMode bool, each func(*FileResult)) error {
	cmd := exec.CommandContext(ctx, r.rg, args...)
	cmd.Dir = r.root
	var stderr cappedBuffer
	cmd.Stderr = &stderr
	stdout, pw, err := outputPipe()
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer stdout.Close()
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return fmt.Errorf("search: running rg: %w", err)
	}
	var perr error
	if countMode {
		perr = parseRgPaths(stdout, each)
	} else {
		perr = parseRgOutput(stdout, each)
	}
	if perr != nil {
		io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	// 0: matches, 1: none, 2: an error (which says what it was).
	if err := checkExit("rg", cmd.ProcessState, werr, &stderr, 0, 1, 2); err != nil {
		return err
	}
	switch v, msg := judgeStderr(&stderr); {
	case v == stderrOther:
		return fmt.Errorf("search: rg failed: %s", msg)
	case v == stderrMissed:
		return errRgMissed
	case cmd.ProcessState.ExitCode() == 2 && stderr.Len() == 0:
		return errors.New("search: rg failed (exit status 2) and said nothing about why; use the native backend")
	}
	return perr
}

// parseRgPaths reads what rg -l --null prints, "PATH\0" for each file
// with a match, and calls each with a result of Count 1 for each.
func parseRgPaths(rd io.Reader, each func(*FileResult)) error {
	br := bufio.NewReaderSize(rd, 64<<10)
	for {
		p, err := br.ReadString(0)
		if err == io.EOF && p == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %q (%v)", errRgOutput, p, err)
		}
		each(&FileResult{Path: strings.TrimPrefix(p[:len(p)-1], "./"), Count: 1})
	}
}

// parseRgOutput reads rg's --null standard output and calls each with
// every file's result. Every line rg prints is "PATH\0N:TEXT\n" for a
// match and "PATH\0N-TEXT\n" for context: PATH holds no NUL and TEXT no
// newline, so any name is read right, one holding a newline too. (With
// --binary, rg would also print "PATH: binary file matches ...\n", which
// a name holding a newline could imitate; with -a it never does.) rg
// prints the lines of a file together, so each file's line texts are
// kept in one string.
// rgRestLimit is how much parseRgOutput keeps of what follows a path:
// the line number, its separator and what lineText needs of the text.
const rgRestLimit = 24 + MaxLineBytes + utf8.UTFMax

func parseRgOutput(rd io.Reader, each func(*FileResult)) error {
	br := bufio.NewReaderSize(rd, 256<<10)
	var cur *FileResult
	var curRaw, long, arena []byte
	var ends []int // end of each line's text in arena
	finish := func() {
		if cur == nil {
			return
		}
		texts := string(arena)
		start := 0
		for i, e := range ends {
			cur.Lines[i].Text = texts[start:e]
			start = e
		}
		arena, ends = arena[:0], ends[:0]
		each(cur)
		cur = nil
	}
	// next returns the bytes up to delim, which it drops, valid until
	// the next call; of a longer run it keeps the first limit bytes.
	next := func(delim byte, limit int) ([]byte, error) {
		long = long[:0]
		for {
			b, err := br.ReadSlice(delim)
			full := err == bufio.ErrBufferFull
			if err == nil {
				b = b[:len(b)-1]
			}
			if len(long) == 0 && !full && len(b) <= limit {
				return b, err // the common case: no copy
			}
			long = append(long, b[:min(len(b), max(0, limit-len(long)))]...)
			if !full {
				return long, err
			}
		}
	}
	for {
		p, err := next(0, math.MaxInt)
		if err == io.EOF && len(p) == 0 {
			finish()
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %q (%v)", errRgOutput, p, err)
		}
		if cur == nil || !bytes.Equal(p, curRaw) {
			finish()
			curRaw = append(curRaw[:0], p...)
			cur = &FileResult{Path: string(bytes.TrimPrefix(p, []byte("./")))}
		}
		// "N:text" or "N-text": the number, and what lineText looks at
		// of the text; a line longer than that is reported cut, which
		// the check finds differs from the file, so the file is searched
		// again in Go.
		rest, err := next('\n', rgRestLimit)
		if err != nil {
			return fmt.Errorf("%w: %q (%v)", errRgOutput, rest, err)
		}
		i, num := 0, 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' && num < 1<<40 {
			num = num*10 + int(rest[i]-'0')
			i++
		}
		if i == 0 || i == len(rest) || (rest[i] != ':' && rest[i] != '-') {
			return fmt.Errorf("%w: %q", errRgOutput, rest)
		}
		match := rest[i] == ':'
		arena = append(arena, lineText(rest[i+1:])...)
		ends = append(ends, len(arena))
		cur.Lines = append(cur.Lines, Line{Number: num, Match: match})
		if match {
			cur.Count++
		}
	}
}
