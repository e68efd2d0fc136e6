package bashcmd

import (
	"strings"
	"sync"
)

// The known-safe table, and what the other commands Classify knows do.
// A row is a spec: a command on the known-safe table (reader) reads the
// files it names and prints when every option it is given is one
// declared here without an effect; any other option, an option with an
// effect, or an operand that names a secret file makes it not safe. The
// other rows say what a command does by its nature (a program, the
// network, the system) and which of its options and operands are files
// it writes or deletes, so that writes outside the working directory and
// the catastrophic ones are found.

// table holds the commands by name; familyTable by the prefix of their
// names (mkfs.ext4, python3.12). They are built by the first lookup
// (loadTable), not at init: a program that reads no command line does
// not pay for them.
var table, familyTable map[string]*spec

// loadTable builds the table once; safe for concurrent use. (Set by
// init: the table's entries call lookup, which calls loadTable.)
var loadTable func()

func init() { loadTable = sync.OnceFunc(buildTable) }

// gnuHelp are the options every GNU program has.
const gnuHelp = " help version"

func reader(decl string, ops opKind) *spec {
	return &spec{safe: true, opts: options(decl + gnuHelp), operands: ops}
}

// program is a command that runs programs or code by its nature: it runs
// in the sandbox.
func program(reason string) *spec {
	return &spec{does: &nature{Sandbox, KindProgram, reason}}
}

// leaving is a command that needs what the sandbox does not give.
func leaving(kind, reason string) *spec {
	return &spec{does: &nature{Leaves, kind, reason}}
}

// destroying is a command that only destroys.
func destroying(reason string) *spec {
	return &spec{does: &nature{Catastrophic, KindDestroys, reason}}
}

// with sets fields of a copy of sp.
func (sp *spec) with(f func(*spec)) *spec {
	c := *sp
	f(&c)
	return &c
}

func buildTable() {
	table = map[string]*spec{}
	familyTable = map[string]*spec{}
	add := func(sp *spec, names ...string) {
		for _, n := range names {
			if _, dup := table[n]; dup {
				panic("shell: " + n + " is in the table twice")
			}
			table[n] = sp
		}
	}
	addReaders(add)
	addWriters(add)
	addWrappers(add)
	addGit(add)
	addGo(add)
	addSystem(add)
	for _, name := range interpreters {
		familyTable[name] = interpreter
	}
	familyTable["mkfs"] = destroying("formats a disk")
}

