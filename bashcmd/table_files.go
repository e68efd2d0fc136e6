package bashcmd

import "strings"

// The commands that write, move and delete files: none is safe; the table
// knows which of their words are the files they change, so that a change
// outside the working directory, and a catastrophic one, is found.

func changer(decl string, ops opKind, reason string) *spec {
	return &spec{opts: options(decl + gnuHelp), operands: ops, does: &nature{Sandbox, KindWrites, reason}}
}

func addWriters(add func(*spec, ...string)) {
	add(changer(`f|force i I interactive[=] one-file-system no-preserve-root preserve-root[=] r|R|recursive:rec
		d|dir v|verbose`, opDelete, "deletes files").with(func(sp *spec) { sp.does.kind = KindDeletes }), "rm")
	add(changer(`ignore-fail-on-non-empty p|parents v|verbose`, opDelete, "deletes directories").with(func(sp *spec) {
		sp.does.kind = KindDeletes
	}), "rmdir")
	add(changer(``, opDelete, "deletes a file").with(func(sp *spec) { sp.does.kind = KindDeletes }), "unlink")
	add(changer(`f|force n|iterations= random-source=:read s|size= u remove[=] v|verbose x|exact z|zero`, opDelete,
		"overwrites files to destroy them").with(func(sp *spec) { sp.does.kind = KindDeletes }), "shred")
	add(changer(`b backup[=] debug exchange f|force i|interactive n|no-clobber no-copy strip-trailing-slashes
		S|suffix= t|target-directory=:writedir T|no-target-directory u update[=] v|verbose Z|context`, opMove,
		"moves files"), "mv")
	add(changer(`a|archive attributes-only backup[=] b copy-contents d debug f|force i|interactive H l|link
		L|dereference n|no-clobber P|no-dereference p preserve[=] no-preserve= parents R|r|recursive reflink[=]
		remove-destination sparse= strip-trailing-slashes s|symbolic-link S|suffix= t|target-directory=:writedir
		T|no-target-directory u update[=] v|verbose x|one-file-system Z context[=] keep-directory-symlink`,
		opWriteLast, "copies files"), "cp")
	add(changer(`backup[=] b d|F|directory f|force i|interactive L|logical n|no-dereference P|physical
		r|relative s|symbolic S|suffix= t|target-directory=:writedir T|no-target-directory v|verbose`,
		opWriteLast, "makes links"), "ln")
	add(changer(`backup[=] b C|compare debug d|directory D g|group= m|mode= o|owner= p|preserve-timestamps
		s|strip strip-program=:run S|suffix= t|target-directory=:writedir T|no-target-directory v|verbose
		preserve-context Z context[=]`, opWriteLast, "installs files").with(func(sp *spec) {
		sp.check = func(k *check) {
			if k.p.given("-d") { // directories: every operand is one it makes
				for _, w := range k.p.operands {
					k.write(w)
				}
			}
		}
	}), "install")
	add(changer(`a|append i|ignore-interrupts p output-error[=]`, opWriteAll, "writes files"), "tee")
	add(changer(`a c|no-create d|date= f h|no-dereference m r|reference=:read t= time=`, opWriteAll,
		"makes or touches files"), "touch")
	add(changer(`m|mode= p|parents v|verbose Z context[=]`, opWriteAll, "makes directories"), "mkdir")
	add(changer(`c|no-create o|io-blocks r|reference=:read s|size=`, opWriteAll, "cuts files short"), "truncate")
	add(changer(`a|suffix-length= additional-suffix= b|bytes= C|line-bytes= d numeric-suffixes[=] x
		hex-suffixes[=] e|elide-empty-files filter=:run l|lines= n|number= separator= t u|unbuffered verbose`,
		opInOut, "splits a file into others"), "split")
	modes := `c|changes f|silent|quiet v|verbose no-preserve-root preserve-root reference=:read R|recursive:rec`
	add(changer(modes, opMode, "changes the modes of files").with(func(sp *spec) {
		sp.opts, sp.operands = nil, opText // a mode may start with a dash (-w): read by modeCheck
		sp.check = modeCheck
	}), "chmod")
	owners := modes + ` dereference h|no-dereference from= H L P`
	add(changer(owners, opMode, "changes the owners of files"), "chown", "chgrp")
	add(&spec{operands: opText, does: &nature{Sandbox, KindWrites, "copies data"}, check: ddCheck}, "dd")
	add(&spec{opts: options(`n|quiet|silent debug e|expression= f|file=:read follow-symlinks i|in-place[=]
		l|line-length= posix E|r|regexp-extended s|separate sandbox u|unbuffered z|null-data` + gnuHelp),
		operands: opText, does: &nature{Sandbox, KindProgram, "runs a sed script, which may write files and run commands"},
		check: sedCheck}, "sed")
	add(&spec{opts: options(`A|catenate|concatenate c|create d|diff|compare delete r|append t|list test-label
		u|update x|extract|get C|directory=:dir f|file= z|gzip|gunzip|ungzip j|bzip2 J|xz lzip lzma lzop zstd
		Z|compress|uncompress a|auto-compress v|verbose p|preserve-permissions|same-permissions
		same-owner no-same-owner no-same-permissions k|keep-old-files keep-newer-files overwrite
		overwrite-dir O|to-stdout strip-components= exclude= exclude-from|X=:read exclude-vcs
		exclude-vcs-ignores exclude-caches wildcards no-wildcards anchored no-anchored T|files-from=:read
		null no-null h|dereference hard-dereference l|check-links one-file-system W|verify totals[=] sort=
		owner= group= mode= mtime= numeric-owner transform|xform= show-transformed-names s|preserve-order
		same-order m|touch b|blocking-factor= B|read-full-records i|ignore-zeros ignore-failed-read
		no-recursion recursion warning= w|interactive|confirmation format= H= posix o
		I|use-compress-program=:run to-command=:run checkpoint[=] checkpoint-action=:run
		F|info-script|new-volume-script=:run rsh-command=:run M|multi-volume L|tape-length= g|listed-incremental=
		G|incremental level= xattrs no-xattrs acls no-acls selinux no-selinux full-time utc q|quiet` + gnuHelp),
		operands: opText, does: &nature{Sandbox, KindWrites, "packs or unpacks archives"}, check: tarCheck}, "tar")
	add(&spec{opts: options(`d= o n j C f u l L q v x=:read c a X K M p z Z P= t T` + gnuHelp),
		operands: opText, does: &nature{Sandbox, KindWrites, "unpacks an archive"}, check: func(k *check) {
			if d, ok := k.p.value("-d"); ok {
				k.write(Word{Text: strings.TrimSuffix(d.Text, "/") + "/", Static: d.Static})
			} else if !k.p.given("-l", "-t", "-v", "-p", "-z", "-Z") {
				k.here(KindWrites, "writes the files it unpacks")
			}
			if len(k.p.operands) > 0 {
				k.read(k.p.operands[0])
			}
		}}, "unzip")
	add(&spec{does: &nature{Sandbox, KindWrites, "packs files into an archive"}, check: func(k *check) {
		archive := true // the first word that is no option names the archive
		for _, w := range k.p.operands {
			switch {
			case w.Static && strings.HasPrefix(w.Text, "-"):
			case archive:
				k.write(w)
				archive = false
			default:
				k.read(w)
			}
		}
	}, operands: opText}, "zip")
	add(&spec{opts: options(`c|stdout|to-stdout d|decompress|uncompress f|force k|keep l|list n|no-name
		N|name q|quiet r|recursive:rec S|suffix= t|test v|verbose 1|fast 2 3 4 5 6 7 8 9|best
		rsyncable synchronous T|threads= z|compress e|extreme F|format= C|check= M|memlimit= no-sparse
		long= ultra adapt[=] o=:write rm` + gnuHelp), operands: opText, does: &nature{Sandbox, KindWrites, "compresses or uncompresses files in place"},
		check: func(k *check) {
			if k.p.given("-c", "-l", "-t") {
				k.reads(k.p.operands)
				return
			}
			for _, w := range k.p.operands {
				k.write(w)
				if !k.p.given("-k") {
					k.remove(w, k.recursive)
				}
			}
		}}, "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lzma", "unlzma")
	add(&spec{opts: options(`b|backup B|prefix= binary c|context d|directory=:dir D|ifdef= dry-run E|remove-empty-files
		e|ed f|force F|fuzz= g|get= i|input=:read l|ignore-whitespace merge[=] n|normal N|forward
		o|output=:write p|strip= quoting-style= r|reject-file=:write R|reverse s|quiet|silent t|batch T|set-time
		u|unified V|version-control= v|version verbose Y|basename-prefix= z|suffix= Z|set-utc posix help`),
		operands: opText, does: &nature{Sandbox, KindWrites, "patches files"}, check: func(k *check) {
			ops := k.p.operands
			if len(ops) > 0 {
				k.write(ops[0])
			}
			if len(ops) > 1 {
				k.read(ops[1])
			}
		}}, "patch")
}

