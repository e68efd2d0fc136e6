package process

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ShellPolicy says which commands a shell command line may run.
//
// IT IS A CONVENIENCE, NOT ISOLATION. It reads the command line before it
// runs and cannot see what happens at run time: a script file, a program
// that runs other programs (make, git aliases, python -c, awk's system(),
// sed's e command, find -delete), a copy or link of a blocked program
// under another name (including a link to /dev/stdin made by an earlier
// command), PATH changes, or code a program loads from a file (LD_PRELOAD,
// enable -f). Use a sandbox (BubblewrapExec) to contain a command; use the
// lists to steer a model away from commands you do not want.
//
// Check parses the command line as Bash (mvdan.cc/sh) and checks the name
// of every simple command in it: in pipelines, lists (; && ||), subshells,
// { } blocks, $( ) and backquotes, process substitutions, if/for/while/case
// bodies, function bodies, here-documents, and the commands run by
// wrappers: env, command, builtin, exec, nice, nohup, time, timeout, xargs,
// sudo, doas, stdbuf, setsid, chroot, ionice, taskset, flock, watch,
// unbuffer, busybox, jobs -x, find -exec/-execdir/-ok/-okdir, and the
// strings run by sh/bash/dash/zsh/ksh/... -c, su -c, script -c, eval, trap,
// alias, mapfile -C, compgen -C and PROMPT_COMMAND, which are parsed and
// checked in turn. A shell reading commands from standard input, under any
// spelling of it (/dev/stdin, /dev//stdin, /proc/self/root/dev/stdin,
// /proc/self/fd/0, ...; also as source's file, --rcfile, --init-file,
// BASH_ENV or ENV), is checked when the input is a literal here-document
// or here-string, and refused otherwise; other files under /dev and /proc
// are refused there, and so is a file run by a relative name once the
// command line may have changed to a directory the policy cannot follow
// (cd .., cd /dev, cd "$d", CDPATH) or, for a bare name, changed PATH. The
// words find -exec and xargs fill in ({}, xargs -I R, the words xargs
// appends) are not literal. A name is matched by its base name
// (/usr/bin/rm is rm). Builtins are commands too: declare, local, export,
// readonly, typeset, let, read, printf, test and the others are checked
// under their names; the keywords [[ ]], (( )), time, coproc and ! are not
// commands. A function declared in the same command line may be called
// whatever the allow list says (its body is checked); the block list still
// applies to its name.
//
// Bash also runs code that no command names, at the places where it
// evaluates text: the value of a variable in arithmetic ((( x )), $(( x )),
// [[ x -eq 1 ]], let, subscripts, ${s:x}, integer variables) is evaluated
// as an expression, and a subscript in it runs command substitutions, so
// x='a[$(cmd)]'; (( x )) runs cmd; so do names given as text to builtins
// (read, printf -v, unset, test -v, declare, wait -p, ${!x}), prompt
// expansion (${x@P}, PS4), quoted compound assignments
// (declare -a 'x=($(cmd))'), functions and startup files passed in the
// environment (BASH_FUNC_f%%, BASH_ENV), aliases, and translated strings
// ($"..."). With a list set, Check reads the command line as a whole
// (nested command lines included) and allows these only where it can show
// the text is harmless: a variable may be evaluated only if every value the
// command line gives it is a number (x=5, x=$((...)), ((x++)), for i in 1 2)
// and bash does not give it text of its own (_, REPLY, BASH_REMATCH, ...);
// a name given as text must be a name, with a subscript that is itself
// such an expression; prompt strings must be plain text; an alias must be
// a single command whose words are literal and that is not a builtin,
// wrapper or shell the policy reads specially. Name references
// (declare -n), ${x@P}, $"...", fc, bind -x, compgen -W with expansions,
// BASH_ALIASES, BASH_CMDS, BASHOPTS, SHELLOPTS and functions in the
// environment are refused, and so are interactive shells (sh -i, script
// without -c), whose prompts, history and aliases change what runs.
//
// The block list wins over the allow list. An empty Allow allows every
// command not blocked; a non-empty Allow allows only the commands it lists.
// When either list is set, Check fails closed: besides the above, it
// refuses a command whose name is not a literal word ($CMD, "$(echo rm)",
// globs such as /bin/r?, brace expansions, a leading ~ or =), a wrapper
// whose options it does not know, a string run by sh -c or eval that is
// not literal (eval "$x"), and nesting deeper than 8 levels. eval is
// therefore allowed exactly when its own name passes the lists and the
// literal command line it evaluates passes too. When neither list is set,
// every command line that parses is allowed.
//
// Redirections are not commands: `> /etc/passwd` passes (paths are not
// checked; that is the file tools' and the sandbox's job). Words that only
// become commands at run time (the contents of script files and of files
// given to source or ., variables) are not checked.
//
// Every error Check returns wraps ErrRefused, is lowercase and names the
// command, the construct or the list that refused it, or carries the
// parser's message. Check is safe for concurrent use.
type ShellPolicy struct {
	Allow []string
	Block []string
}

