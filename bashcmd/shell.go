// Package bashcmd reads a Bash command line without running it and says
// what it would run: every simple command, with its arguments after the
// expansions that need nothing but the text (quotes removed, literal parts
// joined), the redirections, the functions it declares, and a reason for
// every place where the text alone cannot tell what would run.
//
// IT IS A READING, NOT ISOLATION. Parse cannot see what happens at run
// time: a script file, a program that runs other programs (make, git
// aliases, python -c, awk's system()), a copy or link of a program under
// another name, PATH changes, or code a program loads from a file. Use a
// sandbox to contain a command; use the analysis to steer a model away
// from the commands you do not want.
//
// Parse reads the command line as Bash (mvdan.cc/sh) and finds the simple
// commands in pipelines, lists (; && ||), subshells, { } blocks, $( ) and
// backquotes, process substitutions, if/for/while/case bodies, function
// bodies, here-documents, and the commands run by wrappers: env, command,
// builtin, exec, nice, nohup, time, timeout, xargs, sudo, doas, stdbuf,
// setsid, chroot, ionice, taskset, flock, watch, unbuffer, busybox,
// jobs -x, find -exec/-execdir/-ok/-okdir, and the strings run by
// sh/bash/dash/zsh/ksh/... -c, su -c, script -c, eval, trap, alias,
// mapfile -C, compgen -C and PROMPT_COMMAND, which are parsed and read in
// turn (at most MaxNesting levels deep). A wrapper is listed itself and so
// is the command it runs: `sudo rm -rf /` gives `sudo rm -rf /` and
// `rm -rf /` with Via [sudo]. A shell reading commands from standard
// input, under any spelling of it (/dev/stdin, /proc/self/fd/0, ...; also
// as source's file, --rcfile, --init-file, BASH_ENV or ENV), is read when
// the input is a literal here-document or here-string; otherwise that is
// a reason. Builtins are commands too (declare, local, export, let, read,
// printf, test, ...); the keywords [[ ]], (( )), time, coproc and ! are
// not.
//
// A reason (an Unknown) is given wherever Parse cannot tell from the text
// what would run: a command name that is not a literal word ($CMD,
// "$(echo rm)", globs such as /bin/r?, brace expansions, a leading ~ or
// =), a wrapper whose options it does not know, a string run by sh -c or
// eval that is not literal (eval "$x"), a shell reading standard input
// that is not literal, a script file named so that it may be standard
// input or a device, nesting deeper than MaxNesting, a command line that
// does not parse ("does not parse: ..."), one past the bounds below
// ("cannot read the command line: ..."), and the places where bash
// evaluates text as code that no command names: the value of a variable in
// arithmetic ((( x )), $(( x )), [[ x -eq 1 ]], let, subscripts, ${s:x},
// integer variables) unless every value the command line gives it is a
// number, names given as text to builtins (read, printf -v, unset,
// test -v, declare, wait -p, ${!x}) that are not plain names, prompt
// expansion (${x@P}, PS4 with $ or `), quoted compound assignments
// (declare -a 'x=($(cmd))'), functions and startup files passed in the
// environment (BASH_FUNC_f%%, BASH_ENV), aliases that are more than one
// simple command of literal words, translated strings ($"..."), name
// references (declare -n), fc, bind -x, and interactive shells (sh -i,
// script without -c). Each reason is lowercase and names the construct.
// The words find -exec and xargs fill in ({}, xargs -I R, the words xargs
// appends) are not static.
//
// A word of a command is static when the text alone says what it expands
// to: then Text is its value. Otherwise Text is the word as written:
// $HOME, "$d"/x, $(pwd), ~ and ~/x (a home directory), a=~/x (bash expands
// the ~ after = and :), globs (*, ?, [..]) and brace expansions ({a,b}).
//
// Commands and reasons are listed in the order Parse meets them: in the
// order of the text, except that a command comes before the commands of
// the substitutions in its own words and redirections, a wrapper before
// the command it runs, and the reasons about variables (which need the
// whole command line) after everything else.
//
// # Bounds
//
// Parse reads hostile text: its cost is bounded whatever the command
// line. A text (the command line, or one nested in it) longer than
// MaxLength, with brackets nested deeper than MaxBrackets, that nests the
// parser too deeply (keywords and operators nest it as brackets do), that
// nests deeper than MaxSyntaxDepth once parsed, or with more than
// MaxCommands commands or redirections is not read: it gives a reason
// that names the bound and what it found ("cannot read the command line:
// it is 1048576 bytes long, over the limit of 131072"), and nothing of it
// is listed (of commands that wrappers multiply past MaxCommands, none
// after the first MaxCommands).
// The checks come before anything walks the text, so no walk recurses
// deeper than the bounds allow; no command line near them is real, and the
// worst one within them costs a few hundred milliseconds and a few dozen
// megabytes (BenchmarkParseHostile).
//
// Parse is safe for concurrent use; an Analysis is a plain value that the
// caller owns.
package bashcmd