var chmodOptions = options(`c|changes f|silent|quiet v|verbose no-preserve-root preserve-root reference=:read
	R|recursive:rec` + gnuHelp)

// modeCheck reads chmod's words: an option is a cluster of the letters
// chmod takes (-R, -Rf); any other word with a dash is a mode (-w,
// -x+r) or an operand.
func modeCheck(k *check) {
	set := chmodOptions
	var words []Word
	for _, w := range k.cmd.Args[1:] {
		if w.Static && strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.Trim(w.Text[1:], "cfvR") != "" {
			words = append(words, Word{Text: "./" + w.Text, Static: true}) // a mode, read as an operand
			continue
		}
		words = append(words, w)
	}
	p := parseOptions(words, set, gnu, true)
	k.p = p
	k.options(&spec{opts: set}, p)
	for _, u := range p.unknown {
		k.sandbox(KindUnknown, "%s is not an option the list knows for chmod", u)
	}
	ops := p.operands
	if !p.given("--reference") && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, w := range ops {
		k.change(w)
	}
}

// ddCheck reads dd's operands: if=FILE it reads, of=FILE it writes.
func ddCheck(k *check) {
	for _, w := range k.cmd.Args[1:] {
		key, val, ok := strings.Cut(w.Text, "=")
		if !ok {
			continue
		}
		// The value of a word that is not static keeps its form
		// (of=~/x); read it as a word of its own.
		v := Word{Text: val, Static: w.Static}
		switch key {
		case "if":
			k.read(v)
		case "of":
			k.write(v)
		}
	}
}

