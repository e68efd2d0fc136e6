// Package search defines how agentsh's grep and glob tools search a tree,
// and holds three backends that return identical results: native Go
// (NewNative, the default), ripgrep (NewRipgrep) and fd (NewFd). Backends
// are chosen by name from a registry (RegisterGrep, RegisterGlob,
// OpenGrep, OpenGlob) that holds these three and any a program adds.
//
// # Determinism
//
// Every backend emits results in byte-wise order of the slash-separated
// path relative to the search root, and grep lines in line order within a
// file. Callers apply limits after that order, so a backend that stops
// early must have emitted exactly the first results of the full sorted
// list. The conformance suite in searchtest checks all of this; a custom
// backend should pass it too.
//
// # What is searched
//
// The rules are the same on every backend:
//   - .gitignore files at any depth below the root apply, whether or not
//     the tree is a git repository, with git's semantics (gitignore(5) and
//     git's own matcher: blank lines and # comments, unescaped trailing
//     spaces dropped, \ escapes, ! negation, a / at the start or in the
//     middle anchors a pattern to its file's directory, a trailing / makes
//     it match directories only, *, ?, [...], **/, /**, /**/). The last
//     matching pattern wins and a deeper file overrides a shallower one;
//     an ignored directory is not entered, so nothing inside it can be
//     re-included. A directory holding a .git entry starts a repository of
//     its own: .gitignore files above it do not apply inside it (as in git
//     and ripgrep). NoIgnore turns all of this off.
//   - .ignore, .rgignore, .fdignore, .git/info/exclude, global git
//     excludes and .gitignore files above the root never apply.
//   - Any file or directory named .git is skipped, even with Hidden and
//     NoIgnore.
//   - Hidden files and directories (names starting with ".") are skipped
//     unless Hidden is set.
//   - Only regular files are reported. Symbolic links are neither followed
//     nor reported; a Path that goes through one is an error. Files and
//     directories that cannot be read are skipped.
//   - A request's Path is searched even if it is hidden or ignored itself
//     (the caller named it); the rules, including those of the
//     .gitignore files of its parent directories, apply below it.
//   - Grep skips binary files: a file is binary if its first 8 KiB hold a
//     NUL byte. A NUL byte later does not make a file binary. Glob lists
//     binary files like any other.
//
// # Lines
//
// A line ends at "\n", which Line.Text leaves out; a "\r" before it stays
// (as in rg without --crlf), so "foo$" does not match "foo\r\n". The
// last line of a file need not end with "\n"; there is no empty line
// after a final "\n".
//
// Files are read in pieces, never whole, so the memory a search takes
// grows with what it reports, not with the size of the files or of
// their lines. Matching is never cut short: a pattern is matched against
// the whole of every line (with Multiline, the whole file), however
// long; a line or file too long for the buffers is matched as a stream,
// by Go's regexp, in constant memory. What is cut is the text reported:
// a line longer than MaxLineBytes bytes is reported as its first
// MaxLineBytes bytes, or fewer if the cut would split a UTF-8 character
// (the text then ends before that character). Count and Number are
// unaffected, and the rule is the same on every backend.
//
// # Patterns
//
// Patterns are RE2, Go's regexp syntax, on every backend: a pattern
// regexp.Compile rejects is an error (before anything is emitted), and the
// ripgrep backend translates what Go accepts into an equivalent Rust regex
// instead of handing rg the user's text. So, unlike rg used directly:
// \w, \d, \s and \b are ASCII; (?i) and IgnoreCase use Go's Unicode
// simple case folding (k also matches U+212A KELVIN SIGN); "." and
// negated classes match a single byte that is not valid UTF-8;
// look-around, backreferences, possessive quantifiers and \p classes Go
// does not know are errors; and what reads differently elsewhere means
// what it means in Go: [a-z&&[^x]] is a class followed by "]", not a set
// operation. rg's smart case, --crlf and -P never apply.
//
// Without Multiline a pattern is matched against each line on its own: ^
// and $ (and \A and \z) are the line's edges, and nothing matches "\n".
// With Multiline it runs over the whole file with (?m) set: ^ and $ match
// at line boundaries, \A and \z at the file's edges, and "." matches "\n"
// only under (?s). Every line a match touches is a matching line. As in
// rg -U, the search resumes where the previous match ended (one byte on
// after an empty match), and that position counts as the start of the
// text for ^, \A and \b.
//
// # Filters
//
// Type selects a file type from a fixed table (see Types). Glob has rg -g
// semantics and doublestar syntax: a pattern without "/" matches the base
// name of a file at any depth, one with "/" (a leading "/" is dropped)
// the path relative to the root; a trailing "/" matches directories only;
// a leading "!" keeps the files the rest does not match, and drops every
// file below a directory it matches. GlobRequest.Pattern is a doublestar
// pattern matched against the path relative to GlobRequest.Path.
//
// # Errors and cancellation
//
// A bad pattern, glob, type or path is an error returned before anything
// is emitted. When ctx is done a search stops emitting and returns
// ctx.Err(). A backend calls emit from the goroutine that called Grep or
// Glob, never concurrently; when emit returns false the search returns nil
// and emit is not called again.
package search