// ErrRefused is wrapped by every error ShellPolicy.Check returns.
var ErrRefused = errors.New("refused by the shell policy")

// maxNesting bounds command lines nested in strings (bash -c "eval '...'")
// and arithmetic nested in text.
const maxNesting = 8

// policyError is a refusal; it wraps ErrRefused.
type policyError struct{ msg string }

func (e *policyError) Error() string { return "shell policy: " + e.msg }
func (e *policyError) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error {
	return &policyError{msg: fmt.Sprintf(format, args...)}
}

// Check returns nil when command may run under p, and an error saying why
// not otherwise. An empty command (or only comments) runs nothing and is
// allowed.
func (p ShellPolicy) Check(command string) error {
	c := &checker{allow: nameSet(p.Allow), block: nameSet(p.Block)}
	if err := c.script(command, 0, ""); err != nil {
		return err
	}
	if err := c.vars.verdict(c); err != nil {
		return err
	}
	return c.dirs.verdict(c)
}

// Active reports whether either list is set; without one, Check allows
// every command line that parses.
func (p ShellPolicy) Active() bool {
	return len(nameSet(p.Allow)) > 0 || len(nameSet(p.Block)) > 0
}

// Names reports whether the allow list names the program (by its base
// name) and the block list does not: what a caller that cannot check a
// program's input (python3 code, say) may take as leave to run it.
func (p ShellPolicy) Names(program string) bool {
	base := path.Base(program)
	return nameSet(p.Allow)[base] && !nameSet(p.Block)[base]
}

func nameSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			m[path.Base(n)] = true
		}
	}
	return m
}

// checker is one Check call.
type checker struct {
	allow, block map[string]bool
	vars         vars // gathered over the whole command line
	dirs         dirs
}

// active reports whether any list is set.
func (c *checker) active() bool { return len(c.allow) > 0 || len(c.block) > 0 }

// because says which list makes Check fail closed.
func (c *checker) because() string {
	if len(c.allow) > 0 {
		return "refused because an allow list is set"
	}
	return "refused because the block list is set"
}

func parseBash(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script checks a command line; via says what runs it ("" at the top, or
// e.g. `bash -c`).
func (c *checker) script(src string, depth int, via string) error {
	if depth > maxNesting {
		return refuse("command lines nested more than %d levels deep (in %s) are not checked", maxNesting, via)
	}
	f, err := parseBash(src)
	if err != nil {
		if via != "" {
			return refuse("cannot parse the command line run by %s: %v", via, err)
		}
		return refuse("cannot parse the command: %v", err)
	}
	if !c.active() {
		return nil
	}
	s := &scope{checker: c, depth: depth, via: via, funcs: map[string]bool{}, seen: map[*syntax.CallExpr]bool{}}
	s.declared(f)
	return s.walk(f)
}

// scope is one command line being checked.
type scope struct {
	*checker
	depth int
	via   string
	funcs map[string]bool // functions declared in this command line
	seen  map[*syntax.CallExpr]bool
	arith int // depth of arithmetic text being checked (see arithText)
}

// declared notes the functions f declares.
func (s *scope) declared(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			s.funcs[fd.Name.Value] = true
		}
		return true
	})
}

// walk checks every node of n.
func (s *scope) walk(n syntax.Node) error {
	var first error
	syntax.Walk(n, func(n syntax.Node) bool {
		if first != nil {
			return false
		}
		first = s.node(n)
		return first == nil
	})
	return first
}

func (s *scope) node(n syntax.Node) error {
	switch n := n.(type) {
	case *syntax.Stmt:
		if err := s.redirects(n.Redirs); err != nil {
			return err
		}
		if call, ok := n.Cmd.(*syntax.CallExpr); ok {
			s.seen[call] = true
			return s.call(call, stdinOf(n.Redirs))
		}
	case *syntax.CallExpr:
		if !s.seen[n] {
			return s.call(n, nil)
		}
	case *syntax.DeclClause:
		if err := s.name(n.Variant.Value, ""); err != nil {
			return err
		}
		return s.declare(n.Variant.Value, declArgs(n.Args))
	case *syntax.LetClause:
		if err := s.name("let", ""); err != nil {
			return err
		}
		for _, e := range n.Exprs {
			if err := s.arithExpr(e); err != nil {
				return err
			}
		}
	case *syntax.ArithmCmd:
		return s.arithExpr(n.X)
	case *syntax.ArithmExp:
		return s.arithExpr(n.X)
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if e != nil {
				if err := s.arithExpr(e); err != nil {
					return err
				}
			}
		}
	case *syntax.ForClause:
		return s.forVar(n)
	case *syntax.ParamExp:
		return s.paramExp(n)
	case *syntax.BinaryTest:
		return s.condTest(n)
	case *syntax.UnaryTest:
		return s.condVar(n)
	case *syntax.DblQuoted:
		if n.Dollar {
			return refuse(`cannot check $"...": bash translates it through a message catalog (TEXTDOMAIN) and expands the translation; use "..." instead; %s`, s.because())
		}
	}
	return nil
}

