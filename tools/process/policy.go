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
// find -delete), a copy or link of a blocked program under another name,
// PATH changes, or a value computed at run time and evaluated later. Use a
// sandbox (BubblewrapExec) to contain a command; use the lists to steer a
// model away from commands you do not want.
//
// Check parses the command line as Bash (mvdan.cc/sh) and checks the name
// of every simple command in it: in pipelines, lists (; && ||), subshells,
// { } blocks, $( ) and backquotes, process substitutions, if/for/while/case
// bodies, function bodies, here-documents, and the commands run by
// wrappers: env, command, builtin, exec, nice, nohup, time, timeout, xargs,
// sudo, doas, stdbuf, setsid, chroot, ionice, taskset, flock, watch,
// unbuffer, busybox, find -exec/-execdir/-ok/-okdir, and the strings run by
// sh/bash/dash/zsh/ksh/... -c, su -c, script -c, eval, trap and alias,
// which are parsed and checked in turn. A shell reading commands from
// standard input is checked when the input is a literal here-document or
// here-string, and refused otherwise. A name is matched by its base name
// (/usr/bin/rm is rm). Declarations (declare, local, export, readonly,
// typeset) and let are checked under those names; the keywords [[ ]],
// (( )), time, coproc and ! are not commands. A function declared in the
// same command line may be called whatever the allow list says (its body is
// checked); the block list still applies to its name.
//
// The block list wins over the allow list. An empty Allow allows every
// command not blocked; a non-empty Allow allows only the commands it lists.
// When either list is set, Check fails closed: it refuses a command whose
// name is not a literal word ($CMD, "$(echo rm)", globs such as /bin/r?,
// brace expansions, a leading ~ or =), a wrapper whose options it does not
// know, a string run by sh -c or eval that is not literal (eval "$x"), and
// nesting deeper than 8 levels. eval is therefore allowed exactly when its
// own name passes the lists and the literal command line it evaluates
// passes too. When neither list is set, every command line that parses is
// allowed.
//
// Redirections are not commands: `> /etc/passwd` passes (paths are not
// checked; that is the file tools' and the sandbox's job). Words that only
// become commands at run time (arguments of source or ., script files,
// variables) are not checked.
//
// Every error Check returns wraps ErrRefused, is lowercase and names the
// command and the list that refused it, or carries the parser's message.
type ShellPolicy struct {
	Allow []string
	Block []string
}

// ErrRefused is wrapped by every error ShellPolicy.Check returns.
var ErrRefused = errors.New("refused by the shell policy")

// maxNesting bounds command lines nested in strings (bash -c "eval '...'").
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
	return c.script(command, 0, "")
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

type checker struct {
	allow, block map[string]bool
}

// active reports whether any list is set.
func (c *checker) active() bool { return len(c.allow) > 0 || len(c.block) > 0 }

// script checks a command line; via says what runs it ("" at the top, or
// e.g. `bash -c`).
func (c *checker) script(src string, depth int, via string) error {
	if depth > maxNesting {
		return refuse("command lines nested more than %d levels deep (in %s) are not checked", maxNesting, via)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
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
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			s.funcs[fd.Name.Value] = true
		}
		return true
	})
	var first error
	syntax.Walk(f, func(n syntax.Node) bool {
		if first != nil {
			return false
		}
		first = s.node(n)
		return first == nil
	})
	return first
}

// scope is one command line being checked.
type scope struct {
	*checker
	depth int
	via   string
	funcs map[string]bool // functions declared in this command line
	seen  map[*syntax.CallExpr]bool
}

func (s *scope) node(n syntax.Node) error {
	switch n := n.(type) {
	case *syntax.Stmt:
		if call, ok := n.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			s.seen[call] = true
			return s.argv(words(call.Args), stdinOf(n.Redirs))
		}
	case *syntax.CallExpr:
		if !s.seen[n] && len(n.Args) > 0 {
			return s.argv(words(n.Args), nil)
		}
	case *syntax.DeclClause:
		return s.name(n.Variant.Value, "")
	case *syntax.LetClause:
		return s.name("let", "")
	}
	return nil
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
	lists := "the block list is set"
	if len(s.allow) > 0 {
		lists = "an allow list is set"
	}
	return refuse("cannot check %s: %s is not a literal word; refused because %s", what, w.src, lists)
}

// arg is a word of a simple command: its literal value when it has one.
type arg struct {
	val    string
	lit    bool
	assign bool   // it has a '=' whatever it expands to (NAME=$x)
	src    string // the word as written, for messages
}

func words(ws []*syntax.Word) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		v, ok := literal(w)
		out[i] = arg{val: v, lit: ok, src: printWord(w)}
		if ok {
			out[i].assign = strings.Contains(v, "=")
		} else if lit, isLit := w.Parts[0].(*syntax.Lit); isLit {
			out[i].assign = strings.Contains(lit.Value, "=")
		}
	}
	return out
}

func printWord(w *syntax.Word) string {
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, w); err != nil {
		return "(a word)"
	}
	return sb.String()
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
