package process

import (
	"strings"
	"testing"
)

// wrapperCase is a command line that goes through one part (field) of a
// row of the wrappers table. want is "" if the line is allowed, else a
// part of the refusal.
type wrapperCase struct {
	row, field, cmd, want string
}

// runsRm is the refusal of a command line that runs rm.
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

// TestWrapperTable runs each case through the policy. (Package shell
// checks that every part of every row of its wrappers table has a case.)
func TestWrapperTable(t *testing.T) {
	p := ShellPolicy{Block: []string{"rm"}}
	for _, c := range wrapperCases {
		err := p.Check(c.cmd)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Check(%q) = %v, want nil", c.row, c.cmd, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: Check(%q) = %v, want a refusal with %q", c.row, c.cmd, err, c.want)
		}
	}
}
