package bashcmd

import (
	"fmt"

	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// vars are the facts about shell variables that Check gathers over a whole
// command line, nested command lines included, and judges once every
// assignment has been seen: the order of the text does not matter, since
// a loop or a function may run an assignment before the text in front of
// it.
//
// Bash evaluates the value of a variable used in arithmetic as an
// expression of its own, and a subscript in that expression runs command
// substitutions: x='a[$(cmd)]'; (( x )) runs cmd. So a name may be
// evaluated only if every value the command line gives it is a number.
type vars struct {
	text     map[string]bool     // names given a value that may be any text
	copies   map[string][]string // names given the value of other names
	evals    []evalSite          // names whose value bash evaluates
	integers map[string]bool     // names with the integer attribute
	arrays   map[string]bool     // names used as arrays
	reparsed []reparseSite       // declaration values bash parses again if the name is an array
}

// evalSite is a name whose value bash evaluates: as an operand of an
// arithmetic expression (at), or in ${!name} (at nil).
type evalSite struct {
	name string
	at   *syntax.Word
}

func (e evalSite) where() string {
	if e.at == nil {
		return "${!" + e.name + "}"
	}
	return shorten(printWord(e.at)) + " in an arithmetic expression"
}

// reparseSite is a declaration argument (declare x="$y") that bash parses
// as a compound assignment when x is an array.
type reparseSite struct{ name, src string }

// bashText are variables bash gives text of its own, which the command
// line controls (the last argument, the matched text, what read read, the
// working directory, the functions' names, ...).
var bashText = map[string]bool{
	"_": true, "BASH": true, "BASHOPTS": true, "BASH_ALIASES": true, "BASH_ARGV": true, "BASH_ARGV0": true,
	"BASH_CMDS": true, "BASH_COMMAND": true, "BASH_EXECUTION_STRING": true, "BASH_REMATCH": true,
	"BASH_SOURCE": true, "BASH_VERSINFO": true, "BASH_VERSION": true, "COMPREPLY": true, "COMP_LINE": true,
	"COMP_WORDBREAKS": true, "COMP_WORDS": true, "DIRSTACK": true, "EPOCHREALTIME": true, "FUNCNAME": true,
	"HOSTNAME": true, "HOSTTYPE": true, "IFS": true, "MACHTYPE": true, "MAPFILE": true, "OLDPWD": true,
	"OPTARG": true, "OSTYPE": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "PWD": true,
	"READLINE_LINE": true, "REPLY": true, "SHELLOPTS": true,
}

func (v *vars) assigned(name string, numeric bool, deps []string) {
	if !numeric {
		if v.text == nil {
			v.text = map[string]bool{}
		}
		v.text[name] = true
		return
	}
	if len(deps) > 0 {
		if v.copies == nil {
			v.copies = map[string][]string{}
		}
		v.copies[name] = append(v.copies[name], deps...)
	}
}

func (v *vars) evaluated(name string, at *syntax.Word) { v.evals = append(v.evals, evalSite{name, at}) }

func (v *vars) integer(name string) {
	if v.integers == nil {
		v.integers = map[string]bool{}
	}
	v.integers[name] = true
}

func (v *vars) array(name string) {
	if v.arrays == nil {
		v.arrays = map[string]bool{}
	}
	v.arrays[name] = true
}

func (v *vars) reparse(name, src string) { v.reparsed = append(v.reparsed, reparseSite{name, src}) }

// holdingText returns the names the command line gives text (not bash's
// own, see mayHoldText), and the copies of such names or of bash's, at any
// remove: one pass over the copies, from the values back to the names
// that copy them.
func (v *vars) holdingText() map[string]bool {
	copiedBy := map[string][]string{}
	for name, srcs := range v.copies {
		for _, src := range srcs {
			copiedBy[src] = append(copiedBy[src], name)
		}
	}
	holds := map[string]bool{}
	var todo []string
	mark := func(name string) {
		if !holds[name] {
			holds[name] = true
			todo = append(todo, name)
		}
	}
	for name := range v.text {
		mark(name)
	}
	for src := range copiedBy {
		if bashText[src] {
			mark(src)
		}
	}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, copier := range copiedBy[name] {
			mark(copier)
		}
	}
	return holds
}