// addReaders adds the known-safe commands.
func addReaders(add func(*spec, ...string)) {
	add(reader(`a|all A|almost-all author b|escape block-size= B|ignore-backups c C color[=] d|directory D|dired f
		F classify[=] file-type format= full-time g group-directories-first G|no-group h|human-readable si
		H|dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink[=] indicator-style=
		i|inode I|ignore= k|kibibytes l L|dereference m n|numeric-uid-gid N|literal o p q|hide-control-chars
		show-control-chars Q|quote-name quoting-style= r|reverse R|recursive s|size S sort= time= time-style= t
		T|tabsize= u U v w|width= x X Z|context zero 1`, opNames), "ls", "dir", "vdir")
	add(reader(`A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t T|show-tabs u
		v|show-nonprinting`, opRead), "cat")
	add(reader(`c|bytes= n|lines= q|quiet|silent v|verbose z|zero-terminated #`, opRead), "head")
	add(reader(`c|bytes= f follow[=] F n|lines= max-unchanged-stats= pid= q|quiet|silent retry
		s|sleep-interval= v|verbose z|zero-terminated debug #`, opRead), "tail")
	add(reader(`c|bytes m|chars l|lines L|max-line-length w|words files0-from=:read total=`, opRead), "wc")
	add(reader(`b|body-numbering= d|section-delimiter= f|footer-numbering= h|header-numbering=
		i|line-increment= l|join-blank-lines= n|number-format= p|no-renumber s|number-separator=
		v|starting-line-number= w|number-width=`, opRead), "nl")
	add(reader(`b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort
		i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort R|random-sort random-source=:read
		r|reverse sort= V|version-sort batch-size= c check[=] C compress-program=:run debug files0-from=:read
		k|key= m|merge o|output=:write s|stable S|buffer-size= t|field-separator= T|temporary-directory=:writedir
		parallel= u|unique z|zero-terminated`, opRead), "sort")
	add(reader(`c|count d|repeated D all-repeated[=] f|skip-fields= group[=] i|ignore-case s|skip-chars=
		u|unique z|zero-terminated w|check-chars=`, opInOut), "uniq")
	add(reader(`b|bytes= c|characters= d|delimiter= f|fields= n complement s|only-delimited output-delimiter=
		z|zero-terminated`, opRead), "cut")
	add(reader(`c|C|complement d|delete s|squeeze-repeats t|truncate-set1`, opText), "tr")
	add(reader(`d|delimiters= s|serial z|zero-terminated`, opRead), "paste")
	add(reader(`a= e= i|ignore-case j= o= t= v= 1= 2= check-order nocheck-order header z|zero-terminated`, opRead), "join")
	add(reader(`1 2 3 check-order nocheck-order output-delimiter= total z|zero-terminated`, opRead), "comm")
	add(reader(`b|bytes s|spaces w|width= #`, opRead), "fold")
	add(reader(`i|initial t|tabs= a|all first-only`, opRead), "expand", "unexpand")
	add(reader(`b|before r|regex s|separator=`, opRead), "tac")
	add(reader(`0|zero`, opRead), "rev")
	add(reader(`d|decode i|ignore-garbage w|wrap=`, opRead), "base64", "base32")
	add(reader(`A|address-radix= j|skip-bytes= N|read-bytes= S strings[=] t|format= v|output-duplicates
		w width[=] traditional a b c d f i l o s x endian=`, opRead), "od")
	add(reader(`a|all d|data f|print-file-name n|bytes= # t|radix= o e|encoding= T|target=
		w|include-all-whitespace s|output-separator= U|unicode= v|V`, opRead), "strings")
	add(reader(`a|multiple s|suffix= z|zero`, opText), "basename")
	add(reader(`z|zero`, opText), "dirname")
	add(reader(`e|canonicalize-existing m|canonicalize-missing L|logical P|physical q|quiet relative-to=
		relative-base= s|strip|no-symlinks z|zero`, opNames), "realpath")
	add(reader(`f|canonicalize e|canonicalize-existing m|canonicalize-missing n|no-newline q|quiet s|silent
		v|verbose z|zero`, opNames), "readlink")
	add(reader(`L|dereference f|file-system c|format= printf= t|terse cached=`, opNames), "stat")
	add(reader(`b|brief c|checking-printout e|exclude= exclude-quiet= E extension f|files-from=:read
		F|separator= h|no-dereference i|mime mime-type mime-encoding k|keep-going l|list L|dereference
		m|magic-file=:read n|no-buffer N|no-pad p|preserve-date P|parameter= r|raw s|special-files S|no-sandbox
		0|print0 v C|compile:run z|uncompress:run Z|uncompress-noreport:run`, opRead), "file")
	add(reader(`0|null a|all apparent-size B|block-size= b|bytes c|total D|dereference-args d|max-depth=
		files0-from=:read H h|human-readable inodes k L|dereference l|count-links m P|no-dereference
		S|separate-dirs si s|summarize t|threshold= time[=] time-style= X|exclude-from=:read exclude=
		x|one-file-system`, opNames), "du")
	add(reader(`a|all B|block-size= h|human-readable H|si i|inodes k l|local no-sync output[=] P|portability
		sync total t|type= T|print-type x|exclude-type= v`, opNames), "df")
	add(reader(`L|logical P|physical`, opText), "pwd")
	add(reader(`a|all Z|context g|group G|groups n|name r|real u|user z|zero`, opText), "id")
	add(reader(``, opText), "whoami", "groups", "logname", "arch", "users", "nproc")
	add(reader(`a|all s|kernel-name n|nodename r|kernel-release v|kernel-version m|machine p|processor
		i|hardware-platform o|operating-system`, opText), "uname")
	add(reader(`a|all i|skip-dot s|skip-tilde read-alias read-functions skip-alias skip-functions show-dot
		show-tilde tty-only`, opText), "which")
	add(reader(`b|binary c|check tag t|text z|zero ignore-missing quiet status strict w|warn l|length=`, opRead),
		"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum")
	add(reader(`a|algorithm= base64 c|check l|length= raw tag untagged z|zero debug`, opRead), "cksum")
	add(reader(`r s|sysv`, opRead), "sum")
	add(reader(`f|format= s|separator= w|equal-width #`, opText), "seq")
	add(reader(`s|silent|quiet`, opText), "tty")
	add(reader(`p|pretty s|since`, opText), "uptime")
	add(reader(`normal q|brief s|report-identical-files c C= context[=] u U= unified[=] e|ed n|rcs
		y|side-by-side W|width= left-column suppress-common-lines p|show-c-function F|show-function-line= label=
		expand-tabs T|initial-tab tabsize= suppress-blank-empty l|paginate:run r|recursive no-dereference
		N|new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case x|exclude=
		X|exclude-from=:read S|starting-file= from-file=:read to-file=:read i|ignore-case
		E|ignore-tab-expansion Z|ignore-trailing-space b|ignore-space-change w|ignore-all-space
		B|ignore-blank-lines I|ignore-matching-lines= a|text strip-trailing-cr D|ifdef= old-group-format=
		new-group-format= unchanged-group-format= changed-group-format= line-format= old-line-format=
		new-line-format= unchanged-line-format= d|minimal horizon-lines= speed-large-files color[=] palette= v #`,
		opRead), "diff")
	add(reader(`b|print-bytes i|ignore-initial= l|verbose n|bytes= s|quiet|silent v`, opRead), "cmp")
	grep := reader(`E|extended-regexp F|fixed-strings G|basic-regexp P|perl-regexp e|regexp= f|file=:read
		i|ignore-case no-ignore-case y v|invert-match w|word-regexp x|line-regexp c|count color[=] colour[=]
		L|files-without-match l|files-with-matches m|max-count= o|only-matching q|quiet|silent s|no-messages
		b|byte-offset H|with-filename h|no-filename label= n|line-number T|initial-tab Z|null z|null-data
		A|after-context= B|before-context= C|context= # a|text binary-files= D|devices= d|directories=
		exclude= exclude-from=:read exclude-dir= include= r|recursive R|dereference-recursive line-buffered
		U|binary V`, opPattern)
	add(grep, "grep", "egrep", "fgrep")
	add(reader(`e|regexp= f|file=:read A|after-context= B|before-context= C|context= binary no-binary
		block-buffered no-block-buffered b|byte-offset no-byte-offset s|case-sensitive color= colors= column
		no-column context-separator= no-context-separator c|count count-matches crlf no-crlf debug trace
		dfa-size-limit= E|encoding= no-encoding engine= field-context-separator= field-match-separator= files
		l|files-with-matches files-without-match F|fixed-strings no-fixed-strings L|follow no-follow generate=
		g|glob= glob-case-insensitive no-glob-case-insensitive heading no-heading H|with-filename I|no-filename
		hidden no-hidden iglob= i|ignore-case ignore-file=:read ignore-file-case-insensitive
		no-ignore-file-case-insensitive include-zero no-include-zero v|invert-match no-invert-match
		line-buffered no-line-buffered n|line-number N|no-line-number x|line-regexp M|max-columns=
		max-columns-preview no-max-columns-preview m|max-count= d|max-depth|maxdepth= max-filesize= mmap no-mmap
		U|multiline no-multiline multiline-dotall no-multiline-dotall no-config no-ignore ignore no-ignore-dot
		ignore-dot no-ignore-exclude ignore-exclude no-ignore-files ignore-files no-ignore-global ignore-global
		no-ignore-messages ignore-messages no-ignore-parent ignore-parent no-ignore-vcs ignore-vcs no-messages
		messages no-pcre2-unicode pcre2-unicode no-require-git require-git no-unicode unicode 0|null null-data
		one-file-system no-one-file-system o|only-matching passthru|passthrough path-separator= P|pcre2
		no-pcre2 pcre2-version pre=:run no-pre pre-glob= p|pretty q|quiet regex-size-limit= r|replace=
		z|search-zip:run no-search-zip S|smart-case sort= sortr= stats no-stats stop-on-nonmatch a|text
		no-text j|threads= t|type= T|type-not= type-add= type-clear= type-list u|unrestricted vimgrep
		w|word-regexp json no-json hyperlink-format= hostname-bin=:run h auto-hybrid-regex
		no-auto-hybrid-regex trim no-trim V`, opPattern).with(func(sp *spec) {
		sp.check = func(k *check) {
			// --files and --type-list take no pattern: every operand is a path.
			if k.p.given("--files", "--type-list") && len(k.p.operands) > 0 {
				k.read(k.p.operands[0])
			}
		}
	}), "rg")
	add(reader(`H|hidden I|no-ignore no-ignore-vcs no-ignore-parent no-require-git u|unrestricted
		s|case-sensitive i|ignore-case g|glob regex F|fixed-strings and= a|absolute-path relative-path
		l|list-details L|follow p|full-path 0|print0 d|max-depth= min-depth= exact-depth= E|exclude=
		prune t|type= e|extension= S|size= changed-within|change-newer-than|newer= changed-before|change-older-than|older=
		o|owner= format= x|exec:exec X|exec-batch:exec batch-size= ignore-file=:read c|color= hyperlink[=]
		j|threads= max-results= 1 q|quiet show-errors base-directory=:dir path-separator= search-path=
		strip-cwd-prefix[=] one-file-system mount no-follow h V`, opNames), "fd", "fdfind")
	add(reader(`a d l f x L= R:writes P= I= gitignore gitfile=:read ignore-case matchdirs metafirst prune info
		infofile=:read noreport charset= filelimit= o=:write i q N Q p u g s h si du D timefmt= F inodes device
		v t c U r dirsfirst filesfirst sort= n C X J H= T= nolinks hintro=:read houtro=:read fromfile
		fromtabfile fflinks condense`, opNames), "tree")
	add(&spec{safe: true, operands: opText, check: echoCheck}, "echo", "printf", "true", "false", ":", "test", "[",
		"sleep", "yes", "expr", "factor", "type", "cd", "pushd", "popd", "dirs", "shift", "exit", "return",
		"break", "continue", "wait", "jobs", "let", "getopts", "local", "unset", "read", "umask", "ulimit",
		"times", "caller", "readonly", "declare", "typeset", "export", "eval", "trap", "alias", "unalias",
		"set", "shopt", "hash", "mapfile", "readarray", "compgen", "complete", "compopt", "disown")
	add(&spec{safe: true, check: jqCheck}, "jq")
	add(&spec{safe: true, opts: options(`d|date= debug f|file=:read I|iso-8601[=] R|rfc-email rfc-3339=
		r|reference= s|set= u|utc|universal resolution` + gnuHelp), operands: opText, check: dateCheck}, "date")
	add(&spec{safe: true, opts: options(`a|alias A|all-fqdns b|boot d|domain f|fqdn|long F|file= i|ip-address
		I|all-ip-addresses s|short y|yp|nis V h`), operands: opText, check: hostnameCheck}, "hostname")
	add(&spec{does: &nature{Sandbox, KindEnvironment, "prints the environment, which may hold secrets"}}, "printenv")
	add(&spec{safe: true, check: findCheck}, "find")
}

