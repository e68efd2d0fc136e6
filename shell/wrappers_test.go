package shell

import (
	"reflect"
	"strings"
	"testing"
)

// wrapperCase is a command line that goes through one part (field) of a
// row of the wrappers table. want is "" if the line is allowed, else a
// part of the refusal.
type wrapperCase struct {
	row, field, cmd, want string
}

// runsRm is what the shell policy says of a command line that runs rm;
// the analysis lists rm.
const runsRm = `"rm" is on the block list`

var wrapperCases = []wrapperCase{
	{"command", "opts", "command -p rm x", runsRm},
	{"command", "noCommand", "command -v rm", ""},
	{"command", "noCommand", "command -V rm", ""},
	{"builtin", "opts", "builtin rm x", runsRm},
	{"nohup", "opts", "nohup -- rm x", runsRm},
	{"unbuffer", "opts", "unbuffer -p rm x", runsRm},
	{"busybox", "opts", "busybox rm x", runsRm},
	{"nocorrect", "opts", "nocorrect rm x", runsRm},
	{"noglob", "opts", "noglob rm x", runsRm},
	{"exec", "opts", "exec -a name -cl rm x", runsRm},
	{"nice", "opts", "nice -n 5 rm x", runsRm},
	{"nice", "opts", "nice -5 rm x", runsRm},
	{"nice", "opts", "nice --adjustment=5 rm x", runsRm},
	{"nice", "opts", "nice -z rm x", "cannot tell which command nice runs: unknown option -z"},
	{"time", "opts", "/usr/bin/time -f %e -o out rm x", runsRm + " (run by time)"}, // the keyword time is not this row,
	{"timeout", "opts", "timeout -s KILL --kill-after 1 5 rm x", runsRm},
	{"timeout", "skip", "timeout 5 rm x", runsRm + " (run by timeout)"},
	{"timeout", "skip", "timeout 5", ""},
	{"stdbuf", "opts", "stdbuf -oL rm x", runsRm},
	{"setsid", "opts", "setsid -f rm x", runsRm},
	{"chroot", "opts", "chroot --userspec=1:1 / rm x", runsRm},
	{"chroot", "skip", "chroot /srv rm x", runsRm},
	{"ionice", "opts", "ionice -c 3 rm x", runsRm},
	{"ionice", "noCommand", "ionice -c 3 -p 1 rm", ""},
	{"ionice", "noCommand", "ionice --pgid 1 rm", ""},
	{"taskset", "opts", "taskset -c 0 rm x", runsRm},
	{"taskset", "noCommand", "taskset -p 3 rm", ""},
	{"taskset", "skip", "taskset 3 rm x", runsRm},
	{"taskset", "skip", "taskset 3", ""},
	{"sudo", "opts", "sudo -u root -h rm x", runsRm},
	{"sudo", "opts", "sudo --preserve-env=PATH rm x", runsRm},
	{"sudo", "noCommand", "sudo -e rm", ""},
	{"sudo", "assigns", "sudo FOO=1 rm x", runsRm},
	{"sudo", "assigns", "sudo FOO=1 BAR=2", ""},
	{"sudo", "stdinShell", "sudo -s <<'EOF'\nrm x\nEOF", runsRm + " (in the command line run by sudo -s reading standard input)"},
	{"sudo", "stdinShell", "sudo -i", "cannot check the commands sudo -s reads from standard input"},
	{"doas", "opts", "doas -u root rm x", runsRm},
	{"doas", "stdinShell", "doas -s <<'EOF'\nrm x\nEOF", runsRm},
	{"doas", "stdinShell", "doas -s < /dev/stdin", "not literal"},
	{"flock", "opts", "flock -w 1 lock rm x", runsRm},
	{"flock", "lineOpt", "flock -c 'rm x' lock", runsRm},
	{"flock", "lineOpt", "flock --command='ls; rm x' lock", runsRm},
	{"flock", "skip", "flock lock rm x", runsRm},
	{"flock", "skip", "flock lock", ""},
	{"flock", "lineAfterSkip", "flock lock -c 'rm x'", runsRm + " (in the command line run by flock -c)"},
	{"flock", "lineAfterSkip", "flock lock -c \"$cmd\"", "the command line run by flock -c"},
	{"flock", "lineAfterSkip", "flock lock -c", ""},
	{"watch", "opts", "watch -n 1 -d rm x", runsRm},
	{"watch", "lineOperands", "watch 'ls; rm x'", runsRm + " (in the command line run by watch)"},
	{"watch", "argvOpts", "watch -x rm x", runsRm + " (run by watch)"},
	{"watch", "argvOpts", "watch -x ls ';' echo", ""},
	{"script", "opts", "script -q -c 'rm x' out", runsRm},
	{"script", "lineOpt", "script out --command 'rm x'", runsRm + " (in the command line run by script -c)"},
	{"script", "interactive", "script out", "cannot check an interactive shell (script without -c)"},
	{"xargs", "opts", "xargs -0 -n 1 rm", runsRm},
	{"xargs", "reads", "xargs", ""},
	{"xargs", "reads", "xargs -n1 sh -c", "(the words xargs reads) is not a literal word"},
	{"xargs", "replaceOpt", "xargs -I{} ls {}", ""},
	{"xargs", "replaceOpt", "xargs -i sh -c {}", "with the words xargs reads"},
	{"xargs", "replaceOpt", "xargs --replace=R ls R", ""},
}

// TestWrapperTable parses each case and checks that every row of the
// wrappers table, and every part of it that is set, has one. A case that
// runs rm must list rm; one that runs nothing must be OK and list no rm;
// the others must give a reason with want in it.
func TestWrapperTable(t *testing.T) {
	for _, c := range wrapperCases {
		if _, ok := wrappers[c.row]; !ok {
			t.Errorf("case %q: no row %q", c.cmd, c.row)
		}
		a := Parse(c.cmd)
		rm := false
		for i := range a.Commands {
			rm = rm || a.Commands[i].Name == "rm" && len(a.Commands[i].Via) > 0
		}
		switch {
		case c.want == "":
			if rm || !a.OK() {
				t.Errorf("%s: Parse(%q) lists rm (%v) or is not OK (%v); want neither", c.row, c.cmd, rm, a.Unknown)
			}
		case strings.HasPrefix(c.want, runsRm):
			if !rm {
				t.Errorf("%s: Parse(%q) lists no rm run by another command; want one", c.row, c.cmd)
			}
		default:
			found := false
			for _, u := range a.Unknown {
				found = found || strings.Contains(u.Reason, c.want)
			}
			if !found {
				t.Errorf("%s: Parse(%q) gives the reasons %q; want one with %q", c.row, c.cmd, a.Unknown, c.want)
			}
		}
	}

	covered := map[[2]string]bool{}
	for _, c := range wrapperCases {
		covered[[2]string{c.row, c.field}] = true
	}
	typ := reflect.TypeFor[wrapper]()
	for name, w := range wrappers {
		v := reflect.ValueOf(w)
		for i := range typ.NumField() {
			f := typ.Field(i).Name
			if !v.Field(i).IsZero() && !covered[[2]string{name, f}] {
				t.Errorf("row %s: %s is set, but no case goes through it", name, f)
			}
		}
		if _, twice := commandRules[name]; twice {
			t.Errorf("%s is both a wrapper and a command rule", name)
		}
	}
}
