package bashcmd

import "strings"

// git: its own options before the command (read exactly: git does not
// take abbreviations there), then a command whose options git's
// parse-options reads (clusters, and unique prefixes of long options:
// --har is --hard). The commands that only read are on the known-safe
// table; those that write .git leave the sandbox, which keeps .git
// read-only; those that reach a remote need the network.

// gitGlobal are git's own options. -c, --config-env, --exec-path=DIR,
// --git-dir and --work-tree make it read configuration or programs the
// command line names, which may run anything.
var gitGlobal = options(`C=:dir c=:run config-env=:run exec-path[=]:run html-path man-path info-path p|paginate
	P|no-pager git-dir=:run work-tree=:run namespace= bare no-replace-objects no-lazy-fetch literal-pathspecs
	glob-pathspecs noglob-pathspecs icase-pathspecs no-optional-locks no-advice super-prefix= list-cmds=
	attr-source= v|version h|help`)

// gitDiff are the options of the commands that show changes.
const gitDiff = `p|u|patch s|no-patch U|unified= output=:write output-indicator-new= output-indicator-old=
	output-indicator-context= raw patch-with-raw t indent-heuristic no-indent-heuristic minimal patience
	histogram anchored= diff-algorithm= stat[=] stat-width= stat-name-width= stat-count= stat-graph-width=
	compact-summary numstat shortstat X|dirstat[=] cumulative dirstat-by-file[=] summary patch-with-stat z
	name-only name-status submodule[=] color[=] no-color color-moved[=] no-color-moved color-moved-ws=
	no-color-moved-ws word-diff[=] word-diff-regex= color-words[=] no-renames rename-empty no-rename-empty
	check ws-error-highlight= full-index binary abbrev[=] B|break-rewrites[=] M|find-renames[=]
	C|find-copies[=] find-copies-harder D|irreversible-delete l= diff-filter= S= G= find-object= pickaxe-all
	pickaxe-regex O=:read skip-to= rotate-to= R relative[=] no-relative a|text ignore-cr-at-eol
	ignore-space-at-eol b|ignore-space-change w|ignore-all-space ignore-blank-lines I|ignore-matching-lines=
	inter-hunk-context= W|function-context exit-code quiet ext-diff:run no-ext-diff textconv no-textconv
	ignore-submodules[=] src-prefix= dst-prefix= no-prefix default-prefix line-prefix= ita-invisible-in-index
	ita-visible-in-index`

// gitLog are the options of the commands that walk history.
const gitLog = `n|max-count= # skip= since= after= until= before= author= committer= grep-reflog= grep= all-match
	invert-grep i|regexp-ignore-case basic-regexp E|extended-regexp F|fixed-strings P|perl-regexp remove-empty
	merges no-merges min-parents= max-parents= no-min-parents no-max-parents first-parent exclude-first-parent-only
	not all branches[=] tags[=] remotes[=] glob= exclude= exclude-hidden= reflog alternate-refs single-worktree
	ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only cherry g|walk-reflogs merge boundary
	simplify-by-decoration show-pulls full-history dense sparse simplify-merges ancestry-path[=] date-order
	author-date-order topo-order reverse no-walk[=] do-walk format= pretty[=] abbrev-commit no-abbrev-commit
	oneline encoding= expand-tabs[=] no-expand-tabs notes[=] no-notes show-notes[=] standard-notes
	no-standard-notes show-signature:run relative-date date= parents children left-right graph no-graph
	show-linear-break[=] c cc dd m diff-merges= no-diff-merges combined-all-paths follow decorate[=]
	no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source mailmap no-mailmap use-mailmap
	log-size L= count`

func gitReader(decl string) *spec {
	return &spec{safe: true, configured: true, opts: options(decl), operands: opRead}
}

func gitWriter(reason string) *spec {
	return &spec{configured: true, operands: opText, does: &nature{Leaves, KindProtected, reason}}
}

func gitRemote(reason string) *spec {
	return &spec{configured: true, operands: opText, does: &nature{Leaves, KindNetwork, reason}}
}

