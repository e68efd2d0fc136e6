package bashcmd

import (
	"fmt"
	"strings"
	"sync"
)

// The options of the commands Classify knows are read as the programs
// read them: a command's options are declared once, as text (optionSet),
// and one parser (parseOptions) reads every command's arguments in the
// style its program uses.

// argMode says whether an option takes a value.
type argMode uint8

const (
	noArg  argMode = iota
	reqArg         // a value: attached (-oFILE, --output=FILE) or the next word
	optArg         // a value only when attached (-i.bak, --color=auto)
)

// effect is what an option does beyond reading the files it names and
// printing.
type effect uint8

const (
	fxNone      effect = iota
	fxWrite            // the value is a file it writes
	fxWriteDir         // the value is a directory it writes into
	fxRead             // the value is a file it reads
	fxData             // the value is data, or @FILE: a file it reads (curl -d @f)
	fxDir              // the value is the directory it works in (-C DIR)
	fxRun              // it runs a program: the value, or one it is configured with
	fxWrites           // it writes the files its operands name (sed -i)
	fxDeletes          // it deletes files (find -delete, rsync --delete)
	fxRecursive        // it works recursively (rm -r, chmod -R)
	fxNetwork          // it reaches the network
	fxEnv              // it reads or changes the environment
	fxGit              // it writes .git
	fxStop             // the words after it are not its options (go test -args)
	fxExec             // the words after it are a command it runs (fd -x)
)

var effectNames = map[string]effect{
	"write": fxWrite, "writedir": fxWriteDir, "read": fxRead, "data": fxData, "dir": fxDir,
	"run": fxRun, "writes": fxWrites, "deletes": fxDeletes, "rec": fxRecursive, "net": fxNetwork,
	"env": fxEnv, "git": fxGit, "stop": fxStop, "exec": fxExec,
}

// opt is one option of a command, under all its spellings.
type opt struct {
	name string // the first spelling, for messages: "--output", "-o"
	arg  argMode
	fx   effect
}

// optionSet is a command's options. It is declared as text: spellings
// separated by spaces, aliases by |, a one-letter alias a short option
// (-o), a longer one a long option (--output); a trailing = takes a
// value, [=] an optional one; :EFFECT says what it does (effectNames):
//
//	"o|output=:write s|stable T|temporary-directory=:writedir"
//
// The text is read when a command line first needs the set, not when the
// package is initialised: a program that reads no command line, or only
// a few, does not pay for the hundreds of declarations (a third of
// agentsh's start-up, when they were read at init). A set is safe for
// concurrent use.
type optionSet struct {
	decl string       // the declaration; or
	of   []*optionSet // the sets merged (with)

	once sync.Once
	t    optionTable
}

// optionTable is an optionSet read.
type optionTable struct {
	short map[byte]*opt
	long  map[string]*opt
	// numeric: -NUM is an option (head -20, nice -5).
	numeric bool
}

// declared is every optionSet made, for the test that reads them all
// (sets are made only at init and by loadTable, once).
var declared []*optionSet

// options declares an option set. A malformed declaration panics when
// the set is first read: the declarations are the package's own, and
// its tests read every one.
func options(decl string) *optionSet {
	s := &optionSet{decl: decl}
	declared = append(declared, s)
	return s
}

// noOptions is the table of a nil set.
var noOptions optionTable

// table returns the set, read; a nil set has no options.
func (s *optionSet) table() *optionTable {
	if s == nil {
		return &noOptions
	}
	s.once.Do(func() {
		if s.of != nil {
			s.t = merge(s.of)
		} else {
			s.t = parseDecl(s.decl)
		}
	})
	return &s.t
}

// parseDecl reads an option declaration.
func parseDecl(decl string) optionTable {
	s := optionTable{short: map[byte]*opt{}, long: map[string]*opt{}}
	for _, tok := range strings.Fields(decl) {
		if tok == "#" {
			s.numeric = true
			continue
		}
		spell, fxName, hasFx := strings.Cut(tok, ":")
		o := &opt{}
		if hasFx {
			fx, ok := effectNames[fxName]
			if !ok {
				panic(fmt.Sprintf("shell: option %q: unknown effect %q", tok, fxName))
			}
			o.fx = fx
		}
		switch {
		case strings.HasSuffix(spell, "[=]"):
			o.arg, spell = optArg, strings.TrimSuffix(spell, "[=]")
		case strings.HasSuffix(spell, "="):
			o.arg, spell = reqArg, strings.TrimSuffix(spell, "=")
		}
		for _, name := range strings.Split(spell, "|") {
			switch {
			case name == "":
				panic(fmt.Sprintf("shell: option %q: an empty spelling", tok))
			case len(name) == 1:
				if _, dup := s.short[name[0]]; dup {
					panic(fmt.Sprintf("shell: option -%s declared twice", name))
				}
				s.short[name[0]] = o
				if o.name == "" {
					o.name = "-" + name
				}
			default:
				if _, dup := s.long[name]; dup {
					panic(fmt.Sprintf("shell: option --%s declared twice", name))
				}
				s.long[name] = o
				if o.name == "" {
					o.name = "--" + name
				}
			}
		}
	}
	return s
}

