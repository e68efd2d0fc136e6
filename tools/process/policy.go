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

// wrapped returns the command a wrapper runs (nil if none or not a
// wrapper), checking along the way the strings it runs as command lines.
func (s *scope) wrapped(base string, rest []arg, in *stdin) ([]arg, error) {
	switch base {
	case "env":
		return s.env(rest)
	case "command":
		return s.options(base, rest, optSpec{short: "pvV"}, func(o opts, ops []arg) ([]arg, error) {
			if o.has("-v", "-V") {
				return nil, nil // only says what the name is
			}
			return ops, nil
		})
	case "builtin", "nohup", "unbuffer", "busybox", "nocorrect", "noglob":
		return s.options(base, rest, optSpec{short: "p", long: []string{"help", "version"}}, passOperands)
	case "exec":
		return s.options(base, rest, optSpec{short: "cl", shortArg: "a"}, passOperands)
	case "nice":
		return s.options(base, rest, optSpec{shortArg: "n", longArg: []string{"adjustment"}, long: []string{"help", "version"}, numeric: true}, passOperands)
	case "time":
		return s.options(base, rest, optSpec{short: "apqvV", shortArg: "fo", longArg: []string{"format", "output"},
			long: []string{"append", "portability", "quiet", "verbose", "help", "version"}}, passOperands)
	case "timeout":
		return s.options(base, rest, optSpec{short: "v", shortArg: "sk", longArg: []string{"signal", "kill-after"},
			long: []string{"preserve-status", "foreground", "verbose", "help", "version"}}, skipOperands(1))
	case "xargs":
		return s.options(base, rest, optSpec{short: "0prtxo", shortArg: "adEILnPs", shortOptArg: "eil",
			longArg:    []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
			longOptArg: []string{"eof", "replace", "max-lines"},
			long:       []string{"null", "no-run-if-empty", "interactive", "verbose", "exit", "open-tty", "show-limits", "help", "version"}},
			passOperands)
	case "sudo":
		return s.options(base, rest, optSpec{short: "AbBEeHiKklNnPSsVv", shortArg: "aCcDgpRrTtUu", shortOptArg: "h",
			longArg: []string{"user", "group", "close-from", "host", "prompt", "role", "type", "command-timeout", "other-user", "chdir", "chroot"},
			long: []string{"askpass", "background", "edit", "set-home", "login", "remove-timestamp", "reset-timestamp", "list",
				"non-interactive", "preserve-groups", "stdin", "shell", "version", "validate", "help", "bell", "no-update"},
			longOptArg: []string{"preserve-env"}},
			func(o opts, ops []arg) ([]arg, error) {
				if o.has("-e", "--edit") {
					return nil, nil // sudoedit: files, not a command
				}
				return skipAssignments(ops), nil
			})
	case "doas":
		return s.options(base, rest, optSpec{short: "nsL", shortArg: "uC"}, passOperands)
	case "stdbuf":
		return s.options(base, rest, optSpec{shortArg: "ioe", longArg: []string{"input", "output", "error"}, long: []string{"help", "version"}}, passOperands)
	case "setsid":
		return s.options(base, rest, optSpec{short: "cfw", long: []string{"ctty", "fork", "wait", "help", "version"}}, passOperands)
	case "chroot":
		return s.options(base, rest, optSpec{longArg: []string{"userspec", "groups"}, long: []string{"skip-chdir", "help", "version"}}, skipOperands(1))
	case "ionice":
		return s.options(base, rest, optSpec{short: "tpPu", shortArg: "cn", longArg: []string{"class", "classdata"},
			long: []string{"ignore", "pid", "pgid", "uid", "help", "version"}},
			func(o opts, ops []arg) ([]arg, error) {
				if o.has("-p", "-P", "-u", "--pid", "--pgid", "--uid") {
					return nil, nil // changes existing processes
				}
				return ops, nil
			})
	case "taskset":
		return s.options(base, rest, optSpec{short: "acp", long: []string{"all-tasks", "cpu-list", "pid", "help", "version"}},
			func(o opts, ops []arg) ([]arg, error) {
				if o.has("-p", "--pid") {
					return nil, nil
				}
				return skipOperands(1)(o, ops)
			})
	case "flock":
		return s.options(base, rest, optSpec{short: "sxenuoFv", shortArg: "wEc", longArg: []string{"wait", "timeout", "conflict-exit-code", "command"},
			long: []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose", "help", "version"}},
			func(o opts, ops []arg) ([]arg, error) {
				if c, ok := o.value("-c", "--command"); ok {
					return nil, s.nested(c, "flock -c")
				}
				// flock [options] file -c string: -c after the file.
				if len(ops) > 1 && ops[1].lit && (ops[1].val == "-c" || ops[1].val == "--command") {
					if len(ops) < 3 {
						return nil, nil
					}
					if !ops[2].lit {
						return nil, s.dynamic(ops[2], "the command line run by flock -c")
					}
					return nil, s.nested(ops[2].val, "flock -c")
				}
				return skipOperands(1)(o, ops)
			})
	case "watch":
		return s.options(base, rest, optSpec{short: "bcCegprtwx", shortArg: "nq", shortOptArg: "d", longArg: []string{"interval", "equexit"},
			longOptArg: []string{"differences"},
			long:       []string{"beep", "color", "no-color", "errexit", "chgexit", "precise", "no-rerun", "no-title", "no-wrap", "exec", "help", "version"}},
			func(o opts, ops []arg) ([]arg, error) {
				if o.has("-x", "--exec") || len(ops) == 0 {
					return ops, nil
				}
				return nil, s.nested(joinArgs(ops), "watch") // run by sh -c
			})
	case "su", "runuser":
		return s.options(base, rest, optSpec{short: "lmpfP", shortArg: "cgGswu", longArg: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user"},
			long: []string{"login", "preserve-environment", "fast", "pty", "help", "version"}, permute: true},
			func(o opts, ops []arg) ([]arg, error) {
				if c, ok := o.value("-c", "--command", "--session-command"); ok {
					return nil, s.nested(c, base+" -c")
				}
				if len(ops) > 1 && base == "runuser" {
					return nil, refuse("cannot tell which command runuser %s runs", joinArgs(ops))
				}
				return nil, s.stdinShell(base, in)
			})
	case "script":
		return s.options(base, rest, optSpec{short: "aefqV", shortArg: "cEIOmBTo", shortOptArg: "t",
			longArg:    []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"},
			longOptArg: []string{"timing"},
			long:       []string{"append", "return", "flush", "force", "quiet", "help", "version"}, permute: true},
			func(o opts, ops []arg) ([]arg, error) {
				if c, ok := o.value("-c", "--command"); ok {
					return nil, s.nested(c, "script -c")
				}
				return nil, nil // an interactive shell
			})
	case "find":
		return nil, s.find(rest)
	case "eval":
		for _, a := range rest {
			if !a.lit {
				return nil, s.dynamic(a, "the command line run by eval")
			}
		}
		return nil, s.nested(joinArgs(rest), "eval")
	case "trap":
		return s.options(base, rest, optSpec{short: "lp"}, func(o opts, ops []arg) ([]arg, error) {
			if len(ops) < 2 || (ops[0].lit && (ops[0].val == "-" || ops[0].val == "")) {
				return nil, nil // resets or lists signal handlers
			}
			if !ops[0].lit {
				return nil, s.dynamic(ops[0], "the command line run by trap")
			}
			return nil, s.nested(ops[0].val, "trap")
		})
	case "alias":
		for _, a := range rest {
			if !a.lit {
				return nil, s.dynamic(a, "the alias")
			}
			if name, value, ok := strings.Cut(a.val, "="); ok {
				if err := s.nested(value, "alias "+name); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	case "source", ".":
		ops := rest
		if len(ops) > 0 && ops[0].lit && ops[0].val == "--" {
			ops = ops[1:]
		}
		if len(ops) == 0 {
			return nil, nil
		}
		return nil, s.scriptFile(base, ops[0], in)
	case "hash":
		for i, a := range rest {
			if !a.lit {
				return nil, s.dynamic(a, "an argument of hash")
			}
			if strings.HasPrefix(a.val, "-p") && len(a.val) > 2 {
				return nil, s.name(path.Base(a.val[2:]), "hash -p")
			}
			if a.val == "-p" && i+1 < len(rest) {
				if !rest[i+1].lit {
					return nil, s.dynamic(rest[i+1], "the program given to hash -p")
				}
				return nil, s.name(path.Base(rest[i+1].val), "hash -p")
			}
		}
		return nil, nil
	}
	if isShell(base) {
		return nil, s.shell(base, rest, in)
	}
	return nil, nil
}

// nested checks a command line run by a command.
func (s *scope) nested(src, via string) error {
	if s.via != "" {
		via = via + " in " + s.via
	}
	return s.checker.script(src, s.depth+1, via)
}

var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "pdksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true, "fish": true, "csh": true, "tcsh": true,
}

func isShell(base string) bool { return shells[base] }

// shell checks `sh [options] -c string`, and a shell reading commands from
// standard input. A script file is not checked.
func (s *scope) shell(base string, rest []arg, in *stdin) error {
	cflag, sflag := false, false
	i := 0
options:
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return s.dynamic(a, "an option of "+base)
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					i++ // takes the next word
				}
			}
		default:
			break options
		}
	}
	ops := rest[min(i, len(rest)):]
	if cflag {
		if len(ops) == 0 {
			return nil // bash: -c: option requires an argument
		}
		if !ops[0].lit {
			return s.dynamic(ops[0], "the command line run by "+base+" -c")
		}
		return s.nested(ops[0].val, base+" -c")
	}
	if len(ops) > 0 && !sflag {
		return s.scriptFile(base, ops[0], in)
	}
	return s.stdinShell(base, in)
}