func addGit(add func(*spec, ...string)) {
	writes := "writes .git, which the sandbox keeps read-only"
	w := gitWriter(writes)
	subs := map[string]*spec{
		"":     {safe: true},
		"*":    {configured: true, operands: opText, does: &nature{Sandbox, KindProgram, "runs a git command (or an alias) that is not on the list of known-safe commands"}},
		"diff": gitReader(gitDiff + ` cached staged merge-base no-index base|1 ours|2 theirs|3 0 c cc`),
		"log":  gitReader(gitDiff + " " + gitLog),
		"show": gitReader(gitDiff + " " + gitLog),
		"status": gitReader(`s|short b|branch show-stash porcelain[=] long v|verbose u|untracked-files[=]
			ignore-submodules[=] ignored[=] z column[=] no-column ahead-behind no-ahead-behind renames
			no-renames find-renames[=]`),
		"blame": gitReader(`b root show-stats score-debug f|show-name n|show-number p|porcelain line-porcelain
			incremental encoding= contents=:read date= progress no-progress M[=] C[=] ignore-rev=
			ignore-revs-file=:read color-lines color-by-age L= l t S=:read reverse= first-parent s e|show-email
			w abbrev[=] c since= until=`),
		"shortlog": gitReader(gitLog + ` e|email s|summary w[=] group=`),
		"ls-files": gitReader(`c|cached d|deleted m|modified o|others i|ignored s|stage directory
			no-empty-directory u|unmerged k|killed t v f z x|exclude= X|exclude-from=:read exclude-per-directory=
			exclude-standard error-unmatch with-tree= full-name recurse-submodules abbrev[=] debug eol
			deduplicate format= sparse resolve-undo`),
		"ls-tree": gitReader(`d r t l|long z name-only name-status object-only full-name full-tree abbrev[=]
			format=`),
		"rev-parse": gitReader(`parseopt sq-quote keep-dashdash stop-at-non-option stuck-long revs-only
			no-revs flags no-flags default= prefix= verify q|quiet sq short[=] not abbrev-ref[=] symbolic
			symbolic-full-name all branches[=] tags[=] remotes[=] glob= exclude= exclude-hidden= disambiguate=
			local-env-vars path-format= git-dir git-common-dir absolute-git-dir is-inside-git-dir
			is-inside-work-tree is-bare-repository is-shallow-repository resolve-git-dir= git-path= show-cdup
			show-prefix show-toplevel show-superproject-working-tree shared-index-path show-object-format[=]
			show-ref-format since= after= until= before=`),
		"rev-list":   gitReader(gitLog + ` objects objects-edge objects-edge-aggressive unpacked object-names no-object-names filter= filter-print-omitted missing= exclude-promisor-objects header timestamp bisect-vars bisect-all in-commit-order disk-usage[=] no-kept-objects`),
		"describe":   gitReader(`dirty[=] broken[=] all tags contains abbrev= candidates= exact-match debug long match= exclude= always first-parent`),
		"grep":       gitReader(`cached untracked no-index no-exclude-standard exclude-standard recurse-submodules a|text textconv no-textconv i|ignore-case I max-depth= r|recursive no-recursive w|word-regexp v|invert-match h H full-name E|extended-regexp G|basic-regexp P|perl-regexp F|fixed-strings n|line-number column l|files-with-matches name-only L|files-without-match O|open-files-in-pager[=]:run z|null o|only-matching c|count color[=] no-color break heading p|show-function C|context= A|after-context= B|before-context= W|function-context m|max-count= threads= f=:read e= and or not all-match q|quiet #`).with(func(sp *spec) { sp.operands = opPattern }),
		"cat-file":   gitReader(`t s e p batch[=] batch-check[=] batch-command[=] batch-all-objects buffer unordered follow-symlinks textconv filters path= allow-unknown-type mailmap no-mailmap Z z`),
		"show-ref":   gitReader(`head heads tags branches verify exists d|dereference s|hash[=] abbrev[=] q|quiet exclude-existing[=]`),
		"merge-base": gitReader(`a|all octopus independent is-ancestor fork-point`),
		"name-rev":   gitReader(`tags refs= exclude= all annotate-stdin name-only undefined always`),
		"for-each-ref": gitReader(`count= sort= format= color[=] shell perl python tcl points-at= merged[=]
			no-merged[=] contains[=] no-contains[=] ignore-case omit-empty exclude= include-root-refs`),
		"count-objects": gitReader(`v|verbose H|human-readable`),
		"check-ignore":  gitReader(`q|quiet v|verbose stdin z n|non-matching no-index`),
		"check-attr":    gitReader(`a|all cached stdin z source=`),
		"whatchanged":   gitReader(gitDiff + " " + gitLog),
		"diff-tree":     gitReader(gitDiff + ` r root merge-base stdin m v no-commit-id pretty[=] encoding= c cc combined-all-paths always`),
		"diff-files":    gitReader(gitDiff + ` 1 2 3 0 c cc q`),
		"diff-index":    gitReader(gitDiff + ` cached merge-base m`),
		"var":           gitReader(`l`),
		"version":       gitReader(`build-options`),
		"help":          gitReader(`a|all no-external-commands no-aliases verbose c|config g|guides user-interfaces developer-interfaces i|info m|man w|web`),
		"branch": {configured: true, opts: options(`a|all r|remotes v|verbose vv q|quiet list l contains[=] no-contains[=]
			merged[=] no-merged[=] points-at= sort= format= color[=] no-color column[=] no-column show-current
			abbrev[=] no-abbrev omit-empty i|ignore-case d|delete:git D:git m|move:git M:git c|copy:git C:git
			f|force:git u|set-upstream-to=:git unset-upstream:git t|track[=]:git no-track:git edit-description:git
			create-reflog:git recurse-submodules:git h`), operands: opText, check: gitListing},
		"tag": {configured: true, opts: options(`l|list n[=] contains[=] no-contains[=] merged[=] no-merged[=]
			points-at= sort= format= color[=] column[=] no-column i|ignore-case omit-empty v|verify
			a|annotate:git s|sign:git u|local-user=:git f|force:git d|delete:git m|message=:git F|file=:git
			e|edit:git cleanup=:git create-reflog:git trailer=:git h`), operands: opText, check: gitListing},
		"stash": {configured: true, operands: opText, check: func(k *check) {
			if ops := k.p.operands; len(ops) > 0 && ops[0].Static && (ops[0].Text == "list" || ops[0].Text == "show") {
				return
			}
			k.leaves(KindProtected, "%s", writes)
		}},
		"remote": {configured: true, operands: opText, check: func(k *check) {
			ops := k.p.operands
			for len(ops) > 0 && ops[0].Static && strings.HasPrefix(ops[0].Text, "-") {
				ops = ops[1:]
			}
			if len(ops) == 0 || ops[0].Text == "get-url" {
				return // lists the remotes
			}
			switch ops[0].Text {
			case "show", "update", "prune", "set-head":
				if ops[0].Text == "show" && len(ops) > 1 && ops[1].Text == "-n" {
					return
				}
				k.leaves(KindNetwork, "reaches the remote repositories")
			default:
				k.leaves(KindProtected, "%s", writes)
			}
		}},
		"config":    {configured: true, operands: opText, check: gitConfig},
		"worktree":  {configured: true, operands: opText, check: gitListed("list", writes)},
		"reflog":    {configured: true, operands: opText, check: gitListed("show", writes)},
		"notes":     {configured: true, operands: opText, check: gitListed("list", writes)},
		"submodule": {configured: true, operands: opText, check: gitListed("status", "reaches the submodules' remotes and writes .git, which the sandbox keeps read-only")},
		"clean": {configured: true, opts: options(`d f|force i|interactive n|dry-run q|quiet e|exclude= x X h`),
			operands: opText, check: func(k *check) {
				if k.p.given("-n") || !k.p.given("-f") {
					return // without -f it deletes nothing (clean.requireForce)
				}
				k.here(KindDeletes, "deletes the files git does not track")
			}},
		"apply": {configured: true, opts: options(`stat numstat summary check index cached intent-to-add 3|3way
			ours theirs union build-fake-ancestor=:write R|reverse reject z p= C= unidiff-zero apply no-add
			allow-binary-replacement binary exclude= include= ignore-space-change ignore-whitespace whitespace=
			inaccurate-eof v|verbose q|quiet recount directory= unsafe-paths allow-empty h`), operands: opRead,
			check: func(k *check) {
				if k.p.given("--index", "--cached", "-3") {
					k.leaves(KindProtected, "%s", writes)
				} else if !k.p.given("--stat", "--numstat", "--summary", "--check") {
					k.here(KindWrites, "writes the files the patch changes")
				}
			}},
		"restore": {configured: true, operands: opText, check: func(k *check) {
			for _, w := range k.p.operands {
				if w.Static && (w.Text == "--staged" || w.Text == "-S" || strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.Contains(w.Text, "S")) {
					k.leaves(KindProtected, "%s", writes)
					return
				}
			}
			k.here(KindWrites, "writes files from the index")
		}},
		"format-patch": {configured: true, opts: options(gitDiff + " " + gitLog + ` o|output-directory=:writedir
			stdout numbered no-numbered start-number= numbered-files k|keep-subject signoff cover-letter
			no-cover-letter subject-prefix= rfc[=] filename-max-length= v|reroll-count= to= from[=]
			in-reply-to= attach[=] inline[=] thread[=] no-thread signature= no-signature signature-file=:read
			suffix= no-binary zero-commit base= progress interdiff= range-diff= creation-factor=
			cover-from-description= description-file=:read force-in-body-from h`), operands: opText,
			does: &nature{Sandbox, KindWrites, "writes patch files"}, check: func(k *check) {
				if !k.p.given("-o", "--stdout") {
					k.here(KindWrites, "writes patch files")
				}
			}},
		"archive": {configured: true, opts: options(`format= l|list v|verbose prefix= add-file=:read
			add-virtual-file= o|output=:write worktree-attributes mtime= remote=:net exec=:run 0 1 2 3 4 5 6 7 8 9 h`),
			operands: opText},
		"bundle": {configured: true, operands: opText, check: func(k *check) {
			if ops := k.p.operands; len(ops) > 1 && ops[0].Text == "create" {
				k.write(ops[1])
			}
		}},
		"init":  gitWriter("makes a repository, a .git the sandbox would set aside"),
		"clone": gitRemote("fetches a repository from the network"),
		"push": {configured: true, operands: opText, does: &nature{Leaves, KindNetwork,
			"publishes commits to a remote repository"}},
	}
	for _, name := range []string{"add", "commit", "rm", "mv", "checkout", "switch", "reset", "merge", "rebase",
		"cherry-pick", "revert", "am", "update-index", "update-ref", "symbolic-ref", "gc", "prune", "repack",
		"maintenance", "filter-branch", "replace", "bisect", "sparse-checkout", "read-tree", "commit-tree",
		"write-tree", "hash-object", "mktag", "mktree", "pack-refs", "fsck", "lfs", "rerere", "checkout-index",
		"merge-file", "citool", "gui"} {
		subs[name] = w
	}
	for _, name := range []string{"fetch", "pull", "ls-remote", "fetch-pack", "send-pack", "request-pull",
		"svn", "p4", "send-email", "imap-send", "daemon", "http-backend", "http-fetch", "upload-pack",
		"receive-pack", "instaweb"} {
		subs[name] = gitRemote("reaches a remote repository over the network")
	}
	add(&spec{safe: true, opts: gitGlobal, style: exact, strict: true, configured: true, subs: subs,
		check: nil}, "git")
}

