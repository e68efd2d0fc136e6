package bashcmd

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where a word of a command line points, as far as the text tells: the
// classifier asks it of every file a command writes, deletes or reads.

// rootKind is what a path starts from.
type rootKind uint8

const (
	rootRel     rootKind = iota // the directory the command runs in
	rootAbs                     // /
	rootHome                    // the home directory (~, $HOME)
	rootUser                    // another user's home directory (~user)
	rootUnknown                 // a variable, a substitution: cannot tell
	rootFound                   // a file find puts there ({} of find -exec)
)

// shape is a word read as a path: the root it starts from, the part the
// text fixes, and whether it names something below that part that the
// text does not fix (a glob, a variable after a /).
type shape struct {
	root  rootKind
	path  string // the fixed part, slash-separated, from the root ("" none)
	below bool
	// globs are the segments with a glob in them, unquoted (*, ?, [..]),
	// in bash's syntax with quoted characters escaped.
	globs []string
}

// foundSuffix marks the words that find -exec fills in (see replaced).
const foundSuffix = " (with a file name find puts there)"

// shapeOf reads a word of a command as a path.
func shapeOf(w Word) shape {
	if w.Static {
		return literalShape(w.Text)
	}
	if strings.HasSuffix(w.Text, foundSuffix) {
		return shape{root: rootFound, below: true}
	}
	word := parseWord(w.Text)
	if word == nil {
		return shape{root: rootUnknown}
	}
	s := shape{root: rootRel}
	var seg strings.Builder // the segment being read
	var fixed []string      // the fixed segments
	started := false        // whether the path has begun (a / at the start is the root)
	globbed, dynamic := false, false
	closeSeg := func() {
		text := seg.String()
		seg.Reset()
		switch {
		case text == "" || dynamic:
		case globbed:
			s.globs = append(s.globs, text)
			s.below = true
			dynamic = true // what follows a glob is not fixed either
		default:
			fixed = append(fixed, unescapeAll(text))
		}
		globbed = false
	}
	lit := func(text string, quoted bool) {
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case c == '/':
				if !started && s.root == rootRel {
					s.root = rootAbs
				}
				started = true
				closeSeg()
				continue
			case quoted && strings.IndexByte(`*?[]\{}`, c) >= 0:
				seg.WriteByte('\\')
			case !quoted && c == '\\' && i+1 < len(text):
				seg.WriteByte(c)
				i++
				c = text[i]
			case !quoted && strings.IndexByte("*?[", c) >= 0:
				globbed = true
			case !quoted && (c == '{' || c == '}'):
				globbed = true // a brace expansion: several names
			}
			started = true
			seg.WriteByte(c)
		}
	}
	for i, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				user, rest, _ := strings.Cut(v[1:], "/")
				switch user {
				case "":
					s.root = rootHome
				case "+":
					s.root = rootRel // $PWD
				default:
					if user == "-" || strings.ContainsAny(user, `*?[{\`) {
						return shape{root: rootUnknown}
					}
					s.root = rootUser
				}
				started = true
				if strings.Contains(v, "/") {
					lit("/"+rest, false)
				}
				continue
			}
			lit(v, false)
		case *syntax.SglQuoted:
			if p.Dollar {
				return shape{root: rootUnknown}
			}
			lit(p.Value, true)
		case *syntax.DblQuoted:
			if p.Dollar {
				return shape{root: rootUnknown}
			}
			for j, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					lit(unescape(q.Value, "$`\"\\\n"), true)
				case *syntax.ParamExp:
					if i == 0 && j == 0 && homeParam(q) {
						s.root, started = rootHome, true
						continue
					}
					if i == 0 && j == 0 {
						return shape{root: rootUnknown}
					}
					dynamic, s.below = true, true
				default:
					if i == 0 && j == 0 {
						return shape{root: rootUnknown}
					}
					dynamic, s.below = true, true
				}
			}
		case *syntax.ParamExp:
			if i == 0 && homeParam(p) {
				s.root, started = rootHome, true
				continue
			}
			if i == 0 {
				return shape{root: rootUnknown}
			}
			dynamic, s.below = true, true
		default:
			if i == 0 {
				return shape{root: rootUnknown}
			}
			dynamic, s.below = true, true
		}
	}
	closeSeg()
	s.path = strings.Join(fixed, "/")
	return s
}

