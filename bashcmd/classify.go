package bashcmd

import (
	"fmt"
	"path"
	"strings"
)

// Class says where a command line may run, from what its text says it
// does. The classes are ordered: a command line is in the strongest class
// of its commands.
type Class int

const (
	// Safe: every command is on the known-safe table (it reads files and
	// prints), with options that are all known and harmless: it may run
	// anywhere.
	Safe Class = iota
	// Sandbox: anything else that stays in the working directory: builds,
	// tests, interpreters, programs not on the table, deletes and writes
	// inside, what the text cannot tell. It runs confined, in the
	// workspace sandbox.
	Sandbox
	// Leaves: it needs what the workspace sandbox does not give: the
	// network, writes outside the working directory or to what it keeps
	// read-only (.git), another user, the system's services. Running it
	// means leaving the sandbox, which a person decides.
	Leaves
	// Catastrophic: it destroys the system or a home directory (rm -rf /,
	// mkfs, writes to disks, fork bombs, kill -9 -1, shutdown): it never
	// runs.
	Catastrophic
)

var classNames = []string{"safe", "sandbox", "leaves", "catastrophic"}

// String returns "safe", "sandbox", "leaves" or "catastrophic".
func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// The kinds of findings: why a command is not known safe.
const (
	// Sandbox findings.
	KindProgram     = "program"     // it runs programs or code by its nature (make, python, a script)
	KindOption      = "option"      // an option makes it run a program (rg --pre, go build -toolexec)
	KindUnknown     = "unknown"     // an option, a word or a part of the line that is not known
	KindBounds      = "bounds"      // the line is past the analysis' bounds (see Parse), as no real one is
	KindEnvironment = "environment" // it sets or reads variables that change what programs do
	KindWrites      = "writes"      // it writes files in the working directory
	KindDeletes     = "deletes"     // it deletes files in the working directory
	KindSecret      = "secret"      // it names a file that may hold secrets
	KindPattern     = "pattern"     // a pattern of it may match a file that holds secrets
	// Leaves findings.
	KindNetwork   = "network"   // it reaches the network
	KindOutside   = "outside"   // it writes or deletes outside the working directory
	KindProtected = "protected" // it writes .git or an agent's folder, which the sandbox keeps read-only
	KindUser      = "user"      // it runs as another user
	KindSystem    = "system"    // it changes the system outside the working directory (services, packages, cron)
	// Catastrophic findings.
	KindDestroys = "destroys"
)

// Finding is one reason a command line is not known safe.
type Finding struct {
	Class Class
	// Kind is one of the Kind constants.
	Kind string
	// Reason is lowercase and names the command and what it does:
	// "rm -rf /: deletes / recursively".
	Reason string
	// Command is the index in Analysis.Commands of the command it is
	// about, or -1 for the command line (a redirection, a variable, a
	// part the analysis cannot read).
	Command int
}

// CommandClass is what Classify found of one command.
type CommandClass struct {
	// Sub is the subcommand the table read the command by (git diff:
	// "diff"; go mod download: "mod download"), or "".
	Sub   string
	Class Class
}

// Classification is what Classify found in a command line.
type Classification struct {
	Analysis *Analysis
	// Class is the strongest class of the findings; Safe when there are
	// none.
	Class Class
	// Commands are parallel to Analysis.Commands.
	Commands []CommandClass
	// Findings are in the order of the commands, then the redirections,
	// then the command line as a whole.
	Findings []Finding
}

// Reason returns the reason of the first finding of the strongest class,
// or "" when the command line is safe.
func (c *Classification) Reason() string {
	for _, f := range c.Findings {
		if f.Class == c.Class {
			return f.Reason
		}
	}
	return ""
}

