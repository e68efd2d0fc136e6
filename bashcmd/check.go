package bashcmd

import (
	"fmt"
	"strings"
)

// opKind says what a command's operands are.
type opKind uint8

const (
	opRead      opKind = iota // files it reads
	opNames                   // names it lists or looks at, without reading them (ls, stat)
	opText                    // not files (echo, test)
	opPattern                 // a pattern unless -e or -f gives one, then files it reads (grep)
	opWriteAll                // files it writes (tee, touch, mkdir)
	opWriteLast               // files it reads, then the one it writes (cp, ln, install)
	opMove                    // files it moves, then where (mv)
	opDelete                  // files it deletes (rm)
	opMode                    // a mode or an owner, then files it changes (chmod, chown)
	opInOut                   // a file it reads, then one it writes (uniq, split)
	opCommand                 // a command it runs, which the analysis lists on its own
)

// spec is a row of the table: what a command is and how to read it.
type spec struct {
	// safe: with known options that are all harmless, it only reads the
	// files it names and prints.
	safe bool
	// opts are its options (nil: not read, its words are all operands).
	opts  *optionSet
	style style
	// strict: options stop at the first operand (no GNU permutation).
	strict   bool
	operands opKind
	// does is what it does by its nature when it is not safe.
	does *nature
	// subs are its subcommands by name, the first operand after its own
	// options; "" is the entry for no subcommand, "*" for any other.
	subs map[string]*spec
	// configured: it runs programs its configuration names, read from
	// the directory it works in (git): that directory must be inside.
	configured bool
	// check reads what the options and operands alone do not say.
	check func(k *check)
}

// nature is a finding a command always has.
type nature struct {
	class        Class
	kind, reason string
}

// check is the classification of one command: the table's reading of its
// words, and the findings.
type check struct {
	cl    *classifier
	index int // in Analysis.Commands, or -1 for a redirection
	cmd   *Command
	label string // the command as reasons show it
	sub   string
	sp    *spec
	p     *parsed
	// dir is where it works (-C DIR), nil for the command line's
	// directories.
	dir       []loc
	recursive bool
}

func (k *check) find(class Class, kind, format string, args ...any) {
	k.cl.add(Finding{Class: class, Kind: kind, Command: k.index, Reason: k.label + ": " + fmt.Sprintf(format, args...)})
}

func (k *check) sandbox(kind, format string, args ...any) { k.find(Sandbox, kind, format, args...) }
func (k *check) leaves(kind, format string, args ...any)  { k.find(Leaves, kind, format, args...) }
func (k *check) destroys(format string, args ...any) {
	k.find(Catastrophic, KindDestroys, format, args...)
}

// run reads args (the words after the command name or subcommand) with
// sp.
func (k *check) run(sp *spec, args []Word) {
	p := &parsed{operands: args}
	if sp.opts != nil {
		p = parseOptions(args, sp.opts, sp.style, !sp.strict)
	}
	if sp.subs != nil {
		k.options(sp, p)
		name := ""
		if len(p.operands) > 0 {
			if !p.operands[0].Static {
				k.sandbox(KindUnknown, "cannot tell which %s command %s is", k.cmd.Name, p.operands[0].Text)
				return
			}
			name = p.operands[0].Text
		}
		sub, ok := sp.subs[name]
		if !ok {
			sub = sp.subs["*"]
		}
		if sub == nil {
			k.sandbox(KindProgram, "runs %s %s, which is not on the list of known-safe commands", k.cmd.Name, name)
			return
		}
		if name != "" {
			k.sub = strings.TrimPrefix(k.sub+" "+name, " ")
			if k.index >= 0 {
				k.cl.out.Commands[k.index].Sub = k.sub
			}
			p.operands = p.operands[1:]
		}
		k.run(sub, p.operands)
		return
	}
	k.sp, k.p = sp, p
	k.options(sp, p)
	for _, u := range p.unknown {
		k.sandbox(KindUnknown, "%s is not an option the list of known-safe commands knows for %s", u, k.name())
	}
	if len(p.maybeOption) > 0 && sp.opts.risky() {
		k.sandbox(KindUnknown, "%s may expand to an option of %s", p.maybeOption[0].Text, k.name())
	}
	k.operands(sp, p)
	if p.has(fxWrites) {
		for _, w := range p.operands {
			k.write(w)
		}
	}
	if sp.check != nil {
		sp.check(k)
	}
	// What it does by its nature comes last: the reasons above say more.
	if sp.does != nil {
		k.find(sp.does.class, sp.does.kind, "%s", sp.does.reason)
	}
}

// name is the command with its subcommand: "git diff".
func (k *check) name() string {
	if k.sub != "" {
		return k.cmd.Name + " " + k.sub
	}
	return k.cmd.Name
}

// risky reports whether any option does more than read and print.
func (s *optionSet) risky() bool {
	t := s.table()
	for _, o := range t.short {
		if o.risky() {
			return true
		}
	}
	for _, o := range t.long {
		if o.risky() {
			return true
		}
	}
	return false
}

