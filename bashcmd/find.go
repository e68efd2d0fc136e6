package bashcmd

import "strings"

// find's words: options, the places it searches, then an expression of
// tests, actions and operators (GNU findutils). The commands of -exec,
// -execdir, -ok and -okdir the analysis lists on their own, as run by
// find; the files find gives them are below the places it searches.

// findPrimary is what a word of find's expression is: how many words it
// takes, and what it does.
type findPrimary struct {
	args int
	what byte // 't' a test that selects some files, 'o' anything else harmless, 'w' writes its file,
	// 'r' reads its file, 'd' deletes, 'x' runs a command (to ; or +), 'X' the same in each directory
}

var findPrimaries = func() map[string]findPrimary {
	m := map[string]findPrimary{}
	for _, spec := range []struct {
		names string
		p     findPrimary
	}{
		{"-depth -d -daystart -follow -ignore_readdir_race -noignore_readdir_race -mount -xdev -noleaf -warn -nowarn " +
			"-true -print -print0 -ls -prune -quit -not ! ( ) , -a -and -o -or -help --help -version --version", findPrimary{0, 'o'}},
		{"-empty -executable -readable -writable -false -nogroup -nouser", findPrimary{0, 't'}},
		{"-maxdepth -mindepth -regextype -type -xtype -printf -D", findPrimary{1, 'o'}},
		{"-amin -anewer -atime -cmin -cnewer -ctime -fstype -gid -group -ilname -iname -inum -ipath -iregex " +
			"-iwholename -links -lname -mmin -mtime -name -newer -path -perm -regex -samefile -size -uid -used " +
			"-user -wholename -context", findPrimary{1, 't'}},
		{"-files0-from", findPrimary{1, 'r'}},
		{"-fprint -fprint0 -fls", findPrimary{1, 'w'}},
		{"-fprintf", findPrimary{2, 'w'}},
		{"-delete", findPrimary{0, 'd'}},
		{"-exec -ok", findPrimary{0, 'x'}},
		{"-execdir -okdir", findPrimary{0, 'X'}},
	} {
		for _, n := range strings.Fields(spec.names) {
			m[n] = spec.p
		}
	}
	return m
}()

// findArgs is a reading of find's words.
type findArgs struct {
	start    []Word
	execdir  bool // -execdir or -okdir: commands run in the directories found
	deletes  bool
	narrowed bool // a test selects some of the files, not all
	writes   []Word
	reads    []Word
	unknown  []string
}

func readFind(args []Word) findArgs {
	var f findArgs
	i := 0
	// Options before the places: -H -L -P, -D LIST, -Olevel.
	for ; i < len(args) && args[i].Static; i++ {
		v := args[i].Text
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			continue
		}
		if v == "-D" {
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		v := args[i].Text
		if args[i].Static && (strings.HasPrefix(v, "-") && v != "-" || v == "(" || v == "!" || v == ",") {
			break
		}
		f.start = append(f.start, args[i])
	}
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			f.unknown = append(f.unknown, w.Text)
			continue
		}
		v := w.Text
		if strings.HasPrefix(v, "-newer") && len(v) == 8 {
			v = "-newer" // -newerXY REFERENCE
		}
		p, ok := findPrimaries[v]
		if !ok {
			f.unknown = append(f.unknown, v)
			continue
		}
		switch p.what {
		case 't':
			f.narrowed = true
		case 'd':
			f.deletes = true
		case 'w':
			if i+1 < len(args) {
				f.writes = append(f.writes, args[i+1])
			}
		case 'r':
			if i+1 < len(args) {
				f.reads = append(f.reads, args[i+1])
			}
		case 'x', 'X':
			f.execdir = f.execdir || p.what == 'X'
			for i++; i < len(args) && !(args[i].Static && (args[i].Text == ";" || args[i].Text == "+")); i++ {
			}
			continue
		}
		i += p.args
	}
	return f
}

// findCheck: find reads names, not files; it deletes with -delete and
// writes with -fprint, -fprintf and -fls.
func findCheck(k *check) {
	f := readFind(k.cmd.Args[1:])
	for _, u := range f.unknown {
		k.sandbox(KindUnknown, "%s is not a part of find's expression the list of known-safe commands knows", u)
	}
	start := f.start
	if len(start) == 0 {
		start = []Word{{Text: ".", Static: true}}
	}
	var found []loc
	for _, w := range start {
		s := shapeOf(w)
		locs := k.where(s)
		for j := range locs {
			locs[j].below, locs[j].some = true, f.narrowed
		}
		found = append(found, locs...)
		if f.deletes {
			k.secret(w, s)
			k.removeAt(w.Text, locs, true)
		}
	}
	if k.index >= 0 {
		if k.cl.found == nil {
			k.cl.found = map[int][]loc{}
		}
		k.cl.found[k.index] = found
	}
	for _, w := range f.writes {
		k.write(w)
	}
	for _, w := range f.reads {
		k.read(w)
	}
}