// gitListing: git branch and git tag list unless they are given a name
// (or an option that writes).
func gitListing(k *check) {
	if len(k.p.operands) > 0 && !k.p.given("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at") {
		k.leaves(KindProtected, "makes %s, which writes .git, which the sandbox keeps read-only", k.p.operands[0].Text)
	}
}

// gitListed: a git command that only reads when its first operand is
// one of read (or there is none), and otherwise does what reason says.
func gitListed(read, reason string) func(*check) {
	return func(k *check) {
		ops := k.p.operands
		if len(ops) == 0 || ops[0].Static && ops[0].Text == read {
			return
		}
		if strings.Contains(reason, "remotes") {
			k.leaves(KindNetwork, "%s", reason)
			return
		}
		k.leaves(KindProtected, "%s", reason)
	}
}

// gitConfig: git config reads unless it is told to set, unset, edit or
// rename (and then it writes .git/config, or ~/.gitconfig with
// --global).
func gitConfig(k *check) {
	var ops []Word
	writes := false
	where := ".git/config"
	args := k.p.operands
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			ops = append(ops, w)
			continue
		}
		switch v := w.Text; {
		case v == "--global":
			where = "~/.gitconfig"
		case v == "--system":
			where = "/etc/gitconfig"
		case v == "-f" || v == "--file":
			if i+1 < len(args) {
				where = args[i+1].Text
			}
			i++
		case strings.HasPrefix(v, "--file="):
			where = strings.TrimPrefix(v, "--file=")
		case v == "--blob" || v == "--default" || v == "--type" || v == "--value" || v == "--comment":
			i++
		case v == "--unset" || v == "--unset-all" || v == "--add" || v == "--replace-all" ||
			v == "--rename-section" || v == "--remove-section" || v == "-e" || v == "--edit":
			writes = true
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, w)
		}
	}
	// git config set|unset|get|list ...: the subcommand says it.
	if len(ops) > 0 && ops[0].Static {
		switch ops[0].Text {
		case "set", "unset", "rename-section", "remove-section", "edit":
			writes = true
		case "get", "list":
			ops = nil
		}
	}
	if len(ops) > 1 {
		writes = true // git config NAME VALUE
	}
	if !writes {
		return
	}
	if where == ".git/config" {
		k.leaves(KindProtected, "sets configuration in .git/config, which the sandbox keeps read-only")
		return
	}
	if where == "~/.gitconfig" || where == "/etc/gitconfig" {
		k.leaves(KindOutside, "sets configuration in %s, outside the working directory", where)
		return
	}
	k.write(Word{Text: where, Static: true})
}