// scriptFile checks the file a shell runs (or sources): a file is not
// checked, but a file that is not literal (<(cmd), "$f") or that is a file
// descriptor is.
func (s *scope) scriptFile(base string, file arg, in *stdin) error {
	if !file.lit {
		return s.dynamic(file, "the script run by "+base)
	}
	switch f := file.val; {
	case f == "/dev/stdin" || f == "/dev/fd/0" || f == "/proc/self/fd/0":
		return s.stdinShell(base, in)
	case strings.HasPrefix(f, "/dev/fd/") || strings.HasPrefix(f, "/proc/self/fd/") || strings.HasPrefix(f, "/proc/thread-self/fd/"):
		return refuse("cannot check the commands %s reads from %s", base, f)
	}
	return nil // a script file: not checked
}

// stdinShell checks a shell that reads its commands from standard input.
func (s *scope) stdinShell(base string, in *stdin) error {
	if in == nil {
		return refuse("cannot check the commands %s reads from standard input; use %s -c", base, base)
	}
	if !in.lit {
		return refuse("cannot check the commands %s reads from %s, which is not literal", base, in.src)
	}
	return s.nested(in.script, base+" reading standard input")
}

// env checks env's options and returns the command it runs. The words of
// -S (--split-string) take its place, as env does.
func (s *scope) env(rest []arg) ([]arg, error) {
	splits := 0
	// value returns the value of an option: attached, or the next word.
	value := func(attached string, hasVal bool, i *int) (string, bool, error) {
		if hasVal {
			return attached, true, nil
		}
		*i++
		if *i >= len(rest) {
			return "", false, nil
		}
		if !rest[*i].lit {
			return "", false, s.dynamic(rest[*i], "an argument of env")
		}
		return rest[*i].val, true, nil
	}
	// split replaces rest[:i+1] by the words of str.
	split := func(str string, i int) error {
		if splits++; splits > maxNesting {
			return refuse("env -S nested more than %d times is not checked", maxNesting)
		}
		w, err := s.splitString(str)
		if err != nil {
			return err
		}
		rest = append(w, rest[i+1:]...)
		return nil
	}
next:
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit || !strings.HasPrefix(a.val, "-") {
			if a.assign || a.lit {
				// NAME=VALUE assignments, then the command.
				return skipAssignments(rest[i:]), nil
			}
			return nil, s.dynamic(a, "an argument of env")
		}
		v := a.val
		switch {
		case v == "--":
			return skipAssignments(rest[i+1:]), nil
		case v == "-":
			// -i
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch name {
			case "ignore-environment", "null", "debug", "list-signal-handling", "help", "version":
			case "default-signal", "ignore-signal", "block-signal":
			case "unset", "chdir", "argv0", "split-string":
				val, ok, err := value(val, hasVal, &i)
				if err != nil || !ok {
					return nil, err
				}
				if name == "split-string" {
					if err := split(val, i); err != nil {
						return nil, err
					}
					i = -1
					continue next
				}
			default:
				return nil, refuse("cannot tell which command env runs: unknown option %s", v)
			}
		default:
			for j := 1; j < len(v); j++ {
				switch c := v[j]; c {
				case 'i', '0', 'v':
				case 'u', 'C', 'a', 'S':
					val, ok, err := value(v[j+1:], j+1 < len(v), &i)
					if err != nil || !ok {
						return nil, err
					}
					if c == 'S' {
						if err := split(val, i); err != nil {
							return nil, err
						}
						i = -1
					}
					continue next
				default:
					return nil, refuse("cannot tell which command env runs: unknown option -%c", c)
				}
			}
		}
	}
	return nil, nil
}

