package bashcmd

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// builtinRules are the bash builtins that run strings or evaluate
// variable names given as text.
var builtinRules = map[string]commandRule{
	"declare":   declRule,
	"typeset":   declRule,
	"local":     declRule,
	"export":    declRule,
	"readonly":  declRule,
	"let":       (*scope).let,
	"read":      (*scope).read,
	"printf":    (*scope).printf,
	"mapfile":   (*scope).mapfile,
	"readarray": (*scope).mapfile,
	"getopts":   (*scope).getopts,
	"wait":      (*scope).wait,
	"unset":     (*scope).unset,
	"test":      (*scope).test,
	"[":         (*scope).test,
	"compgen":   (*scope).compgen,
	"complete":  (*scope).compgen,
	"jobs":      (*scope).jobs,
	"fc":        (*scope).fc,
	"bind":      (*scope).bind,
	"alias":     (*scope).alias,
	"cd":        changeDir,
	"pushd":     changeDir,
}

// builtinOptions parses a bash builtin's options as bash does: clusters
// of letters, each letter in withArg taking the rest of its word or the
// next word; "--", or the first word that does not start with '-', ends
// them. A word that is not literal where an option may be is refused, as
// it may be an option at run time (printf "$x" ... may be printf -v).
func (s *scope) builtinOptions(base string, rest []arg, flags, withArg string) (map[byte][]arg, []arg, error) {
	o := map[byte][]arg{}
	i := 0
loop:
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return nil, nil, s.dynamic(a, "an argument of "+base+", which may be an option at run time")
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case strings.IndexByte(flags, c) >= 0:
				o[c] = append(o[c], arg{})
			case strings.IndexByte(withArg, c) >= 0:
				var val arg
				if j+1 < len(v) {
					val = textArg(v[j+1:])
				} else if i++; i < len(rest) {
					val = rest[i]
				} else {
					break loop
				}
				o[c] = append(o[c], val)
				continue loop
			default:
				return nil, nil, s.unknown("cannot check %s: unknown option -%c", base, c)
			}
		}
	}
	return o, rest[min(i, len(rest)):], nil
}

func declRule(s *scope, base string, rest []arg, _ *stdin) ([]arg, error) {
	return nil, s.declare(base, wordDeclArgs(rest))
}

