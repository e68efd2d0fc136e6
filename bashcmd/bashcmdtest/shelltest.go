// Package bashcmdtest holds test cases shared by the Bash reader (package
// bashcmd) and the shell policies built on it, so all read one table: the
// wrapper cases here and the corpus of command lines (corpus.txt).
package bashcmdtest

import "strings"

// WrapperCase is a command line that goes through one part (Field, a
// field of the wrapper type) of a row (Row, a wrapper's name) of the bashcmd
// package's wrappers table. Want is "" if the line runs nothing a block
// list of rm refuses, RunsRm (perhaps with a suffix) if it runs rm, else a
// part of the reason the analysis gives for what it cannot read.
type WrapperCase struct {
	Row, Field, Cmd, Want string
}

// RunsRm is what the shell policy says of a command line that runs rm
// when rm is blocked; the analysis lists rm, run by another command.
const RunsRm = `"rm" is on the block list`

// WrapperCases returns the cases, at least one for every part of every
// row that is set.
func WrapperCases() []WrapperCase { return append([]WrapperCase(nil), wrapperCases...) }

var wrapperCases = []WrapperCase{
	{"command", "opts", "command -p rm x", RunsRm},
	{"command", "noCommand", "command -v rm", ""},
	{"command", "noCommand", "command -V rm", ""},
	{"builtin", "opts", "builtin rm x", RunsRm},
	{"nohup", "opts", "nohup -- rm x", RunsRm},
	{"unbuffer", "opts", "unbuffer -p rm x", RunsRm},
	{"busybox", "opts", "busybox rm x", RunsRm},
	{"nocorrect", "opts", "nocorrect rm x", RunsRm},
	{"noglob", "opts", "noglob rm x", RunsRm},
	{"exec", "opts", "exec -a name -cl rm x", RunsRm},
	{"nice", "opts", "nice -n 5 rm x", RunsRm},
	{"nice", "opts", "nice -5 rm x", RunsRm},
	{"nice", "opts", "nice --adjustment=5 rm x", RunsRm},
	{"nice", "opts", "nice -z rm x", "cannot tell which command nice runs: unknown option -z"},
	{"time", "opts", "/usr/bin/time -f %e -o out rm x", RunsRm + " (run by time)"}, // the keyword time is not this row,
	{"timeout", "opts", "timeout -s KILL --kill-after 1 5 rm x", RunsRm},
	{"timeout", "skip", "timeout 5 rm x", RunsRm + " (run by timeout)"},
	{"timeout", "skip", "timeout 5", ""},
	{"stdbuf", "opts", "stdbuf -oL rm x", RunsRm},
	{"setsid", "opts", "setsid -f rm x", RunsRm},
	{"chroot", "opts", "chroot --userspec=1:1 / rm x", RunsRm},
	{"chroot", "skip", "chroot /srv rm x", RunsRm},
	{"ionice", "opts", "ionice -c 3 rm x", RunsRm},
	{"ionice", "noCommand", "ionice -c 3 -p 1 rm", ""},
	{"ionice", "noCommand", "ionice --pgid 1 rm", ""},
	{"taskset", "opts", "taskset -c 0 rm x", RunsRm},
	{"taskset", "noCommand", "taskset -p 3 rm", ""},
	{"taskset", "skip", "taskset 3 rm x", RunsRm},
	{"taskset", "skip", "taskset 3", ""},
	{"sudo", "opts", "sudo -u root -h rm x", RunsRm},
	{"sudo", "opts", "sudo --preserve-env=PATH rm x", RunsRm},
	{"sudo", "noCommand", "sudo -e rm", ""},
	{"sudo", "assigns", "sudo FOO=1 rm x", RunsRm},
	{"sudo", "assigns", "sudo FOO=1 BAR=2", ""},
	{"sudo", "stdinShell", "sudo -s <<'EOF'\nrm x\nEOF", RunsRm + " (in the command line run by sudo -s reading standard input)"},
	{"sudo", "stdinShell", "sudo -i", "cannot check the commands sudo -s reads from standard input"},
	{"doas", "opts", "doas -u root rm x", RunsRm},
	{"doas", "stdinShell", "doas -s <<'EOF'\nrm x\nEOF", RunsRm},
	{"doas", "stdinShell", "doas -s < /dev/stdin", "not literal"},
	{"flock", "opts", "flock -w 1 lock rm x", RunsRm},
	{"flock", "lineOpt", "flock -c 'rm x' lock", RunsRm},
	{"flock", "lineOpt", "flock --command='ls; rm x' lock", RunsRm},
	{"flock", "skip", "flock lock rm x", RunsRm},
	{"flock", "skip", "flock lock", ""},
	{"flock", "lineAfterSkip", "flock lock -c 'rm x'", RunsRm + " (in the command line run by flock -c)"},
	{"flock", "lineAfterSkip", "flock lock -c \"$cmd\"", "the command line run by flock -c"},
	{"flock", "lineAfterSkip", "flock lock -c", ""},
	{"watch", "opts", "watch -n 1 -d rm x", RunsRm},
	{"watch", "lineOperands", "watch 'ls; rm x'", RunsRm + " (in the command line run by watch)"},
	{"watch", "argvOpts", "watch -x rm x", RunsRm + " (run by watch)"},
	{"watch", "argvOpts", "watch -x ls ';' echo", ""},
	{"script", "opts", "script -q -c 'rm x' out", RunsRm},
	{"script", "lineOpt", "script out --command 'rm x'", RunsRm + " (in the command line run by script -c)"},
	{"script", "interactive", "script out", "cannot check an interactive shell (script without -c)"},
	{"xargs", "opts", "xargs -0 -n 1 rm", RunsRm},
	{"xargs", "reads", "xargs", ""},
	{"xargs", "reads", "xargs -n1 sh -c", "(the words xargs reads) is not a literal word"},
	{"xargs", "replaceOpt", "xargs -I{} ls {}", ""},
	{"xargs", "replaceOpt", "xargs -i sh -c {}", "with the words xargs reads"},
	{"xargs", "replaceOpt", "xargs --replace=R ls R", ""},
}