// MaxNesting bounds command lines nested in strings (bash -c "eval '...'")
// and arithmetic nested in text.
const MaxNesting = 8

// MaxLength is the longest text Parse reads, in bytes: a longer command
// line (or one nested in it) gives only a reason. Linux refuses a single
// argument longer than 128 KiB, so bash -c cannot run a longer line
// anyway.
const MaxLength = 128 << 10

// MaxBrackets bounds how deeply the brackets ( ), { } and [ ] nest in a
// text Parse reads — every kind counts alike: subshells, $( ), <( ),
// (( )), $(( )), ${ }, blocks, arrays, [[ ]], subscripts, globs — counted
// before the text is parsed, quoted or not (a closing bracket closes only
// the innermost open one of its kind). A deeper text gives only a reason.
const MaxBrackets = 256

// MaxSyntaxDepth bounds how deeply a parsed text nests: every construct
// inside another is a level deeper, and so is each command of a pipeline
// or of an && or || list, and each operand of an arithmetic or [[ ]]
// expression, after the one before it (a | b | c nests as (a | b) | c).
// A deeper text gives only a reason: a pipeline of more than about 500
// commands is not read. Keywords (if, while, case, time, !) and operators
// nest the parser as brackets do; it stops, with a reason, before it
// nests deeper than MaxBrackets levels of the costliest bracket.
const MaxSyntaxDepth = 1024

// MaxCommands bounds the simple commands, and apart from them the
// redirections, that Parse lists for a command line, nested command lines
// and the commands wrappers run included: a command line with more gives
// a reason instead (no script that long is typed as one command line; a
// policy that looks at every command stays fast).
const MaxCommands = 2048

// MaxDepth bounds the constructs nested in each other in one command
// line (substitutions, function bodies, wrappers, arithmetic): deeper
// ones give a reason and are not read.
const MaxDepth = 64

// MaxPipeFrom bounds Command.PipeFrom.
const MaxPipeFrom = 64

// Analysis is what Parse found in a command line.
type Analysis struct {
	// Commands are the simple commands that would run.
	Commands []Command
	// Redirects are all the redirections of the command line, nested
	// command lines included, also those of compound commands
	// ({ ...; } > f) and of statements without a command (> f).
	Redirects []Redirect
	// Functions are the functions the command line declares.
	Functions []Function
	// Unknown are the reasons why Parse cannot tell what would run.
	Unknown []Unknown
	// Assigned are the variables the command line gives a value, each
	// once, in the order met: alone or before a command (A=1 cmd), the
	// NAME=VALUE words of env and sudo, declarations (export, declare,
	// local), read, for loops, arithmetic. A program started with a
	// variable set in its environment may do something else (PATH,
	// LD_PRELOAD, GIT_EXTERNAL_DIFF).
	Assigned []string
}

// OK reports whether Parse could tell everything that would run.
func (a *Analysis) OK() bool { return len(a.Unknown) == 0 }

// Word is a word of a command after static expansion.
type Word struct {
	// Text is the value of the word when Static, else the word as written.
	Text string
	// Static reports whether the text alone says what the word expands to.
	Static bool
}