// call checks a simple command: its assignments, then the command.
func (s *scope) call(call *syntax.CallExpr, in *stdin) error {
	for _, a := range call.Assigns {
		if err := s.assignment(a); err != nil {
			return err
		}
	}
	if len(call.Args) == 0 {
		return nil
	}
	return s.argv(words(call.Args), in)
}

// name checks one command name (a base name); via says what runs it.
func (s *scope) name(base, via string) error {
	where := ""
	switch {
	case via != "" && s.via != "":
		where = fmt.Sprintf(" (run by %s, in the command line run by %s)", via, s.via)
	case via != "":
		where = fmt.Sprintf(" (run by %s)", via)
	case s.via != "":
		where = fmt.Sprintf(" (in the command line run by %s)", s.via)
	}
	if s.block[base] {
		return refuse("%q is on the block list%s", base, where)
	}
	if len(s.allow) > 0 && !s.allow[base] && !(via == "" && s.funcs[base]) {
		return refuse("%q is not on the allow list%s", base, where)
	}
	return nil
}

// dynamic refuses a word that decides what runs but is not literal.
func (s *scope) dynamic(w arg, what string) error {
	return refuse("cannot check %s: %s is not a literal word; %s", what, w.source(), s.because())
}

// arg is a word of a simple command: its literal value when it has one.
type arg struct {
	val    string
	lit    bool
	assign bool   // it has a '=' whatever it expands to (NAME=$x)
	src    string // the word as written, for messages (see source)
	word   *syntax.Word
}

// source returns the word as written. It is printed only when a message
// needs it.
func (a arg) source() string {
	if a.src == "" && a.word != nil {
		return printWord(a.word)
	}
	return a.src
}

func words(ws []*syntax.Word) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		out[i] = wordArg(w)
	}
	return out
}

func wordArg(w *syntax.Word) arg {
	v, ok := literal(w)
	a := arg{val: v, lit: ok, word: w}
	if ok {
		a.assign = strings.Contains(v, "=")
	} else if lit, isLit := w.Parts[0].(*syntax.Lit); isLit {
		a.assign = strings.Contains(lit.Value, "=")
	}
	return a
}

// stdin is a literal script on a command's standard input.
type stdin struct {
	script string
	lit    bool
	src    string
}

// stdinOf returns the here-document or here-string a statement reads on
// standard input, if any.
func stdinOf(redirs []*syntax.Redirect) *stdin {
	var in *stdin
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				in = &stdin{script: "", lit: true}
				continue
			}
			v, ok := heredoc(r.Hdoc, quotedDelim(r.Word))
			in = &stdin{script: v, lit: ok, src: "a here-document"}
		case syntax.WordHdoc:
			v, ok := literal(r.Word)
			in = &stdin{script: v, lit: ok, src: printWord(r.Word)}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			in = &stdin{lit: false, src: "a redirection"}
		}
	}
	return in
}

// redirects checks redirections that assign a descriptor to a variable
// ({fd}>file): the name may have a subscript, which bash evaluates.
func (s *scope) redirects(redirs []*syntax.Redirect) error {
	for _, r := range redirs {
		if r.N == nil || !strings.HasPrefix(r.N.Value, "{") || !strings.HasSuffix(r.N.Value, "}") {
			continue
		}
		v := r.N.Value[1 : len(r.N.Value)-1]
		if _, err := s.varText(arg{val: v, lit: true, src: r.N.Value}, "the variable of the redirection "+r.N.Value); err != nil {
			return err
		}
	}
	return nil
}

// argv checks a simple command and, for wrappers, the command it runs.
func (s *scope) argv(args []arg, in *stdin) error {
	via := ""
	for len(args) > 0 {
		a := args[0]
		if !a.lit {
			what := "the command name"
			if via != "" {
				what = "the command run by " + via
			}
			return s.dynamic(a, what)
		}
		base := a.val
		if base != "" {
			base = path.Base(strings.TrimRight(base, "/"))
		}
		if strings.HasPrefix(a.val, "=") {
			return s.dynamic(a, "the command name") // zsh's =cmd is a path lookup
		}
		if err := s.name(base, via); err != nil {
			return err
		}
		next, err := s.wrapped(base, args[1:], in)
		if err != nil || next == nil {
			return err
		}
		args, via = next, base
	}
	return nil
}

// nested checks a command line run by a command.
func (s *scope) nested(src, via string) error {
	if s.via != "" {
		via = via + " in " + s.via
	}
	return s.checker.script(src, s.depth+1, via)
}