// mayHoldText reports whether name may hold text, given holds (see
// holdingText): given text by bash or by the command line, or a copy of
// such a name.
func mayHoldText(name string, holds map[string]bool) bool { return bashText[name] || holds[name] }

// verdict refuses the evaluations of names that may hold text, integer
// variables given text, and declarations bash parses again.
func (v *vars) verdict(a *analyser) {
	for _, r := range v.reparsed {
		if v.arrays[r.name] {
			a.reason(nil, false, reparseReason, r.src, r.name, r.name)
		}
	}
	holds := v.holdingText()
	for _, e := range v.evals {
		if mayHoldText(e.name, holds) {
			source := "the command line may give it any text"
			if bashText[e.name] && !v.text[e.name] {
				source = "bash gives it text the command line controls"
			}
			a.reason(nil, false, `cannot check %s: bash evaluates the value of %s there (as an expression or a variable name), and %s (a[$(cmd)] in it runs cmd); give %s only numbers (n=5, n=$((...))) or compare with [ "$%s" -gt 0 ]`,
				e.where(), e.name, source, e.name, e.name)
		}
	}
	names := make([]string, 0, len(v.integers))
	for n := range v.integers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if mayHoldText(n, holds) {
			a.reason(nil, false, "cannot check the integer variable %s (declare -i): bash evaluates every value given to it as an expression, and the command line may give it any text (a[$(cmd)] runs cmd); give it only numbers", n)
		}
	}
}

const reparseReason = "cannot check %s: %s is an array, and declare parses a value starting with ( again as a compound assignment, expanding what is in it; write the array as %s=(...)"

func (s *scope) reparse(src, name string) error {
	return s.unknown(reparseReason, src, name, name)
}

// value is what a command line gives a variable: a word of the command
// line, or text a builtin parses, or neither (only known at run time:
// read, printf -v, ...).
type value struct {
	word *syntax.Word
	text string // the value when lit
	lit  bool
	src  string // for messages (see source)
}

func (v value) source() string {
	switch {
	case v.src != "":
		return v.src
	case v.word != nil:
		return printWord(v.word)
	}
	return v.text
}

func wordValue(w *syntax.Word) value {
	if w == nil {
		return value{lit: true}
	}
	text, lit := unquoted(w)
	return value{word: w, text: text, lit: lit}
}

func textValue(text string) value { return value{text: text, lit: true} }

// runtimeValue is a value only known when the command runs.
func runtimeValue(what string) value { return value{src: what} }

// write checks that a value may be given to name and notes whether it is a
// number.
func (s *scope) write(name string, v value) error {
	if err := s.codeVar(name, v); err != nil {
		return err
	}
	s.analyser.assigned(name)
	numeric, deps := false, []string(nil)
	switch {
	case v.word != nil:
		numeric, deps = classify(v.word)
	case v.lit:
		numeric = numericText(v.text)
	}
	s.vars.assigned(name, numeric, deps)
	return nil
}