func (o *opt) risky() bool {
	return o.fx != fxNone && o.fx != fxRead && o.fx != fxData && o.fx != fxDir
}

// options reads the effects of the options given.
func (k *check) options(sp *spec, p *parsed) {
	for _, u := range p.opts {
		if u.opt.fx == fxDir && u.has {
			k.dir = k.where(shapeOf(u.value))
			k.workIn(sp, u.spelt)
		}
	}
	for _, u := range p.opts {
		val := ""
		if u.has {
			val = " " + u.value.Text
		}
		switch u.opt.fx {
		case fxWrite:
			if u.has {
				k.write(u.value)
			}
		case fxWriteDir:
			if u.has {
				k.write(Word{Text: strings.TrimSuffix(u.value.Text, "/") + "/", Static: u.value.Static})
			}
		case fxRead:
			if u.has {
				k.read(u.value)
			}
		case fxData:
			if u.has {
				if f, ok := dataFile(u.value.Text); ok {
					k.read(Word{Text: f, Static: u.value.Static})
				}
			}
		case fxRun:
			k.sandbox(KindOption, "%s%s runs a program", u.spelt, val)
		case fxExec:
			k.sandbox(KindOption, "%s runs %s on what it finds", u.spelt, wordsText(p.rest))
		case fxRecursive:
			k.recursive = true
		case fxNetwork:
			k.leaves(KindNetwork, "%s%s reaches the network", u.spelt, val)
		case fxEnv:
			k.sandbox(KindEnvironment, "%s%s reads or changes the environment", u.spelt, val)
		case fxGit:
			k.leaves(KindProtected, "%s writes .git, which the sandbox keeps read-only", u.spelt)
		}
	}
}

// workIn judges the directory a command is told to work in (-C DIR).
func (k *check) workIn(sp *spec, spelt string) {
	for _, l := range k.dir {
		switch {
		case !l.outside():
		case sp.configured:
			k.sandbox(KindOption, "%s %s runs it in %s, whose configuration may run programs", spelt, l, l)
		case !sp.safe && sp.subs == nil:
			k.leaves(KindOutside, "%s %s works in %s, outside the working directory", spelt, l, l)
		default:
			continue
		}
		return
	}
}

// dataFile returns the file a curl-style data value reads: @FILE, or
// NAME=@FILE / NAME=<FILE (a form field), up to a ;.
func dataFile(v string) (string, bool) {
	if f, ok := strings.CutPrefix(v, "@"); ok {
		return f, f != "-" && f != ""
	}
	for _, sep := range []string{"=@", "=<", "@"} {
		if i := strings.Index(v, sep); i >= 0 {
			f, _, _ := strings.Cut(v[i+len(sep):], ";")
			return f, f != "-" && f != ""
		}
	}
	return "", false
}

// operands reads the operands as spec says.
func (k *check) operands(sp *spec, p *parsed) {
	ops := p.operands
	switch sp.operands {
	case opRead:
		k.reads(ops)
	case opPattern:
		if !p.given("-e", "-f") && len(ops) > 0 {
			ops = ops[1:]
		}
		k.reads(ops)
	case opWriteAll:
		for _, w := range ops {
			k.write(w)
		}
	case opWriteLast:
		if p.has(fxWriteDir) || len(ops) < 2 {
			k.reads(ops)
			return
		}
		k.reads(ops[:len(ops)-1])
		k.write(ops[len(ops)-1])
	case opMove:
		if !p.has(fxWriteDir) {
			if len(ops) < 2 {
				return
			}
			k.write(ops[len(ops)-1])
			ops = ops[:len(ops)-1]
		}
		for _, w := range ops {
			k.remove(w, true)
		}
	case opDelete:
		for _, w := range ops {
			k.remove(w, k.recursive)
		}
	case opMode:
		if !p.given("--reference") && len(ops) > 0 {
			ops = ops[1:]
		}
		for _, w := range ops {
			k.change(w)
		}
	case opInOut:
		if len(ops) > 0 {
			k.read(ops[0])
		}
		if len(ops) > 1 {
			k.write(ops[1])
		}
	}
}

func (k *check) reads(ws []Word) {
	for _, w := range ws {
		k.read(w)
	}
}

// where resolves a path shape where the command works.
func (k *check) where(s shape) []loc {
	if s.root == rootFound && k.index >= 0 {
		if j := k.cl.wrapper(k.index); j >= 0 {
			if found, ok := k.cl.found[j]; ok {
				return found
			}
		}
	}
	if k.dir != nil && s.root == rootRel {
		out := make([]loc, 0, len(k.dir))
		for _, b := range k.dir {
			out = append(out, k.cl.pl.join(b, s.path, s.below))
		}
		return out
	}
	return k.cl.pl.resolve(s)
}

// read checks a file the command reads: one that may hold secrets.
func (k *check) read(w Word) {
	if w.Static && (w.Text == "-" || w.Text == "") {
		return
	}
	s := shapeOf(w)
	if s.root == rootAbs && strings.HasPrefix(s.path, "proc/") && strings.HasSuffix(s.path, "/environ") {
		k.sandbox(KindEnvironment, "%s is the environment of a process, which may hold secrets", w.Text)
	}
	k.secret(w, s)
}