// echoCheck: the builtins and the commands that print their words or
// test them. The variables some of them set, and the command lines eval
// and trap run, the analysis reads on its own; set with no operand and
// declare, export or typeset with -p print the variables.
func echoCheck(k *check) {
	args := k.cmd.Args[1:]
	switch k.cmd.Name {
	case "set":
		if len(args) == 0 {
			k.sandbox(KindEnvironment, "prints every variable, which may hold secrets")
		}
	case "declare", "typeset", "export", "readonly":
		if len(args) == 0 || args[0].Static && strings.HasPrefix(args[0].Text, "-") && strings.Contains(args[0].Text, "p") {
			k.sandbox(KindEnvironment, "prints the variables, which may hold secrets")
		}
	case "alias":
		// an alias names a command line the analysis reads when it is
		// literal; defining one is harmless.
	}
}

// dateCheck: date -s, or an operand that is no +FORMAT, sets the clock.
func dateCheck(k *check) {
	if k.p.given("-s") {
		k.leaves(KindSystem, "sets the system clock")
		return
	}
	for _, w := range k.p.operands {
		if !w.Static || !strings.HasPrefix(w.Text, "+") {
			k.leaves(KindSystem, "%s sets the system clock", w.Text)
			return
		}
	}
}

// hostnameCheck: an operand, -F or -b sets the host name.
func hostnameCheck(k *check) {
	if len(k.p.operands) > 0 || k.p.given("-F", "-b") {
		k.leaves(KindSystem, "sets the host name")
	}
}