// splitString splits env -S's string into words, as a shell would.
func (s *scope) splitString(str string) ([]arg, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(str), "")
	if err != nil {
		return nil, refuse("cannot parse the string of env -S: %v", err)
	}
	if len(f.Stmts) == 0 {
		return nil, nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if len(f.Stmts) != 1 || !ok || len(call.Assigns) > 0 || len(f.Stmts[0].Redirs) > 0 {
		return nil, refuse("cannot tell which command env -S %q runs", str)
	}
	return words(call.Args), nil
}

// find checks the commands of -exec, -execdir, -ok and -okdir.
func (s *scope) find(rest []arg) error {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return s.dynamic(a, "an argument of find")
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(rest) && !(rest[j].lit && (rest[j].val == ";" || rest[j].val == "+")) {
				j++
			}
			if err := s.argv(rest[i+1:j], nil); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// skipAssignments drops the NAME=VALUE words before a command: as env
// and sudo do, every word with a '='.
func skipAssignments(args []arg) []arg {
	for len(args) > 0 && args[0].assign {
		args = args[1:]
	}
	return args
}

func joinArgs(args []arg) string {
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.val
	}
	return strings.Join(vals, " ")
}

// optSpec describes a wrapper's options.
type optSpec struct {
	short       string   // short options without an argument
	shortArg    string   // short options with an argument (attached or next word)
	shortOptArg string   // short options with an optional, attached argument
	long        []string // long options without an argument
	longArg     []string // long options with an argument (--x=v or --x v)
	longOptArg  []string // long options with an optional argument (--x=v only)
	numeric     bool     // -N is an option (nice -5)
	permute     bool     // options may follow operands (su user -c cmd)
}