// with returns a set holding the options of s and of more.
func (s *optionSet) with(more ...*optionSet) *optionSet {
	w := &optionSet{of: append([]*optionSet{s}, more...)}
	declared = append(declared, w)
	return w
}

// merge reads sets and puts their options together.
func merge(sets []*optionSet) optionTable {
	out := optionTable{short: map[byte]*opt{}, long: map[string]*opt{}}
	for _, x := range sets {
		t := x.table()
		for k, v := range t.short {
			out.short[k] = v
		}
		for k, v := range t.long {
			out.long[k] = v
		}
		out.numeric = out.numeric || t.numeric
	}
	return out
}

// style is how a program reads its options.
type style uint8

const (
	// gnu: getopt_long. Short options cluster (-uoFILE is -u -o FILE), a
	// long option may be any unique prefix of its name (--out for
	// --output), options may follow operands, and -- ends them.
	gnu style = iota
	// exact: as gnu, but only whole long names, no clusters, and options
	// stop at the first operand (git's own options before the command).
	exact
	// golang: Go's flag package. One or two dashes, whole names only
	// (-o, --o, -o=FILE), a flag that takes no value may still be given
	// one (-race=false), options stop at the first operand unless the
	// command reads them after its operands too (go test).
	golang
)

// used is an option found in a command's arguments.
type used struct {
	opt   *opt
	spelt string // as written: "--out", "-o" (the option, not its value)
	value Word   // the value, when the option has one
	has   bool   // whether it was given a value
}

// parsed is a command's arguments read against its options.
type parsed struct {
	opts     []used
	operands []Word
	// rest are the words after an fxStop or fxExec option.
	rest []Word
	// unknown are the options the set does not declare, as written; an
	// ambiguous prefix is one of them. After an unknown option, the words
	// that follow cannot be told apart (it may take the next one), so
	// they are read as if it took none.
	unknown []string
	// maybeOption are words that are not static and may expand to an
	// option ($x, *.txt).
	maybeOption []Word
}

// has reports whether an option with effect fx was given.
func (p *parsed) has(fx effect) bool {
	for _, u := range p.opts {
		if u.opt.fx == fx {
			return true
		}
	}
	return false
}

// given reports whether one of the options named was given (by their
// first spellings, as opt.name).
func (p *parsed) given(names ...string) bool {
	for _, u := range p.opts {
		for _, n := range names {
			if u.opt.name == n {
				return true
			}
		}
	}
	return false
}

// value returns the value of the last given of the options named.
func (p *parsed) value(names ...string) (Word, bool) {
	for i := len(p.opts) - 1; i >= 0; i-- {
		for _, n := range names {
			if p.opts[i].opt.name == n && p.opts[i].has {
				return p.opts[i].value, true
			}
		}
	}
	return Word{}, false
}

// parseOptions reads args (the words after the command name) against set
// in the given style; permute lets options follow operands.
func parseOptions(args []Word, options *optionSet, st style, permute bool) *parsed {
	p := &parsed{}
	set := options.table()
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			if mayBeOption(w.Text) {
				p.maybeOption = append(p.maybeOption, w)
			}
			p.operands = append(p.operands, w)
			if !permute {
				p.operands = append(p.operands, args[i+1:]...)
				return p
			}
			continue
		}
		v := w.Text
		switch {
		case v == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case len(v) < 2 || v[0] != '-':
			p.operands = append(p.operands, w)
			if !permute {
				p.operands = append(p.operands, args[i+1:]...)
				return p
			}
			continue
		}
		next := func() (Word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return Word{}, false
		}
		var u used
		ok := false
		switch {
		case st == golang:
			u, ok = p.goFlag(v, set, next)
		case strings.HasPrefix(v, "--"):
			u, ok = p.longOption(v, set, st == gnu, next)
		case set.numeric && isDigits(v[1:]):
			continue
		case st == exact:
			u, ok = p.exactShort(v, set, next)
		default:
			if !p.cluster(v, set, next) {
				continue
			}
			if p.stop(args[i+1:]) {
				return p
			}
			continue
		}
		if !ok {
			continue
		}
		p.opts = append(p.opts, u)
		if p.stop(args[i+1:]) {
			return p
		}
	}
	return p
}