// jqOptions are jq's options but those that take two words.
var jqOptions = options(`n|null-input R|raw-input s|slurp c|compact-output r|raw-output raw-output0 j|join-output
	a|ascii-output S|sort-keys C|color-output M|monochrome-output tab indent= unbuffered stream stream-errors
	seq f|from-file=:read L= e|exit-status args jsonargs h|help V|version build-configuration`)

// jqCheck reads jq's options (--arg NAME VALUE takes two words), its
// filter (env, $ENV and input_filename read the environment) and the
// files it reads.
func jqCheck(k *check) {
	args := k.cmd.Args[1:]
	set := jqOptions
	var rest []Word
	filter := true
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.Static {
			switch w.Text {
			case "--arg", "--argjson":
				i += 2
				continue
			case "--slurpfile", "--rawfile":
				if i+2 < len(args) {
					k.read(args[i+2])
				}
				i += 2
				continue
			case "--args", "--jsonargs":
				filter = false // the operands after the filter are values
			}
		}
		rest = append(rest, w)
	}
	p := parseOptions(rest, set, gnu, true)
	k.p = p
	k.options(&spec{opts: set}, p)
	for _, u := range p.unknown {
		k.sandbox(KindUnknown, "%s is not an option the list of known-safe commands knows for jq", u)
	}
	ops := p.operands
	if !p.given("-f") && len(ops) > 0 {
		f := ops[0]
		if !f.Static || strings.Contains(strings.ToLower(f.Text), "env") || strings.Contains(f.Text, "input_filename") || strings.Contains(f.Text, "$__loc__") {
			k.sandbox(KindEnvironment, "the filter %s may read the environment", shorten(f.Text))
		}
		ops = ops[1:]
	}
	if filter {
		k.reads(ops)
	}
}