// opts are the options a wrapper was given, by name as written without
// its value ("-c", "--command"), with their values.
type opts map[string]string

func (o opts) has(names ...string) bool {
	for _, n := range names {
		if _, ok := o[n]; ok {
			return true
		}
	}
	return false
}

// value returns the value of the last given of names.
func (o opts) value(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := o[n]; ok {
			return v, true
		}
	}
	return "", false
}

func passOperands(_ opts, ops []arg) ([]arg, error) { return ops, nil }

// skipOperands drops n operands before the command (timeout's duration,
// chroot's directory, taskset's mask, flock's file).
func skipOperands(n int) func(opts, []arg) ([]arg, error) {
	return func(_ opts, ops []arg) ([]arg, error) {
		if len(ops) <= n {
			return nil, nil
		}
		return ops[n:], nil
	}
}

// options parses a wrapper's options (GNU style: options first, -- ends
// them) and hands the operands to then. Unknown options are refused, since
// they could take the word that is the command.
func (s *scope) options(base string, rest []arg, spec optSpec, then func(opts, []arg) ([]arg, error)) ([]arg, error) {
	o := opts{}
	var operands []arg
	i := 0
	needValue := func(what string) (string, error) {
		i++
		if i >= len(rest) {
			return "", nil
		}
		if !rest[i].lit {
			return "", s.dynamic(rest[i], "the value of "+base+" "+what)
		}
		return rest[i].val, nil
	}
loop:
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			if !a.assign {
				return nil, s.dynamic(a, "an argument of "+base)
			}
			if !spec.permute {
				break loop // NAME=$x: an operand
			}
			operands = append(operands, a)
			continue
		}
		v := a.val
		switch {
		case v == "--":
			i++
			break loop
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			switch {
			case contains(spec.long, name) && !hasVal:
				o["--"+name] = ""
			case contains(spec.longOptArg, name):
				o["--"+name] = val
			case contains(spec.longArg, name):
				if !hasVal {
					var err error
					if val, err = needValue(v); err != nil {
						return nil, err
					}
				}
				o["--"+name] = val
			default:
				return nil, refuse("cannot tell which command %s runs: unknown option %s", base, v)
			}
		case len(v) > 1 && v[0] == '-':
			if spec.numeric && isDigits(v[1:]) {
				continue
			}
		cluster:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case strings.IndexByte(spec.short, c) >= 0:
					o["-"+string(c)] = ""
				case strings.IndexByte(spec.shortOptArg, c) >= 0:
					o["-"+string(c)] = v[j+1:]
					break cluster
				case strings.IndexByte(spec.shortArg, c) >= 0:
					val := v[j+1:]
					if val == "" {
						var err error
						if val, err = needValue("-" + string(c)); err != nil {
							return nil, err
						}
					}
					o["-"+string(c)] = val
					break cluster
				default:
					return nil, refuse("cannot tell which command %s runs: unknown option -%c", base, c)
				}
			}
		default:
			if !spec.permute {
				break loop
			}
			operands = append(operands, a)
		}
	}
	return then(o, append(operands, rest[min(i, len(rest)):]...))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// literal returns the value of a word that means the same whatever the
