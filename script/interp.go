package script

import (
	"context"
	"time"
)

// Interp is an interpreter of one script language bound to a Host: what
// the CLI, the test runner and the conformance suite need from a
// language, and all they know of it. Interpreters of different languages
// on one Host share its tools, hooks, middleware and settings.
//
// Code runs against the interpreter's globals: what LoadFile, Run and Eval
// define stays defined for later Eval, Complete, Functions and
// CallGlobal, as in a REPL. Errors of scripts are *Error.
//
// Concurrency: top-level evaluation (LoadFile, Run, Eval, CallGlobal)
// must not run concurrently with itself; functions the scripts registered
// with the host may be called from any goroutine meanwhile. ReadChunk,
// Complete and Functions may be called at any time.
type Interp interface {
	// LoadFile runs the file at path as a program (its name anchors
	// relative loads) and keeps its globals.
	LoadFile(ctx context.Context, path string) error
	// Run runs src, a whole program named filename, and keeps its globals.
	Run(ctx context.Context, filename string, src []byte) error
	// Eval runs src, a snippet or a REPL chunk named filename, and returns
	// how the REPL shows the value of a sole expression: "" for a
	// statement, for none/nil and for an empty src. The value is kept in
	// the global _.
	Eval(ctx context.Context, filename string, src []byte) (string, error)
	// ReadChunk reads one complete REPL input with readline, calling it
	// again while the input is incomplete (an open block, bracket or
	// string), and returns the source for Eval. readline returns io.EOF at
	// the end of input; ReadChunk returns io.EOF when the input ends
	// before a chunk is complete, the reader's own error when it fails,
	// and an *Error for a syntax error.
	ReadChunk(readline func() ([]byte, error)) ([]byte, error)
	// Complete returns the completions of the name that ends at byte pos
	// of line: global names, or, after a dot, the members of the value
	// before it (state. offers state.get, state.set, ...). Each completion
	// replaces line[start:pos]. Names starting with _ are left out unless
	// the name typed so far starts with _.
	Complete(line string, pos int) (start int, completions []string)
	// Functions returns the names of the global functions the loaded code
	// defined (not the predeclared ones), sorted.
	Functions() []string
	// CallGlobal calls the global function name with no arguments.
	CallGlobal(ctx context.Context, name string) error
	// Close releases the interpreter; afterwards nothing runs, and the
	// functions it registered fail when called.
	Close() error
}

// Options configures an interpreter; the zero value is usable. The
// options mean the same in every language.
type Options struct {
	// MaxSteps bounds the steps of each top-level run and of each call
	// into a script function; 0 means the language's default. A language
	// without a step budget ignores it.
	MaxSteps uint64
	// Argv are the script's name and arguments (agentsh run FILE ARGS):
	// Starlark sees them as argv, with argv[0] the script; Lua as arg,
	// with arg[0] the script and arg[1] the first argument (and as argv,
	// from argv[1]).
	Argv []string
	// Now, when set, is the scripts' clock (time.now(), and in Lua
	// os.time() and os.date()); tests fix it.
	Now func() time.Time
	// Globals are more predeclared names, with values of JSON shapes
	// (nil, bool, int64, float64, string, []any, map[string]any): a batch
	// task is the global task.
	Globals map[string]any
	// Testing adds the names of script tests (agentsh test): the assert
	// module, mock_tool and skip.
	Testing bool
}