// HostileCase is a command line built to exhaust the analysis: a shape
// nested or repeated until it is Size bytes long or more.
type HostileCase struct {
	Name, Cmd string
}

// Hostile returns hostile command lines of at least size bytes, one for
// each shape that nests the parser or the tree it builds: pipelines and
// lists (which nest the tree, not the parser), substitutions,
// backquotes, subshells, blocks, here-documents, if, while, case,
// arithmetic, the operators of arithmetic and [[ ]], parameter
// expansions, time, functions, and substitutions whose quoted closing
// brackets hide their nesting from a count of brackets. At a size of
// 32 KiB or more, the analysis reads none of them.
func Hostile(size int) []HostileCase {
	// nest repeats open and close around middle until the result is size
	// bytes or more.
	nest := func(open, middle, close string) string {
		n := max(1, (size-len(middle))/(len(open)+len(close))+1)
		return strings.Repeat(open, n) + middle + strings.Repeat(close, n)
	}
	chain := func(head, sep string) string {
		return strings.Repeat(head+sep, max(1, size/(len(head)+len(sep))+1)) + head
	}
	heredocs := func() string {
		// $(cat <<E, with the here-document holding the next level.
		var b strings.Builder
		levels := size/len("$(cat <<E\n\nE\n)") + 1
		for range levels {
			b.WriteString("$(cat <<E\n")
		}
		for range levels {
			b.WriteString("\nE\n)")
		}
		return b.String()
	}
	return []HostileCase{
		{"pipeline", chain("a", "|")},
		{"and-list", chain("a", "&&")},
		{"substitutions", nest("$(", "a", ")")},
		{"backquotes", nest("`$(", "a", ")`")},
		{"subshells", nest("(", "a", ")")},
		{"blocks", nest("{ ", "a", "; }")},
		{"here-documents", heredocs()},
		{"if", nest("if a; then ", "a", "; fi")},
		{"while", nest("while a; do ", "a", "; done")},
		{"case", nest("case a in a) ", "a", ";; esac")},
		{"arithmetic", "echo $((" + nest("(", "1", ")") + "))"},
		{"arithmetic-operators", "echo $((" + chain("1", "**") + "))"},
		{"unary-operators", "echo $((" + nest("- ", "1", "") + "))"},
		{"tests", "[[ " + nest("! ", "a", "") + " ]]"},
		{"parameters", "echo " + nest("${a:-", "a", "}")},
		{"time", nest("time ", "a", "")},
		{"functions", nest("f() ", "{ a; }", "")},
		{"quoted-closers", nest("$( ')' ", "a", " )")},
	}
}