// homeParam reports whether p is $HOME or ${HOME}.
func homeParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "HOME" && p.Exp == nil && p.Repl == nil && p.Slice == nil &&
		p.Index == nil && !p.Length && !p.Excl && !p.Width && p.Names == 0
}

// literalShape is a static word as a path.
func literalShape(text string) shape {
	if strings.HasPrefix(text, "/") {
		return shape{root: rootAbs, path: strings.TrimLeft(text, "/")}
	}
	return shape{root: rootRel, path: text}
}

// parseWord parses text (a word as written) back into a word; nil when
// it is not one.
func parseWord(text string) *syntax.Word {
	if len(text) > MaxLength {
		return nil
	}
	f, err := parseBash(": " + text)
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 || len(f.Stmts[0].Redirs) > 0 || len(call.Assigns) > 0 {
		return nil
	}
	return call.Args[1]
}

// locKind is where a location is.
type locKind uint8

const (
	inWork  locKind = iota // in the working directory (or below it)
	above                  // above the working directory, which is not known
	absLoc                 // an absolute path outside the working directory
	homeLoc                // in a home directory
	unknownLoc
)

// loc is a place a word points to.
type loc struct {
	kind locKind
	// path: inWork, relative to the working directory ("." itself);
	// above, what follows the climb ("" the ancestor itself); absLoc, the
	// absolute path; homeLoc, relative to the home directory.
	path  string
	climb int  // above: the levels climbed
	other bool // homeLoc: another user's
	below bool // something below path that the text does not fix
	some  bool // only some of what is below (what a find with a test finds)
}

// place resolves where paths point: the working directory, the
// directories the command line may run in, the home directory.
type place struct {
	workdir string // absolute and clean, or ""
	home    string // absolute and clean, or ""
	// bases are the directories a relative path may be relative to.
	bases []loc
}

// resolve returns the places a path shape may point to, one per base for
// a relative path.
func (pl *place) resolve(s shape) []loc {
	switch s.root {
	case rootUnknown:
		return []loc{{kind: unknownLoc}}
	case rootFound:
		return []loc{{kind: unknownLoc, below: true}}
	case rootAbs:
		return []loc{pl.abs("/"+s.path, s.below)}
	case rootHome:
		return []loc{pl.inHome(s.path, s.below, false)}
	case rootUser:
		return []loc{pl.inHome(s.path, s.below, true)}
	}
	out := make([]loc, 0, len(pl.bases))
	for _, b := range pl.bases {
		out = append(out, pl.join(b, s.path, s.below))
	}
	return out
}

// join resolves p (relative) against the directory b.
func (pl *place) join(b loc, p string, below bool) loc {
	switch b.kind {
	case unknownLoc:
		return loc{kind: unknownLoc, below: below}
	case absLoc:
		return pl.abs(path.Join(b.path, p), below)
	case homeLoc:
		l := pl.inHome(path.Join(b.path, p), below, b.other)
		return l
	case above:
		return pl.climbed(b.climb, path.Join(b.path, p), below)
	}
	clean := path.Clean(path.Join(b.path, p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		n := 0
		for clean == ".." || strings.HasPrefix(clean, "../") {
			n++
			clean = strings.TrimPrefix(strings.TrimPrefix(clean, ".."), "/")
		}
		return pl.climbed(n, clean, below)
	}
	return loc{kind: inWork, path: clean, below: below}
}

// climbed is the place n levels above the working directory, then rest.
func (pl *place) climbed(n int, rest string, below bool) loc {
	if pl.workdir != "" {
		up := pl.workdir
		for i := 0; i < n; i++ {
			up = path.Dir(up)
		}
		return pl.abs(path.Join(up, rest), below)
	}
	rest = path.Clean(rest)
	for rest == ".." || strings.HasPrefix(rest, "../") {
		n++
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, ".."), "/")
	}
	if rest == "." {
		rest = ""
	}
	return loc{kind: above, climb: n, path: rest, below: below}
}

// abs is the absolute path p: in the working directory when it lies
// there.
func (pl *place) abs(p string, below bool) loc {
	p = path.Clean(p)
	if pl.workdir != "" && (p == pl.workdir || strings.HasPrefix(p, pl.workdir+"/")) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, pl.workdir), "/")
		if rel == "" {
			rel = "."
		}
		return loc{kind: inWork, path: rel, below: below}
	}
	if pl.home != "" && (p == pl.home || strings.HasPrefix(p, pl.home+"/")) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, pl.home), "/")
		if rel == "" {
			rel = "."
		}
		return loc{kind: homeLoc, path: rel, below: below}
	}
	return loc{kind: absLoc, path: p, below: below}
}