// Command is a simple command that would run.
type Command struct {
	// Name is the base name of the command when the text tells it
	// (/usr/bin/rm, \rm and ~/bin/rm are rm), else "" ($CMD, a glob, a
	// brace expansion), and Unknown says why.
	Name string
	// Args are the words: the command name first.
	Args []Word
	// Via are the constructs it was found through, outermost first.
	Via []Hop
	// Redirects are the redirections of its own statement (shared by a
	// wrapper and the commands it runs).
	Redirects []Redirect
	// Function reports whether the name is a function the same command
	// line declares, called as a function (not through a wrapper).
	Function bool
	// PipeFrom names (Name, or the first word as written) the commands whose output reaches its standard input
	// through pipes, transitively, in pipeline order, each name once (at
	// most MaxPipeFrom): `curl x | tee f | sh` gives sh [curl tee]. It is
	// empty when the command's statement redirects standard input.
	PipeFrom []string
	// At orders commands and reasons together (see the package doc): a
	// consumer that stops at the first finding reads both by At.
	At int
}

// Static reports whether every word of c is static.
func (c *Command) Static() bool {
	for _, w := range c.Args {
		if !w.Static {
			return false
		}
	}
	return true
}

// HopKind says what a Hop is.
type HopKind int

const (
	// Wrapper is a command that runs the next one: sudo, env, xargs,
	// find (-exec), jobs (-x), and the places that name a program to
	// run later: hash -p, compgen -F, SHELL.
	Wrapper HopKind = iota
	// Line is a command line run by a command: bash -c, eval, su -c,
	// trap, alias NAME, PROMPT_COMMAND, a shell reading a here-document
	// ("bash reading standard input"), ...
	Line
	// Substitution is $( ), ` `, <( ) or >( ).
	Substitution
	// Body is the body of a function, named NAME().
	Body
	// Arithmetic is text bash evaluates as arithmetic, named by where it
	// is ("the subscript of a[$(x)] in a variable name given to read").
	Arithmetic
)

// Hop is one construct a command or a reason was found through.
type Hop struct {
	Kind HopKind
	Name string
}

// Redirect is a redirection.
type Redirect struct {
	// Op is the operator: > >> >| < <> <& >& &> &>> << <<- <<<.
	Op string
	// Fd is the descriptor redirected: as written, else 1 for the output
	// operators (&> and &>> redirect 2 as well) and 0 for the input ones;
	// -1 when a variable receives it ({fd}>file).
	Fd int
	// Target is the file, the descriptor (>&2), the here-string, or the
	// body of the here-document.
	Target Word
	// Write reports whether the target is a file opened for writing (>,
	// >>, >|, <>, &>, &>>, and >& to a word that is not a descriptor).
	Write bool
	// Via are the constructs it was found through, as for a Command.
	Via []Hop
}

// Function is a function the command line declares.
type Function struct {
	Name string
	// Recursive reports whether calling it calls it again, directly or
	// through the other functions of its command line, in a pipeline, in
	// the background or in a subshell: :(){ :|:& };: is recursive.
	Recursive bool
}

// Unknown is a reason why Parse cannot tell what would run.
type Unknown struct {
	// Reason is lowercase and names the construct.
	Reason string
	// Via are the constructs it was found through, as for a Command.
	Via []Hop
	// Syntax reports that a command line does not parse: the whole one
	// when Via is empty (Reason is then "does not parse: ..."), else a
	// nested one.
	Syntax bool
	// At orders commands and reasons together.
	At int
}

// Parse reads command. An empty command line (or only comments) runs
// nothing: the Analysis is empty and OK.
func Parse(command string) (out *Analysis) {
	a := &analyser{out: &Analysis{}}
	defer func() {
		// The parser may panic on input it does not expect; the command
		// line is then one Parse cannot read, not the end of the process.
		if v := recover(); v != nil {
			out = &Analysis{}
			(&analyser{out: out}).reason(nil, false, "cannot read the command line: the analysis failed on it (%v)", v)
		}
	}()
	a.script(command, 0, "", nil, nil)
	a.vars.verdict(a)
	a.dirs.verdict(a)
	return a.out
}

// String returns the reason.
func (u Unknown) String() string { return u.Reason }