// codeVar checks a value given to a variable whose value bash, or a
// program, runs.
func (s *scope) codeVar(name string, v value) error {
	switch name {
	case "PS0", "PS1", "PS2", "PS4":
		if !v.lit || strings.ContainsAny(v.text, "$`\\") {
			return s.unknown("cannot check %s=%s: bash expands the prompt string, and $(...), `...` or a \\ escape in it can run commands; use plain text", name, v.source())
		}
	case "PROMPT_COMMAND":
		if !v.lit {
			return s.unknown("cannot check %s=%s: bash runs it as a command line, and it is not literal", name, v.source())
		}
		return s.nested(v.text, name)
	case "BASH_ENV", "ENV":
		if !v.lit {
			return s.unknown("cannot check %s=%s: a shell runs the file it names at startup, and it is not literal", name, v.source())
		}
		return s.scriptFile("a shell started with "+name+"="+v.text, arg{val: v.text, lit: true, src: v.source()}, nil)
	case "BASH_ALIASES":
		return s.unknown("cannot check an assignment to BASH_ALIASES: it defines aliases; use alias NAME=VALUE")
	case "BASH_CMDS":
		return s.unknown("cannot check an assignment to BASH_CMDS: it says which program a command name runs")
	case "BASHOPTS", "SHELLOPTS":
		return s.unknown("cannot check %s=%s: it sets the options of the shells started with it; pass options to the shell instead", name, v.source())
	case "CDPATH":
		s.dirs.chdir("", false, name+"="+v.source()) // cd NAME may go anywhere
	case "PATH":
		if s.dirs.path == "" {
			s.dirs.path = name + "=" + v.source() // bash NAME and source NAME search it
		}
	case "SHELL":
		if !v.lit {
			return s.unknown("cannot check SHELL=%s: programs such as script and flock run the shell it names", v.source())
		}
		s.program(v.text, "SHELL")
	}
	if strings.HasPrefix(name, "BASH_FUNC_") {
		return s.unknown("cannot check %s: bash imports it from the environment as a function; define the function in the command line instead", name)
	}
	return nil
}