// sedCheck: with -i, sed writes every file it is given; the script is
// the first operand unless -e or -f gives it.
func sedCheck(k *check) {
	ops := k.p.operands
	if !k.p.given("-e", "-f") && len(ops) > 0 {
		ops = ops[1:]
	}
	if !k.p.given("-i") {
		k.reads(ops)
		return
	}
	for _, w := range ops {
		k.write(w)
	}
}

// tarCheck: -f names the archive, which tar writes when it creates one
// and reads otherwise; extracting writes where -C says, or here.
func tarCheck(k *check) {
	p := k.p
	// tar cf x.tar: the first word may be a cluster without a dash.
	if args := k.cmd.Args[1:]; len(args) > 0 && args[0].Static && !strings.HasPrefix(args[0].Text, "-") &&
		strings.Trim(args[0].Text, "AcdrtuxCfzjJZavpkOhlmWiSBgGMwoq") == "" {
		words := append([]Word{{Text: "-" + args[0].Text, Static: true}}, args[1:]...)
		p = parseOptions(words, k.sp.opts, gnu, true)
		k.p = p
		k.options(k.sp, p)
	}
	creates := p.given("-c", "-r", "-u", "-A")
	if f, ok := p.value("-f"); ok {
		if creates {
			k.write(f)
		} else {
			k.read(f)
		}
	}
	if creates {
		k.reads(p.operands)
		return
	}
	if p.given("-x") && !p.given("-O") {
		k.here(KindWrites, "writes the files it unpacks")
	}
}