// secret finds a file that may hold secrets, named or matched by a glob.
func (k *check) secret(w Word, s shape) {
	sec := k.cl.secrets
	if len(sec.patterns) == 0 {
		return
	}
	if s.path != "" {
		name := s.path
		switch s.root {
		case rootAbs:
			name = "/" + name
		case rootHome, rootUser:
			name = "~/" + name
		}
		if sec.match(name) {
			k.sandbox(KindSecret, "%s may hold secrets", w.Text)
			return
		}
	}
	for _, g := range s.globs {
		if sec.mayMatch(g) {
			k.sandbox(KindPattern, "%s may match a file that holds secrets", w.Text)
			return
		}
	}
}

// protected are the names the workspace sandbox keeps read-only wherever
// they are in the working directory.
var protected = []string{".git", ".agentsh", ".claude", ".codex", ".gemini"}

func isProtected(rel string) (string, bool) {
	for _, seg := range strings.Split(rel, "/") {
		if contains(protected, seg) {
			return seg, true
		}
	}
	return "", false
}

// write checks a file the command writes (a directory when it ends in
// /: what it writes into it).
func (k *check) write(w Word) {
	if w.Static && w.Text == "-" {
		return
	}
	s := shapeOf(w)
	if s.root == rootAbs && !s.below && k.device("/"+s.path, "writes") {
		return
	}
	k.secret(w, s)
	for _, l := range k.where(s) {
		if l.kind == absLoc && k.device(l.path, "writes") {
			continue
		}
		k.changeAt(l, w.Text, KindWrites, "writes")
	}
}

// changeAt judges a change (verb: writes, deletes, changes) to the place
// l, which text names: one the command line does not fix runs in the
// sandbox; one outside the working directory, or protected in it, must
// leave it; any other runs in the sandbox, where kind says what it does.
func (k *check) changeAt(l loc, text, kind, verb string) {
	switch {
	case l.kind == unknownLoc:
		k.sandbox(kind, "%s %s, which the command line does not fix", verb, text)
	case l.outside():
		k.leaves(KindOutside, "%s %s, outside the working directory", verb, l)
	default:
		if seg, ok := isProtected(l.path); ok {
			k.leaves(KindProtected, "%s %s, in %s, which the sandbox keeps read-only", verb, l, seg)
		} else {
			k.sandbox(kind, "%s %s", verb, l)
		}
	}
}

// device judges a write to a file in /dev, /proc or /sys; false when the
// path is none of those.
func (k *check) device(p, verb string) bool {
	switch deviceOf(p) {
	case harmlessDev:
		return true
	case networkDev:
		k.leaves(KindNetwork, "%s to the network connection %s", verb, p)
		return true
	case diskDev:
		k.destroys("%s straight to %s, a disk or the memory of the machine", verb, p)
		return true
	case otherDev:
		k.leaves(KindOutside, "%s %s, outside the working directory", verb, p)
		return true
	}
	return false
}

// remove checks a file the command deletes (moves away, when it moves
// it), recursively or not.
func (k *check) remove(w Word, recursive bool) {
	s := shapeOf(w)
	if s.root == rootAbs && !s.below && deviceOf("/"+s.path) == diskDev {
		k.destroys("destroys %s, a disk or the memory of the machine", "/"+s.path)
		return
	}
	k.secret(w, s)
	k.removeAt(w.Text, k.where(s), recursive)
}

// removeAt judges deleting what text names, at the places locs.
func (k *check) removeAt(text string, locs []loc, recursive bool) {
	for _, l := range locs {
		if recursive && k.cl.pl.vital(l) {
			k.destroys("deletes %s recursively", l)
		} else {
			k.changeAt(l, text, KindDeletes, "deletes")
		}
	}
}

// change checks a file whose mode or owner the command changes.
func (k *check) change(w Word) {
	s := shapeOf(w)
	for _, l := range k.where(s) {
		if k.recursive && k.cl.pl.vital(l) {
			k.destroys("changes everything in %s recursively", l)
		} else {
			k.changeAt(l, w.Text, KindWrites, "changes")
		}
	}
}

// here judges what the command writes or deletes in the directory it
// works in (git clean, a build): verb names it.
func (k *check) here(kind string, verb string) {
	where := k.dir
	if where == nil {
		where = k.cl.pl.bases
	}
	for _, l := range where {
		switch {
		case l.kind == unknownLoc:
			k.sandbox(kind, "%s in a directory the command line does not fix", verb)
		case l.outside():
			k.leaves(KindOutside, "%s in %s, outside the working directory", verb, l)
		default:
			k.sandbox(kind, "%s in %s", verb, l)
		}
	}
}

func wordsText(ws []Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Text
	}
	s := strings.Join(parts, " ")
	if s == "" {
		return "a command"
	}
	return shorten(s)
}