// inHome is p relative to a home directory.
func (pl *place) inHome(p string, below, other bool) loc {
	clean := path.Clean("./" + p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		if pl.home != "" && !other {
			return pl.abs(path.Join(pl.home, clean), below)
		}
		return loc{kind: homeLoc, path: clean, below: below, other: other}
	}
	if pl.home != "" && !other {
		return pl.abs(path.Join(pl.home, clean), below)
	}
	return loc{kind: homeLoc, path: clean, below: below, other: other}
}

// outside reports whether l may lie outside the working directory.
func (l loc) outside() bool { return l.kind != inWork && l.kind != unknownLoc }

// vital reports whether destroying l (recursively) destroys a system or a
// home: the root or a directory just below it (/usr, /home), all of a
// home directory, or a directory that holds the working directory or the
// home directory.
func (pl *place) vital(l loc) bool {
	if l.some {
		return false
	}
	switch l.kind {
	case above:
		return l.path == ""
	case homeLoc:
		return l.path == "." || l.path == ".." || strings.HasPrefix(l.path, "../")
	case absLoc:
		if l.path == "/" || strings.Count(l.path, "/") == 1 {
			return true
		}
		for _, d := range []string{pl.workdir, pl.home} {
			if d != "" && strings.HasPrefix(d, l.path+"/") {
				return true
			}
		}
	}
	return false
}

// String renders a location for reasons: the working directory, a path
// in it, ~/x, /x, or "a place the command line does not fix".
func (l loc) String() string {
	s := ""
	switch l.kind {
	case inWork:
		s = l.path
		if s == "." {
			s = "the working directory"
		}
	case above:
		s = strings.TrimSuffix(strings.Repeat("../", l.climb), "/")
		if l.path != "" {
			s += "/" + l.path
		}
	case absLoc:
		s = l.path
	case homeLoc:
		s = "~"
		if l.other {
			s = "another user's home"
		}
		if l.path != "." {
			s += "/" + l.path
		}
	default:
		return "a place the command line does not fix"
	}
	switch {
	case l.below && l.some:
		s += " (some of what is in it)"
	case l.below:
		s += " (what is in it)"
	}
	return s
}

// device says what kind of file an absolute path in /dev, /proc or /sys
// is when a command writes it.
type deviceKind uint8

const (
	notDevice   deviceKind = iota
	harmlessDev            // /dev/null, /dev/stdout, a descriptor, a terminal
	networkDev             // bash's /dev/tcp and /dev/udp
	diskDev                // a disk, memory, the kernel's sysrq trigger
	otherDev               // anything else in /dev, /proc or /sys
)

// harmlessDevices may be written freely.
var harmlessDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty"}

// diskDevices are written only to destroy: disks and partitions (by name
// and by id), device mapper and md volumes, memory, and the kernel's
// sysrq trigger.
var diskDevices = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/md",
	"/dev/dm-", "/dev/mapper/", "/dev/disk/", "/dev/loop", "/dev/sr", "/dev/mem", "/dev/kmem", "/dev/port",
	"/dev/nvram", "/dev/rdisk", "/dev/zram", "/dev/ubi", "/dev/mtd", "/proc/sysrq-trigger", "/proc/kcore"}

func deviceOf(p string) deviceKind {
	p = path.Clean(p)
	for {
		rest, ok := procRoot(p)
		if !ok {
			break
		}
		p = rest
	}
	switch {
	case contains(harmlessDevices, p), strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/dev/pts/"),
		strings.HasPrefix(p, "/proc/self/fd/"), strings.HasPrefix(p, "/proc/thread-self/fd/"):
		return harmlessDev
	case strings.HasPrefix(p, "/dev/tcp/"), strings.HasPrefix(p, "/dev/udp/"):
		return networkDev
	}
	for _, d := range diskDevices {
		if strings.HasPrefix(p, d) {
			return diskDev
		}
	}
	if p == "/dev" || p == "/proc" || p == "/sys" || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/sys/") {
		return otherDev
	}
	return notDevice
}
