package bashcmd

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"mvdan.cc/sh/v3/syntax"
)

// The bounds of what Parse reads. The parser and the walks over its tree
// recurse, so a command line nested deeply enough would exhaust the stack
// (a fatal error no recover catches) or cost seconds and hundreds of
// megabytes: every text Parse reads — the command line, and the command
// lines, arithmetic and strings nested in it — passes the checks below
// before anything walks it, and one that fails them gives a reason
// instead. The bounds are far beyond any real command line, and keep the
// worst one inside them to a few milliseconds and megabytes (see
// BenchmarkParseHostile).

// limitError is a text Parse does not read because it is too large or
// too deeply nested. Its message completes "cannot read ...".
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

func overLimit(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...)}
}

// parseBash parses src as bash, within the bounds: MaxLength bytes,
// brackets nested at most MaxBrackets deep, the parser's recursion
// bounded, and a tree at most MaxSyntaxDepth deep. An error that is a
// *limitError says which bound src passed.
func parseBash(src string) (*syntax.File, error) {
	if len(src) > MaxLength {
		return nil, overLimit("it is %d bytes long, over the limit of %d", len(src), MaxLength)
	}
	if depth, at := bracketDepth(src); depth > MaxBrackets {
		return nil, overLimit("its brackets nest %d levels deep (at byte %d), over the limit of %d", depth, at, MaxBrackets)
	}
	r := &guardedReader{src: src}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(r, "")
	if r.stopped {
		return nil, overLimit("it nests too deeply to parse at byte %d (keywords such as if, while and time, the operators of arithmetic and [[ ]], and brackets all nest)", r.off)
	}
	if err != nil {
		return nil, err
	}
	if syntaxDeeper(f, MaxSyntaxDepth) {
		return nil, overLimit("it nests more than %d levels deep once parsed (each command of a pipeline or of an && or || list, and each operand of an arithmetic or [[ ]] expression, is a level deeper than the one before it)", MaxSyntaxDepth)
	}
	return f, nil
}

// bracketDepth returns how deeply the brackets ( { [ nest in src, and
// the offset of the first bracket at that depth. It reads the text as
// it is, quotes and all: a closing bracket ends the innermost open one
// if it is of its kind and is ignored otherwise, so no quoted bracket can
// hide the nesting of the ones around it.
func bracketDepth(src string) (depth, at int) {
	var open []byte // the closing bracket each open one wants
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '(', '{', '[':
			open = append(open, closing(c))
			if len(open) > depth {
				depth, at = len(open), i
			}
		case ')', '}', ']':
			if n := len(open); n > 0 && open[n-1] == c {
				open = open[:n-1]
			}
		}
	}
	return depth, at
}

func closing(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '{':
		return '}'
	}
	return ']'
}

// maxParserFrames bounds the stack the parser may use, in frames: the
// deepest construct costs it about 33 frames a level (brackets in
// arithmetic), so MaxBrackets levels of any bracket fit, with room for
// the caller's own stack.
const maxParserFrames = 40*MaxBrackets + 2000

// readChunk is how much text the parser gets at a time: the most it can
// nest between two checks of its stack.
const readChunk = 1 << 10

// errTooDeep stops the parser.
var errTooDeep = errors.New("shell: nested too deeply to parse")

// guardedReader hands the parser its text readChunk bytes at a time and
// stops it, before it reads more, once its stack is deeper than
// maxParserFrames. Each byte nests the parser a few frames at most, so
// its recursion stays within maxParserFrames plus one chunk's worth,
// whatever the keywords, operators or quoting: the bound holds for the
// parser itself, not a model of it. Text that fits in one chunk is never
// checked.
type guardedReader struct {
	src     string
	off     int
	stopped bool
}

func (r *guardedReader) Read(p []byte) (int, error) {
	if r.off >= len(r.src) {
		return 0, io.EOF
	}
	if r.off > 0 && stackDeeper(maxParserFrames) {
		r.stopped = true
		return 0, errTooDeep
	}
	n := copy(p[:min(len(p), readChunk)], r.src[r.off:])
	r.off += n
	return n, nil
}

// stackDeeper reports whether the calling goroutine's stack has more
// than frames frames; it unwinds at most that many.
func stackDeeper(frames int) bool {
	var pc [1]uintptr
	return runtime.Callers(frames, pc[:]) > 0
}

// syntaxDeeper reports whether the tree of n nests more than limit nodes
// deep. It walks no deeper than limit, so the check itself is bounded;
// every other walk of a tree that passed it is bounded too.
func syntaxDeeper(n syntax.Node, limit int) bool {
	depth, deeper := 0, false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch {
		case n == nil:
			depth--
		case deeper:
			return false
		case depth >= limit:
			deeper = true
			return false
		default:
			depth++
		}
		return true
	})
	return deeper
}

// cannotRead is the reason for a text Parse did not read: what the text
// is ("the command line", "the command line run by bash -c", ...), then
// why.
func cannotRead(what string, err *limitError) string {
	return "cannot read " + what + ": " + err.msg
}

// isLimit returns err as a *limitError, if it is one.
func isLimit(err error) (*limitError, bool) {
	var le *limitError
	ok := errors.As(err, &le)
	return le, ok
}

// counts are the simple commands and redirections of a parsed text.
type counts struct{ commands, redirects int }

// room returns an error when the analysis would list more than
// MaxCommands commands or redirections with n more.
func (a *analyser) room(n counts) *limitError {
	if c := len(a.out.Commands) + n.commands; c > MaxCommands {
		return &limitError{fmt.Sprintf("it has %d simple commands, over the limit of %d", c, MaxCommands)}
	}
	if r := len(a.out.Redirects) + n.redirects; r > MaxCommands {
		return &limitError{fmt.Sprintf("it has %d redirections, over the limit of %d", r, MaxCommands)}
	}
	return nil
}

// tooMany gives the reason for commands past MaxCommands, which wrappers
// add to the simple commands of the text (sudo nice rm is three), once.
func (a *analyser) tooMany() {
	if !a.full {
		a.full = true
		a.reason(nil, false, "cannot read the command line: it runs more than %d commands, counting those wrappers run, over the limit", MaxCommands)
	}
}