// classify reports whether w always expands to an integer constant, and
// the names whose values it copies (x=$n is a number if n is). Once
// expanded, bash reads such text as one number, and evaluates no name in
// it, even next to other numbers.
func classify(w *syntax.Word) (bool, []string) {
	// A copied name may be unset: the text is checked with the copies
	// empty and with the copies a digit.
	var empty, one strings.Builder
	var deps []string
	var add func(parts []syntax.WordPart) bool
	add = func(parts []syntax.WordPart) bool {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				if strings.Contains(p.Value, `\`) {
					return false
				}
				empty.WriteString(p.Value)
				one.WriteString(p.Value)
			case *syntax.SglQuoted:
				if p.Dollar {
					return false
				}
				empty.WriteString(p.Value)
				one.WriteString(p.Value)
			case *syntax.DblQuoted:
				if p.Dollar || !add(p.Parts) {
					return false
				}
			case *syntax.ArithmExp:
				empty.WriteString("1")
				one.WriteString("1")
			case *syntax.ParamExp:
				d, ok := numericParam(p)
				if !ok {
					return false
				}
				if d == nil {
					empty.WriteString("1") // never empty: $? ${#x}
				}
				one.WriteString("1")
				deps = append(deps, d...)
			default:
				return false
			}
		}
		return true
	}
	if !add(w.Parts) {
		return false, nil
	}
	return numericText(empty.String()) && numericText(one.String()), deps
}

// numericParam reports whether a parameter expansion expands to a number
// when the names it returns hold numbers: ${#x}, $? $# $$ $!, $n, ${a[i]},
// ${n:-5}, ${n:=5}.
func numericParam(p *syntax.ParamExp) ([]string, bool) {
	if p.Param == nil || p.Excl || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Width || p.IsSet ||
		p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return nil, false
	}
	if p.Length {
		return nil, true
	}
	name := p.Param.Value
	switch name {
	case "?", "#", "$", "!":
		return nil, p.Exp == nil && p.Index == nil
	}
	if !validName(name) {
		return nil, false
	}
	deps := []string{name}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if p.Exp.Word != nil {
				numeric, d := classify(p.Exp.Word)
				if !numeric {
					return nil, false
				}
				deps = append(deps, d...)
			}
		default:
			return nil, false
		}
	}
	return deps, true
}

// numericText reports whether text is a number to bash's arithmetic, or
// nothing (0), or a brace expansion of numbers ({1..9}): a sign, then a
// digit, then the letters, digits, # @ and _ that bash reads as one
// number (base#digits, 0x1f), so that no name is evaluated in it.
func numericText(text string) bool {
	if text == "" || isBraceRange(text) {
		return true
	}
	if text[0] == '-' || text[0] == '+' {
		text = text[1:]
	}
	if text == "" || text[0] < '0' || text[0] > '9' {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '@' || c == '_') {
			return false
		}
	}
	return true
}

// isBraceRange reports whether text is {N..M} or {N..M..S}.
func isBraceRange(text string) bool {
	if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "}") {
		return false
	}
	parts := strings.Split(text[1:len(text)-1], "..")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if !isDigits(strings.TrimPrefix(p, "-")) {
			return false
		}
	}
	return true
}

// validName reports whether s is a shell variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// splitSubscript splits NAME[SUB] into NAME and SUB.
func splitSubscript(s string) (name, sub string, ok bool) {
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return s, "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

// varText checks a variable name a builtin reads from its argument (read,
// printf -v, unset, test -v, declare, wait -p, ...): NAME or
// NAME[SUBSCRIPT], whose subscript bash expands and evaluates.
func (s *scope) varText(a arg, what string) (string, error) {
	if !a.lit {
		return "", s.dynamic(a, what)
	}
	name, sub, hasSub := splitSubscript(a.val)
	if !validName(name) {
		return "", s.unknown("cannot check %s: %q is not a variable name", what, shorten(a.val))
	}
	if hasSub && sub != "@" && sub != "*" {
		if err := s.arithText(sub, func() string { return fmt.Sprintf("the subscript of %s in %s", a.val, what) }); err != nil {
			return "", err
		}
	}
	return name, nil
}

// assignment checks NAME=VALUE, NAME[i]=VALUE, NAME=(...) and NAME+=...,
// alone, before a command or as a declaration's argument. A subscript is
// checked as arithmetic even for an associative array: whether a name is
// one is only known at run time, and some of its subscripts are expanded
// twice.
func (s *scope) assignment(a *syntax.Assign) error {
	if a.Name == nil {
		return nil
	}
	name := a.Name.Value
	if a.Index != nil {
		s.vars.array(name)
		if !allIndex(a.Index) {
			if err := s.arithExpr(a.Index); err != nil {
				return err
			}
		}
	}
	if a.Array != nil {
		s.vars.array(name)
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				if err := s.arithExpr(e.Index); err != nil {
					return err
				}
			}
			if e.Value != nil {
				if err := s.write(name, wordValue(e.Value)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if a.Naked {
		return nil
	}
	return s.write(name, wordValue(a.Value))
}

// declArg is an argument of declare, local, export, readonly or typeset:
// an assignment the parser read, or a word the builtin parses itself.
type declArg struct {
	assign *syntax.Assign
	word   arg
}

func declArgs(assigns []*syntax.Assign) []declArg {
	out := make([]declArg, len(assigns))
	for i, a := range assigns {
		if a.Naked && a.Name == nil && a.Value != nil {
			out[i].word = wordArg(a.Value)
		} else {
			out[i].assign = a
		}
	}
	return out
}

func wordDeclArgs(args []arg) []declArg {
	out := make([]declArg, len(args))
	for i, a := range args {
		out[i].word = a
	}
	return out
}

// declFlags are the attributes a declaration gives.
type declFlags struct {
	integer, array, nameref, function bool
}

// declare checks a declaration builtin's arguments. Bash parses a quoted
// argument itself: 'x=($(cmd))' is a compound assignment for an array,
// and the name may have a subscript, which it evaluates.
func (s *scope) declare(variant string, args []declArg) error {
	var d declFlags
	i := 0
options:
	for ; i < len(args); i++ {
		if args[i].assign != nil {
			break
		}
		w := args[i].word
		if !w.lit {
			if w.assign {
				break // NAME=$x
			}
			return s.dynamic(w, "an argument of "+variant)
		}
		switch {
		case w.val == "--":
			i++
			break options
		case len(w.val) < 2 || (w.val[0] != '-' && w.val[0] != '+'):
			break options
		case w.val[0] == '+':
			continue
		}
		for _, c := range w.val[1:] {
			switch c {
			case 'i':
				d.integer = true
			case 'a', 'A':
				d.array = true
			case 'n':
				d.nameref = variant != "export" // export -n unexports
			case 'f', 'F':
				d.function = true
			}
		}
	}
	if d.nameref {
		return s.unknown("cannot check %s -n: through a name reference bash evaluates the name it holds, with its subscript; use the variable itself", variant)
	}
	for _, a := range args[i:] {
		var err error
		switch {
		case d.function:
			if a.assign == nil && !a.word.lit {
				err = s.dynamic(a.word, "a function name given to "+variant)
			}
		case a.assign != nil:
			err = s.declAssign(variant, a.assign, d)
		default:
			err = s.declWord(variant, a.word, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *scope) declAssign(variant string, a *syntax.Assign, d declFlags) error {
	if err := s.assignment(a); err != nil || a.Name == nil {
		return err
	}
	name := a.Name.Value
	s.noteAttrs(name, d)
	if a.Value == nil || a.Array != nil {
		return nil
	}
	if text, lit := unquoted(a.Value); !lit || strings.Contains(text, "(") {
		src := variant + " " + name + "=" + printWord(a.Value)
		if d.array {
			return s.reparse(src, name)
		}
		s.vars.reparse(name, src)
	}
	return nil
}

func (s *scope) declWord(variant string, w arg, d declFlags) error {
	what := "an argument of " + variant
	if !w.lit {
		if !w.assign {
			return s.dynamic(w, what)
		}
		// NAME=$x: the name is written, the value is only known at run time.
		name, _, _ := strings.Cut(w.word.Parts[0].(*syntax.Lit).Value, "=")
		name = strings.TrimSuffix(name, "+")
		if !validName(name) {
			return s.dynamic(w, what)
		}
		if d.array {
			return s.reparse(variant+" "+w.source(), name)
		}
		s.noteAttrs(name, d)
		s.vars.reparse(name, variant+" "+w.source())
		return s.write(name, runtimeValue(w.source()))
	}
	text, val, hasVal := strings.Cut(w.val, "=")
	text = strings.TrimSuffix(text, "+")
	name, err := s.varText(arg{val: text, lit: true, src: w.src, word: w.word}, what)
	if err != nil {
		return err
	}
	s.noteAttrs(name, d)
	if _, _, sub := splitSubscript(text); sub {
		s.vars.array(name)
	}
	if !hasVal {
		return nil
	}
	if strings.Contains(val, "(") {
		if d.array {
			return s.reparse(variant+" "+w.source(), name)
		}
		s.vars.reparse(name, variant+" "+w.source())
	}
	return s.write(name, textValue(val))
}

func (s *scope) noteAttrs(name string, d declFlags) {
	if d.integer {
		s.vars.integer(name)
	}
	if d.array {
		s.vars.array(name)
	}
}

// forVar notes the values a for or select loop gives its variable.
func (s *scope) forVar(n *syntax.ForClause) error {
	it, ok := n.Loop.(*syntax.WordIter)
	if !ok || it.Name == nil {
		return nil
	}
	name := it.Name.Value
	if n.Select || len(it.Items) == 0 {
		return s.write(name, runtimeValue("a value read at run time"))
	}
	for _, w := range it.Items {
		if err := s.write(name, wordValue(w)); err != nil {
			return err
		}
	}
	return nil
}

// allIndex reports whether a subscript is @ or * (every element).
func allIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	return ok && (lit.Value == "@" || lit.Value == "*")
}