import "context"

// GrepRequest is one search. Paths are slash-separated and relative to the
// root the backend was created for. The zero value of each field is its
// default.
type GrepRequest struct {
	Pattern string
	// Path limits the search to a file or directory below the root; ""
	// means the root.
	Path string
	// Glob keeps only files whose path (relative to the root) or base name
	// matches this doublestar pattern, like rg -g (see the package doc).
	Glob string
	// Exclude drops the files whose path (relative to the root) or base
	// name matches one of these patterns, and every file below a
	// directory one matches, like rg -g '!PATTERN' (see the package doc).
	Exclude []string
	// Type keeps only files of a type, such as "go" or "py" (see Types).
	Type       string
	IgnoreCase bool
	// Multiline lets a match span lines ("." does not match newlines
	// unless the pattern says (?s)); see the package doc.
	Multiline bool
	// Before and After are the numbers of context lines.
	Before, After int
	Hidden        bool
	NoIgnore      bool
	// Mode is what the caller reads of each file's result, so that a
	// backend does only the work that needs (see Mode).
	Mode Mode
	// Limit, when above 0, is the most files the caller will take: it
	// stops the search (emit returns false) by then. A backend may pick a
	// strategy that is cheap for few results; the results emitted are the
	// same either way.
	Limit int
}

// Mode is what a grep caller reads of each FileResult.
type Mode int

const (
	// ModeContent reads Lines and Count (the default).
	ModeContent Mode = iota
	// ModeFiles reads only that a file matches: a backend may stop
	// reading a file at its first match, and emits it with Count 1 and
	// no Lines.
	ModeFiles
	// ModeCount reads Count: a backend counts the matching lines without
	// keeping them, and emits no Lines.
	ModeCount
)

// MaxLineBytes is the most a Line.Text holds of a longer line (see the
// package doc).
const MaxLineBytes = 64 << 10

// Line is one output line of a file.
type Line struct {
	Number int    // 1-based
	Text   string // without the "\n" (a "\r" before it stays)
	Match  bool   // false for a context line
}

// FileResult is everything a search found in one file.
type FileResult struct {
	Path string // slash-separated, relative to the root
	// Lines holds the matching lines and, when context was asked for, the
	// context lines, in line order, each line once: overlapping context
	// is merged, and a context line that matches is a matching line.
	Lines []Line
	// Count is the number of matching lines.
	Count int
}

// Grepper searches file contents. Grep calls emit for every file with at
// least one match, in byte-wise path order; when emit returns false, Grep
// stops and returns nil. Implementations must be safe for concurrent use.
type Grepper interface {
	Grep(ctx context.Context, req GrepRequest, emit func(FileResult) bool) error
}

// GlobRequest is one file-name search.
type GlobRequest struct {
	// Pattern is a doublestar pattern matched against the path relative to
	// Path, such as "**/*.go" or "*.md" (which matches only directly in
	// Path). If Path names a file, the pattern is matched against its base
	// name. A leading "./" is dropped; an empty or absolute pattern is an
	// error.
	Pattern  string
	Path     string // "" means the root
	Hidden   bool
	NoIgnore bool
}

// Globber finds files by name. Glob calls emit for every matching regular
// file, with its path relative to the root (not to req.Path), in byte-wise
// order; when emit returns false, Glob stops and returns nil.
// Implementations must be safe for concurrent use.
type Globber interface {
	Glob(ctx context.Context, req GlobRequest, emit func(path string) bool) error
}