// Kinds returns the kinds of the findings, each once, in order.
func (c *Classification) Kinds() []string {
	var out []string
	for _, f := range c.Findings {
		if !contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	return out
}

// Where is where a command line runs, for Classify.
type Where struct {
	// Workdir is the working directory, absolute; "" when not known.
	// Paths under it are inside; ".." climbs from it.
	Workdir string
	// Dir is the directory the command line starts in, relative to
	// Workdir ("" or "." for Workdir itself), or absolute.
	Dir string
	// Home is the home directory, absolute; "" when not known (~ and
	// $HOME are still known to be in it).
	Home string
	// Secrets are the glob patterns of files that may hold secrets, read
	// as a .gitignore reads them (.env, .env.*, !.env.example, *.pem,
	// .ssh/); nil: none.
	Secrets []string
}

// Classify reads command with Parse and says, command by command and for
// the whole line, whether it is known safe, runs in the sandbox, must
// leave it, or is catastrophic, and why. Like Parse it runs nothing and
// is safe for concurrent use.
//
// A command is safe only when it is on the known-safe table and every
// option it is given is one the table knows as harmless, read as the
// program reads it: clustered short options (-uoFILE is -u -o FILE), any
// unique prefix of a long option (--out is --output), --opt=value,
// options after operands. The table is a reading of the programs'
// options, not of what they do at run time: a program that reads its
// configuration from a file the command line does not name is not seen.
// That is what the sandbox is for.
func Classify(command string, w Where) *Classification {
	return Parse(command).Classify(w)
}

// Classify classifies the commands of a; see Classify.
func (a *Analysis) Classify(w Where) *Classification {
	cl := &classifier{a: a, secrets: newSecrets(w.Secrets)}
	cl.out = &Classification{Analysis: a, Commands: make([]CommandClass, len(a.Commands))}
	cl.pl = &place{workdir: cleanAbs(w.Workdir), home: cleanAbs(w.Home)}
	start := loc{kind: inWork, path: "."}
	if d := w.Dir; d != "" && d != "." {
		if path.IsAbs(d) {
			start = cl.pl.abs(d, false)
		} else {
			start = cl.pl.join(start, d, false)
		}
	}
	cl.pl.bases = []loc{start}
	cl.directories()
	for i := range a.Commands {
		cl.command(i)
	}
	for _, r := range a.Redirects {
		cl.redirect(r)
	}
	cl.line()
	return cl.out
}

func cleanAbs(p string) string {
	if p == "" || !path.IsAbs(p) {
		return ""
	}
	return path.Clean(p)
}

// classifier is one Classify call.
type classifier struct {
	a       *Analysis
	out     *Classification
	pl      *place
	secrets *secrets
	// found are the places find commands search, by command index: the
	// files its -exec commands get are below them.
	found map[int][]loc
	// last is the latest command at each depth of Via, to find the
	// wrapper that runs a command.
	last map[int]int
}

func (cl *classifier) add(f Finding) {
	cl.out.Findings = append(cl.out.Findings, f)
	if f.Class > cl.out.Class {
		cl.out.Class = f.Class
	}
	if f.Command >= 0 && f.Class > cl.out.Commands[f.Command].Class {
		cl.out.Commands[f.Command].Class = f.Class
	}
}

// directories gathers the directories the command line may run its
// commands in: cd, pushd and popd, env --chdir, sudo --chdir, and the
// directories find -execdir runs its commands in. The commands are not
// followed in order (a loop, a subshell or a function may run them in
// any): every relative path is taken as relative to each of them.
func (cl *classifier) directories() {
	for i := range cl.a.Commands {
		c := &cl.a.Commands[i]
		args := c.Args[1:]
		var to []Word
		unknown := false
		switch c.Name {
		case "cd", "pushd":
			p := parseOptions(args, cdOptions, gnu, false)
			switch {
			case len(p.operands) == 0 && c.Name == "cd":
				to = []Word{{Text: "~"}}
			case len(p.operands) == 0:
				unknown = true // pushd swaps the top two directories
			case p.operands[0].Static && (p.operands[0].Text == "-" || strings.HasPrefix(p.operands[0].Text, "+") || strings.HasPrefix(p.operands[0].Text, "-")):
				unknown = true
			default:
				to = p.operands[:1]
			}
		case "popd":
			unknown = true
		case "env":
			p := parseOptions(args, envOptions, gnu, false)
			if w, ok := p.value("-C"); ok {
				to = []Word{w}
			}
		case "sudo":
			p := parseOptions(args, sudoOptions, gnu, false)
			if w, ok := p.value("-D"); ok {
				to = []Word{w}
			}
		case "find":
			f := readFind(args)
			if f.execdir {
				for _, s := range f.start {
					for _, l := range cl.pl.resolve(shapeOf(s)) {
						l.below = true
						cl.base(l)
					}
				}
			}
		}
		if unknown {
			cl.base(loc{kind: unknownLoc})
		}
		for _, w := range to {
			for _, l := range cl.pl.resolve(shapeOf(w)) {
				cl.base(l)
			}
		}
	}
}

// maxBases bounds the directories a command line may run commands in: a
// line that changes to more is taken as running them anywhere (each cd
// is resolved against every directory before it, so cd a; cd b; ...
// would otherwise double them each time).
const maxBases = 32

// base adds a directory the command line may run commands in.
func (cl *classifier) base(l loc) {
	for _, b := range cl.pl.bases {
		if b == l {
			return
		}
	}
	// A directory named from the root or home does not multiply: it is
	// kept past the bound, up to twice it.
	fixed := l.kind == absLoc || l.kind == homeLoc
	if len(cl.pl.bases) >= maxBases && !fixed || len(cl.pl.bases) >= 2*maxBases {
		l = loc{kind: unknownLoc}
		for _, b := range cl.pl.bases {
			if b == l {
				return
			}
		}
	}
	cl.pl.bases = append(cl.pl.bases, l)
}

// cdOptions are the options of cd and pushd.
var cdOptions = options("L P e @ n")

// redirect classifies a redirection: a file written, or read.
func (cl *classifier) redirect(r Redirect) {
	if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" || r.Op == "<&" || r.Op == ">&" && !r.Write {
		return
	}
	c := &check{cl: cl, index: -1, label: r.Op + " " + r.Target.Text}
	if r.Write {
		c.write(r.Target)
		return
	}
	c.read(r.Target)
}