// stop ends the options after an fxStop or fxExec option: the words left
// are rest.
func (p *parsed) stop(left []Word) bool {
	if fx := p.opts[len(p.opts)-1].opt.fx; fx == fxStop || fx == fxExec {
		p.rest = left
		return true
	}
	return false
}

// longOption reads --name, --name=value and --name value; with prefixes
// a unique prefix of a name is the name.
func (p *parsed) longOption(v string, set *optionTable, prefixes bool, next func() (Word, bool)) (used, bool) {
	name, val, hasVal := strings.Cut(v[2:], "=")
	o := set.long[name]
	if o == nil && prefixes {
		o = uniquePrefix(set.long, name)
	}
	if o == nil || o.arg == noArg && hasVal {
		p.unknown = append(p.unknown, v)
		return used{}, false
	}
	return withValue(o, "--"+name, val, hasVal, next), true
}

// uniquePrefix returns the option that name is a prefix of, when only one
// is (aliases count once), as getopt_long reads abbreviations.
func uniquePrefix(long map[string]*opt, name string) *opt {
	if name == "" {
		return nil
	}
	var found *opt
	for full, o := range long {
		if strings.HasPrefix(full, name) {
			if found != nil && found != o {
				return nil // ambiguous
			}
			found = o
		}
	}
	return found
}

// cluster reads a cluster of short options (-rf, -uoFILE, -n5); false
// when a letter is unknown (the rest of the cluster is then not read).
func (p *parsed) cluster(v string, set *optionTable, next func() (Word, bool)) bool {
	any := false
	for j := 1; j < len(v); j++ {
		o := set.short[v[j]]
		if o == nil {
			p.unknown = append(p.unknown, "-"+v[j:])
			return any
		}
		u := used{opt: o, spelt: "-" + string(v[j])}
		switch o.arg {
		case reqArg:
			if j+1 < len(v) {
				u.value, u.has = Word{Text: v[j+1:], Static: true}, true
			} else {
				u.value, u.has = next()
			}
			p.opts = append(p.opts, u)
			return true
		case optArg:
			if j+1 < len(v) {
				u.value, u.has = Word{Text: v[j+1:], Static: true}, true
			}
			p.opts = append(p.opts, u)
			return true
		}
		p.opts = append(p.opts, u)
		any = true
		if o.fx == fxStop || o.fx == fxExec {
			return true
		}
	}
	return any
}

// exactShort reads one short option (-C DIR, -CDIR, -p) without clusters.
func (p *parsed) exactShort(v string, set *optionTable, next func() (Word, bool)) (used, bool) {
	o := set.short[v[1]]
	if o == nil || len(v) > 2 && o.arg == noArg {
		p.unknown = append(p.unknown, v)
		return used{}, false
	}
	u := used{opt: o, spelt: v[:2]}
	switch {
	case len(v) > 2:
		u.value, u.has = Word{Text: v[2:], Static: true}, true
	case o.arg == reqArg:
		u.value, u.has = next()
	}
	return u, true
}

// goFlag reads a flag as Go's flag package does: -name, --name,
// -name=value, and -name value for flags that take one.
func (p *parsed) goFlag(v string, set *optionTable, next func() (Word, bool)) (used, bool) {
	name, val, hasVal := strings.Cut(strings.TrimPrefix(v[1:], "-"), "=")
	o := set.long[name]
	if o == nil && len(name) == 1 {
		o = set.short[name[0]]
	}
	if o == nil {
		p.unknown = append(p.unknown, v)
		return used{}, false
	}
	return withValue(o, "-"+name, val, hasVal, next), true
}

// withValue is option o as spelt, with its value: the one given after =
// (hasVal), or for an option that takes one, the next word.
func withValue(o *opt, spelt, val string, hasVal bool, next func() (Word, bool)) used {
	u := used{opt: o, spelt: spelt}
	switch {
	case hasVal:
		u.value, u.has = Word{Text: val, Static: true}, true
	case o.arg == reqArg:
		u.value, u.has = next()
	}
	return u
}

// mayBeOption reports whether a word that is not static may expand to
// something that starts with a dash: a variable, a substitution or a
// glob at its start ("$x", *.txt), but not src/*.go or "x$y".
func mayBeOption(text string) bool {
	if strings.HasSuffix(text, foundSuffix) {
		return false // find gives paths that start with the place it searches
	}
	t := strings.TrimLeft(text, `"'`)
	if t == "" {
		return true
	}
	switch t[0] {
	case '$', '`', '*', '?', '[', '{', '-':
		return true
	}
	return false
}