// environment: quotes and backslashes removed, and no expansion, glob
// (* ? [..]), brace expansion ({a,b} {1..3}) or tilde that names no path.
// Quoted parts take part in globs and brace expansions ({r,"m"}), so the
// positions of the unquoted [ ] { } are tracked across parts.
func literal(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	tilde := false
	bracket := -1           // position of the first unquoted '['
	var opens, closes []int // positions of unquoted '{' and '}'
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for j := 0; j < len(v); j++ {
				c := v[j]
				switch c {
				case '\\':
					if j+1 < len(v) {
						j++
						c = v[j]
					}
				case '*', '?':
					return "", false
				case '[':
					if bracket < 0 {
						bracket = sb.Len()
					}
				case '{':
					opens = append(opens, sb.Len())
				case '}':
					closes = append(closes, sb.Len())
				case '~':
					if i == 0 && j == 0 {
						tilde = true
					}
				}
				sb.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				return "", false // $'\x72m'
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	v := sb.String()
	if bracket >= 0 && strings.Contains(v[bracket+1:], "]") {
		return "", false // r[m]
	}
	for _, o := range opens {
		for _, c := range closes {
			if c > o && (strings.Contains(v[o:c], ",") || strings.Contains(v[o:c], "..")) {
				return "", false // {rm,x}
			}
		}
	}
	if tilde && !strings.Contains(v, "/") {
		return "", false // ~ or ~user: a home directory
	}
	return v, true
}

// unescape removes the backslashes before the bytes in special (a
// backslash-newline disappears).
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(special, s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// quotedDelim reports whether a here-document's delimiter is quoted (its
// body is then literal).
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// heredoc returns a here-document's body as the command reads it, when
// literal.
func heredoc(body *syntax.Word, quoted bool) (string, bool) {
	var sb strings.Builder
	for _, p := range body.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		if quoted {
			sb.WriteString(lit.Value)
		} else {
			sb.WriteString(unescape(lit.Value, "$`\\\n"))
		}
	}
	return sb.String(), true
}