// let evaluates each argument as an arithmetic expression.
func (s *scope) let(_ string, rest []arg, _ *stdin) ([]arg, error) {
	if len(rest) > 0 && rest[0].lit && rest[0].val == "--" {
		rest = rest[1:]
	}
	for _, a := range rest {
		if a.word == nil {
			return nil, s.dynamic(a, "an expression given to let")
		}
		if err := s.arithWord(a.word); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// readName checks a name a builtin gives a value read at run time.
func (s *scope) readName(a arg, base string) (string, error) {
	name, err := s.varText(a, "a variable name given to "+base)
	if err != nil {
		return "", err
	}
	return name, s.write(name, runtimeValue("what "+base+" reads"))
}

func (s *scope) read(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, ops, err := s.builtinOptions(base, rest, "ers", "adinNptu")
	if err != nil {
		return nil, err
	}
	for _, a := range o['a'] {
		name, err := s.readName(a, base+" -a")
		if err != nil {
			return nil, err
		}
		s.vars.array(name)
	}
	for _, a := range ops {
		if _, err := s.readName(a, base); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *scope) printf(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, _, err := s.builtinOptions(base, rest, "", "v")
	if err != nil {
		return nil, err
	}
	for _, a := range o['v'] {
		if _, err := s.readName(a, base+" -v"); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// mapfile runs its -C callback as a command line, with the index and the
// line (quoted) appended.
func (s *scope) mapfile(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, ops, err := s.builtinOptions(base, rest, "t", "dnOsucC")
	if err != nil {
		return nil, err
	}
	for _, cb := range o['C'] {
		if !cb.lit {
			return nil, s.dynamic(cb, "the callback of "+base+" -C")
		}
		if err := s.nested(cb.val+" 0 ''", base+" -C"); err != nil {
			return nil, err
		}
	}
	if len(ops) > 0 {
		name, err := s.readName(ops[0], base)
		if err != nil {
			return nil, err
		}
		s.vars.array(name)
	}
	return nil, nil
}

func (s *scope) getopts(base string, rest []arg, _ *stdin) ([]arg, error) {
	if len(rest) > 1 {
		_, err := s.readName(rest[1], base)
		return nil, err
	}
	return nil, nil
}

func (s *scope) wait(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, _, err := s.builtinOptions(base, rest, "fn", "p")
	if err != nil {
		return nil, err
	}
	for _, a := range o['p'] {
		if _, err := s.readName(a, base+" -p"); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *scope) unset(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, ops, err := s.builtinOptions(base, rest, "fvn", "")
	if err != nil {
		return nil, err
	}
	for _, a := range ops {
		if len(o['f']) > 0 {
			if !a.lit {
				return nil, s.dynamic(a, "a function name given to unset -f")
			}
			continue
		}
		if _, err := s.varText(a, "a variable name given to unset"); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// test checks the names given to -v and -R, whose subscripts bash
// evaluates. A word that is not literal may be -v at run time, so the word
// after it must be literal too.
func (s *scope) test(base string, rest []arg, _ *stdin) ([]arg, error) {
	args := rest
	if base == "[" && len(args) > 0 && args[len(args)-1].lit && args[len(args)-1].val == "]" {
		args = args[:len(args)-1]
	}
	for i := 0; i+1 < len(args); i++ {
		if a := args[i]; a.lit && a.val != "-v" && a.val != "-R" {
			continue
		}
		next := args[i+1]
		if !next.lit {
			return nil, s.unknown("cannot check %s: %s is not literal and follows %s, which is or may be -v, and bash evaluates the subscript of the name -v is given", base, next.source(), args[i].source())
		}
		if name, _, ok := splitSubscript(next.val); ok && validName(name) {
			if _, err := s.varText(next, "the name given to "+base+" -v"); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// compgen runs -C's command line, -F's function and the expansions in
// -W's words.
func (s *scope) compgen(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, _, err := s.builtinOptions(base, rest, "abcdefgjksuvDEIpr", "oAGWFCXPS")
	if err != nil {
		return nil, err
	}
	for _, c := range o['C'] {
		if !c.lit {
			return nil, s.dynamic(c, "the command run by "+base+" -C")
		}
		if err := s.nested(c.val, base+" -C"); err != nil {
			return nil, err
		}
	}
	for _, f := range o['F'] {
		if !f.lit {
			return nil, s.dynamic(f, "the function run by "+base+" -F")
		}
		s.program(f.val, base+" -F")
	}
	for _, w := range o['W'] {
		if !w.lit || strings.ContainsAny(w.val, "$`") || strings.Contains(w.val, "<(") || strings.Contains(w.val, ">(") {
			return nil, s.unknown("cannot check %s -W %s: bash expands the words, running the $(...), `...` and <(...) in them; give plain words", base, w.source())
		}
	}
	return nil, nil
}

// jobs -x runs a command.
func (s *scope) jobs(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, ops, err := s.builtinOptions(base, rest, "lnprsx", "")
	if err != nil || len(o['x']) == 0 {
		return nil, err
	}
	return ops, nil
}

// fc runs commands from the history list, which the command line does
// not show; it may only list them.
func (s *scope) fc(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, _, err := s.builtinOptions(base, rest, "lnrs", "e")
	if err != nil {
		return nil, err
	}
	if len(o['l']) > 0 && len(o['s']) == 0 && len(o['e']) == 0 {
		return nil, nil
	}
	return nil, s.unknown("cannot check fc: it runs commands from the history list; use fc -l to list them")
}

// bind -x binds a key to a command line.
func (s *scope) bind(base string, rest []arg, _ *stdin) ([]arg, error) {
	o, _, err := s.builtinOptions(base, rest, "lpsvPSVX", "mqurfx")
	if err != nil {
		return nil, err
	}
	if len(o['x']) > 0 {
		return nil, s.unknown("cannot check bind -x: it runs a command line when a key is pressed")
	}
	return nil, nil
}

var reservedWords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true, "for": true,
	"select": true, "while": true, "until": true, "do": true, "done": true, "in": true, "function": true,
	"time": true, "{": true, "}": true, "!": true, "[[": true, "]]": true, "coproc": true,
}

func (s *scope) alias(_ string, rest []arg, _ *stdin) ([]arg, error) {
	for _, a := range rest {
		if !a.lit {
			return nil, s.dynamic(a, "the alias")
		}
		if name, value, ok := strings.Cut(a.val, "="); ok {
			if err := s.aliasValue(name, value); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// aliasValue checks an alias definition. The text of an alias replaces
// the command word of a line read later, and the words that follow are
// appended (in sh, bash --posix, interactive shells, or with
// shopt -s expand_aliases), so it may only be one simple command of
// literal words that takes those words as arguments: no builtin, wrapper
// or shell whose arguments the policy reads, no assignment, redirection,
// list or background, and no trailing blank (which expands the next word
// as an alias too) or backslash.
func (s *scope) aliasValue(name, value string) error {
	bad := func(why string) error {
		return s.unknown("cannot check alias %s=%q: %s; define a function instead", name, shorten(value), why)
	}
	if reservedWords[name] {
		return bad("it redefines a reserved word")
	}
	if strings.TrimRight(value, " \t\n") != value || strings.HasSuffix(value, `\`) {
		return bad("it ends in a blank or a backslash, which joins it to the words that follow")
	}
	f, err := parseBash(value)
	if le, ok := isLimit(err); ok {
		return s.unknown("%s", cannotRead("the command line of alias "+name, le))
	}
	if err != nil {
		return s.unknown("cannot parse the command line of alias %s: %v", name, err)
	}
	if len(f.Stmts) != 1 {
		return bad("it is not one simple command")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return bad("it is not one simple command")
	}
	for _, w := range call.Args {
		if _, ok := literal(w); !ok {
			return bad("its words are not literal")
		}
	}
	first, _ := literal(call.Args[0])
	if base := path.Base(first); readSpecially(base) {
		return bad(fmt.Sprintf("the policy reads the arguments of %s, and an alias hides them", base))
	}
	return s.nested(value, "alias "+name)
}