// line classifies what belongs to the whole command line: the reasons the
// analysis could not read it, functions that call themselves, and the
// variables it sets that change what programs do.
func (cl *classifier) line() {
	for _, f := range cl.a.Functions {
		if f.Recursive {
			cl.add(Finding{Class: Catastrophic, Kind: KindDestroys, Command: -1,
				Reason: fmt.Sprintf("function %s calls itself without end, a fork bomb", f.Name)})
		}
	}
	for _, u := range cl.a.Unknown {
		kind := KindUnknown
		if strings.Contains(u.Reason, "cannot read ") {
			kind = KindBounds // the analysis' own words for its bounds (cannotRead)
		}
		cl.add(Finding{Class: Sandbox, Kind: kind, Command: -1, Reason: u.Reason})
	}
	for _, name := range cl.a.Assigned {
		if !harmlessVariable(name) {
			cl.add(Finding{Class: Sandbox, Kind: KindEnvironment, Command: -1,
				Reason: fmt.Sprintf("the command line sets %s, which may change what the programs it starts do", name)})
		}
	}
}

// harmlessVariables may be set without changing what a program runs or
// reads: locales, time zones, colours, the terminal's size, and the
// variables of the shell's own loops.
var harmlessVariables = map[string]bool{
	"LANG": true, "LANGUAGE": true, "LC_ALL": true, "TZ": true, "NO_COLOR": true, "FORCE_COLOR": true,
	"CLICOLOR": true, "CLICOLOR_FORCE": true, "COLUMNS": true, "LINES": true, "TERM": true, "COLORTERM": true,
	"IFS": true, "OPTIND": true, "OPTARG": true, "REPLY": true,
}

// harmlessVariable reports whether setting name changes nothing a
// program does: a locale (LC_*), one of harmlessVariables, or a name in
// lowercase, which programs do not read from the environment (but the
// proxies, which they do).
func harmlessVariable(name string) bool {
	if harmlessVariables[name] || strings.HasPrefix(name, "LC_") {
		return true
	}
	switch name {
	case "http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy":
		return false
	}
	return strings.ToLower(name) == name
}

// command classifies the command i.
func (cl *classifier) command(i int) {
	c := &cl.a.Commands[i]
	if cl.last == nil {
		cl.last = map[int]int{}
	}
	cl.last[len(c.Via)] = i
	k := &check{cl: cl, index: i, cmd: c, label: commandText(c)}
	switch {
	case c.Name == "":
		// The analysis says why it cannot tell (Analysis.Unknown).
		cl.out.Commands[i].Class = Sandbox
		return
	case c.Function:
		return // its body's commands are listed on their own
	}
	sp := lookup(c.Name)
	if sp == nil {
		k.sandbox(KindProgram, "runs %s, which is not on the list of known-safe commands", c.Name)
		return
	}
	k.run(sp, c.Args[1:])
}

// lookup returns the table's entry for a command name, also for the
// names made of a known one (mkfs.ext4, python3.12).
func lookup(name string) *spec {
	loadTable()
	if sp, ok := table[name]; ok {
		return sp
	}
	for prefix, sp := range familyTable {
		if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || strings.Trim(rest, "0123456789.-") == "" || prefix == "mkfs") {
			return sp
		}
	}
	return nil
}

// wrapper returns the index of the command that runs command i (a
// wrapper such as find or xargs), or -1.
func (cl *classifier) wrapper(i int) int {
	via := cl.a.Commands[i].Via
	if len(via) == 0 || via[len(via)-1].Kind != Wrapper {
		return -1
	}
	// The wrapper is the latest command one level up, listed just
	// before the commands it runs.
	for j := i - 1; j >= 0; j-- {
		if len(cl.a.Commands[j].Via) == len(via)-1 {
			return j
		}
	}
	return -1
}

// commandText is a command for reasons: its words, at most about 80
// bytes of them.
func commandText(c *Command) string {
	var b strings.Builder
	for i, w := range c.Args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text)
		if b.Len() > 80 {
			break
		}
	}
	text := b.String()
	if len(text) <= 80 {
		return text
	}
	i := 77
	for i > 0 && text[i]&0xc0 == 0x80 {
		i--
	}
	return text[:i] + "..."
}
