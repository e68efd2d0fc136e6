package process

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

func TestShellPolicyBlockList(t *testing.T) {
	p := ShellPolicy{Block: []string{"rm"}}
	refused := []string{
		// plain and lists
		`rm x`,
		`ls; rm -rf x`,
		`ls && rm x`,
		`ls || rm x`,
		"ls\nrm x",
		`ls & rm x &`,
		`! rm x`,
		`FOO=1 rm x`,
		// pipelines, substitutions, groups
		`ls | xargs rm`,
		`ls |& rm x`,
		`echo $(rm x)`,
		"echo `rm x`",
		`echo "$(rm x)"`,
		`ls $(echo; rm x)`,
		`x=$(rm y)`,
		`declare x=$(rm y)`,
		`echo ${x:-$(rm y)}`,
		`[[ -n $(rm x) ]]`,
		`(( $(rm x) ))`,
		`(rm x)`,
		`{ rm x; }`,
		`cat <(rm x)`,
		`tee >(rm x)`,
		`coproc rm x`,
		"cat <<EOF\n$(rm x)\nEOF",
		// control flow and functions
		`if true; then rm x; fi`,
		`if rm x; then :; fi`,
		`while false; do rm x; done`,
		`until true; do rm x; done`,
		`for f in *; do rm $f; done`,
		`for ((i=0; i<1; i++)); do rm x; done`,
		`case x in x) rm x;; esac`,
		`select f in a; do rm $f; done`,
		`f() { rm x; }; f`,
		`function f { rm x; }`,
		`time rm x`,
		// spelling of the name
		`/bin/rm x`,
		`/usr/bin/rm -rf x`,
		`./rm x`,
		`~/bin/rm x`,
		`\rm x`,
		`r\m x`,
		`"rm" x`,
		`'r'"m" x`,
		`$'rm' x`,
		`$'\x72m' x`,
		`{r,}m x`,
		`{rm,x}`,
		`{r,"m"} x`,
		`/bin/r? x`,
		`/bin/r[m] x`,
		`/bin/r["m"] x`,
		`=rm x`,
		`$CMD x`,
		`"$(echo rm)" -rf x`,
		`${RM:-rm} x`,
		// wrappers
		`env rm x`,
		`env -i FOO=1 rm x`,
		`env -u HOME rm x`,
		`env -iu HOME rm x`,
		`env FOO=$x rm x`,
		`env -- rm x`,
		`env -S "rm x"`,
		`env -S "-i FOO=1 rm" x`,
		`env --split-string="-i rm" x`,
		`env --frobnicate rm x`,
		`env $X rm x`,
		`command rm x`,
		`command -p rm x`,
		`builtin eval "rm x"`,
		`exec rm x`,
		`exec -a name rm x`,
		`nice rm x`,
		`nice -n 5 rm x`,
		`nice -n5 rm x`,
		`nice -5 rm x`,
		`nice --adjustment=5 rm x`,
		`nohup rm x`,
		`/usr/bin/time -f %e rm x`,
		`command time -p rm x`,
		`timeout 5 rm x`,
		`timeout -s KILL 5 rm x`,
		`timeout --signal=KILL -k 1 5s rm x`,
		`timeout $T rm x`,
		`xargs rm`,
		`xargs -0 rm`,
		`xargs -I{} rm {}`,
		`xargs -n 1 -P4 rm`,
		`xargs -i rm {}`,
		`sudo rm x`,
		`sudo -u root rm x`,
		`sudo -E FOO=1 rm x`,
		`doas -u root rm x`,
		`stdbuf -oL rm x`,
		`setsid -f rm x`,
		`chroot / rm x`,
		`ionice -c 3 rm x`,
		`taskset -c 0 rm x`,
		`flock /tmp/l rm x`,
		`flock -w 5 /tmp/l -c 'rm x'`,
		`watch rm x`,
		`watch -n 1 'ls; rm x'`,
		`watch -x rm x`,
		`unbuffer rm x`,
		`busybox rm x`,
		`nohup nice -n 1 timeout 5 env FOO=1 rm x`,
		// command lines in strings
		`sh -c "rm x"`,
		`bash -c 'ls; rm x'`,
		`bash -ec 'rm x'`,
		`bash -o pipefail -c 'rm x'`,
		`bash --norc -c 'rm x'`,
		`/bin/bash -c "echo \$(rm x)"`,
		`zsh -c 'rm x'`,
		`dash -c 'rm x'`,
		`sh -c 'sh -c "rm x"'`,
		`bash -c "$CMD"`,
		`su -c 'rm x'`,
		`su root -c 'rm x'`,
		`script -qc 'rm x' /dev/null`,
		`eval "rm x"`,
		`eval rm x`,
		`eval $x`,
		`trap 'rm x' EXIT`,
		`alias ls=rm`,
		`alias l='ls; rm x'`,
		`hash -p /bin/rm ls; ls x`,
		`find . -exec rm {} \;`,
		`find . -name '*.o' -execdir rm -f {} +`,
		`find . -ok rm {} \;`,
		`find $DIR -name x`,
		"r\\\nm x",
		`xargs sh -c 'rm "$@"' _`,
		`env -C /tmp rm x`,
		`time -p rm x`,
		`sudo -- rm x`,
		`sudo -h rm x`,
		`command exec rm x`,
		`builtin command rm x`,
		`bash -c -- 'rm x'`,
		`source <(echo rm x)`,
		`. "$f"`,
		`. /dev/stdin <<< 'rm x'`,
		`bash /dev/stdin <<< 'rm x'`,
		`bash <(echo rm x)`,
		`bash /dev/fd/3 3< <(echo rm x)`,
		// shells reading standard input
		`echo "rm x" | bash`,
		`bash < script.sh`,
		`bash -s < script.sh`,
		"bash <<'EOF'\nrm x\nEOF",
		"bash <<EOF\nr\\\\m x\nEOF",
		"bash <<EOF\n$CMD\nEOF",
		`bash <<< 'rm x'`,
		`env bash <<< 'rm x'`,
		`su`,
		// parse errors
		`ls (`,
		`echo "unterminated`,
		`if true; then ls`,
		`bash -c 'ls ('`,
	}
	for _, cmd := range refused {
		t.Run(cmd, func(t *testing.T) {
			err := p.Check(cmd)
			if err == nil {
				t.Fatalf("Check(%q) = nil, want a refusal", cmd)
			}
			if !errors.Is(err, ErrRefused) {
				t.Errorf("Check(%q) = %v, which does not wrap ErrRefused", cmd, err)
			}
			if msg := err.Error(); msg != strings.ToLower(msg[:1])+msg[1:] || !strings.HasPrefix(msg, "shell policy: ") {
				t.Errorf("Check(%q) = %q, want a lowercase message starting with %q", cmd, msg, "shell policy: ")
			}
		})
	}

	allowed := []string{
		``,
		"   \n\t",
		`# rm x`,
		`ls -la`,
		`ls | grep foo`,
		`echo rm`,
		`echo "rm x" > notes.txt`,
		`rmdir x`,
		`grep -r rm .`,
		`git rm --cached x`, // git's own subcommand: not a program
		`cat > /etc/passwd`, // redirections are not checked
		"cat <<EOF\nrm x\nEOF",
		`command -v rm`,
		`bash script.sh`,
		`source ./env.sh`,
		`. /dev/stdin <<< 'ls'`,
		`find . -name rm -print`,
		`[ -f x ] && echo yes`,
		`[[ -f x ]]`,
		`x=1`,
		`export FOO=1; ls`,
		`env`,
		`env FOO=1 ls`,
		`env -i PATH=/bin ls -l`,
		`sudo -e /etc/hosts`,
		`f() { ls; }; f`,
		`timeout 5 ls`,
		`nice -n 5 make`,
		`bash -c 'ls -la'`,
		`sh -c 'echo $1' sh rm`,
		"bash <<'EOF'\nls\nEOF",
		`eval "ls -l"`,
		`trap - EXIT`,
		`alias ll='ls -l'`,
		`for f in *.go; do gofmt -l "$f"; done`,
		`echo $((1 + 2))`,
		`ls "$HOME"`,
		`ls ${DIR}/x`,
		`xargs -I{} echo {}`,
		`find . -exec grep -l rm {} +`,
	}
	for _, cmd := range allowed {
		t.Run("allowed/"+cmd, func(t *testing.T) {
			if err := p.Check(cmd); err != nil {
				t.Fatalf("Check(%q) = %v, want nil", cmd, err)
			}
		})
	}
}

func TestShellPolicyAllowList(t *testing.T) {
	tests := []struct {
		allow, block []string
		cmd          string
		want         string // "" = allowed; else a fragment of the error
	}{
		{allow: []string{"ls", "grep"}, cmd: `ls | grep x`},
		{allow: []string{"ls"}, cmd: `/usr/bin/ls -l`},
		{allow: []string{"/usr/bin/ls"}, cmd: `ls -l`},
		{allow: []string{"ls"}, cmd: `rm x`, want: `"rm" is not on the allow list`},
		{allow: []string{"ls"}, cmd: `ls; rm x`, want: `"rm" is not on the allow list`},
		{allow: []string{"ls"}, cmd: `ls $(whoami)`, want: `"whoami" is not on the allow list`},
		{allow: []string{"ls"}, cmd: `$CMD`, want: `not a literal word; refused because an allow list is set`},
		{block: []string{"rm"}, cmd: `$CMD`, want: `not a literal word; refused because the block list is set`},
		{allow: []string{"ls", "bash"}, cmd: `bash -c 'ls -l'`},
		{allow: []string{"ls", "bash"}, cmd: `bash -c 'ls; rm x'`, want: `"rm" is not on the allow list (in the command line run by bash -c)`},
		{allow: []string{"ls", "env"}, cmd: `env ls`},
		{allow: []string{"ls"}, cmd: `env ls`, want: `"env" is not on the allow list`},
		{allow: []string{"ls", "env"}, cmd: `env rm x`, want: `"rm" is not on the allow list (run by env)`},
		{allow: []string{"ls"}, cmd: `eval ls`, want: `"eval" is not on the allow list`},
		{allow: []string{"ls", "eval"}, cmd: `eval ls`},
		{allow: []string{"ls", "eval"}, cmd: `eval "rm x"`, want: `"rm" is not on the allow list (in the command line run by eval)`},
		{allow: []string{"ls", "eval"}, cmd: `eval "$x"`, want: `not a literal word`},
		{allow: []string{"ls"}, cmd: `f() { ls; }; f`},
		{allow: []string{"ls"}, cmd: `f() { rm x; }; f`, want: `"rm" is not on the allow list`},
		// A function is called by its name alone, not by a path or by a
		// program that runs programs.
		{allow: []string{"ls"}, cmd: `f() { ls; }; ./f`, want: `"f" is not on the allow list`},
		{allow: []string{"ls", "find"}, cmd: `f() { ls; }; find . -exec f \;`, want: `"f" is not on the allow list (run by find)`},
		{block: []string{"rm"}, cmd: `find . -exec rm {} \;`, want: `"rm" is on the block list (run by find)`},
		{allow: []string{"ls"}, cmd: `export X=1`, want: `"export" is not on the allow list`},
		{allow: []string{"ls"}, cmd: `let x=1`, want: `"let" is not on the allow list`},
		{allow: []string{"ls"}, cmd: `[[ -f x ]] && ls`},
		{allow: []string{"ls", "rm"}, block: []string{"rm"}, cmd: `rm x`, want: `"rm" is on the block list`},
		{block: []string{"rm"}, cmd: `env rm x`, want: `"rm" is on the block list (run by env)`},
		{block: []string{"rm"}, cmd: `sh -c 'timeout 5 rm x'`, want: `"rm" is on the block list (run by timeout, in the command line run by sh -c)`},
		{block: []string{"rm"}, cmd: `echo "rm x" | bash`, want: `cannot check the commands bash reads from standard input`},
		{block: []string{"rm"}, cmd: `ls (`, want: `cannot parse the command: `},
		{block: []string{"rm"}, cmd: `bash -c 'ls ('`, want: `cannot parse the command line run by bash -c: `},
		{block: []string{"rm"}, cmd: `env --frobnicate rm`, want: `cannot tell which command env runs: unknown option --frobnicate`},
		{block: []string{"rm"}, cmd: strings.Repeat(`eval `, 12) + `ls`, want: `nested more than 8 levels`},
		// No list: everything that parses.
		{cmd: `rm -rf /`},
		{cmd: `$CMD`},
		{cmd: `echo "rm x" | bash`},
		{cmd: `ls (`, want: `cannot parse the command`},
	}
	for _, tt := range tests {
		name := tt.cmd + " allow=" + strings.Join(tt.allow, ",") + " block=" + strings.Join(tt.block, ",")
		t.Run(name, func(t *testing.T) {
			err := ShellPolicy{Allow: tt.allow, Block: tt.block}.Check(tt.cmd)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check(%q) = %v, want nil", tt.cmd, err)
			case tt.want != "" && err == nil:
				t.Fatalf("Check(%q) = nil, want an error containing %q", tt.cmd, tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Check(%q) = %q, want it to contain %q", tt.cmd, err, tt.want)
			}
		})
	}
}

// TestShellPolicyEvaluation checks the places where bash evaluates text:
// what a value must be for a name to be evaluated, in any order of the
// text, and the builtins that evaluate names, prompts and aliases.
func TestShellPolicyEvaluation(t *testing.T) {
	tests := []struct {
		cmd  string
		want string // "" = allowed; else a fragment of the error
	}{
		// Names holding numbers may be evaluated.
		{cmd: `n=5; (( n ))`},
		{cmd: `n=$((1 + 2)); echo $((n * 2))`},
		{cmd: `n=0x1f m=2#101 k=-3; echo $((n + m + k))`},
		{cmd: `m=$n; (( m ))`},
		{cmd: `y=1$n; (( y ))`},
		{cmd: `x=${n:-0}; (( x ))`},
		{cmd: `x=$# y=$? z=${#s}; (( x + y + z ))`},
		{cmd: `for i in 1 2 -3; do (( i )); done`},
		{cmd: `for i in {1..3}; do (( i )); done`},
		{cmd: `(( RANDOM % 2 )) || true`},
		{cmd: `n=1; [[ $n -gt 0 && n -lt "2" ]]`},
		{cmd: `a=(1 2); (( a[1] + ${a[0]} ))`},
		{cmd: `declare -i n=5; n+=2; (( n ))`},
		{cmd: `let 'n = 2 + 3' n++`},
		{cmd: `echo "${!BASH*}" "${!a[@]}"`},
		{cmd: `x='a[$(rm x)]'; echo "$x" "${x@Q}" "${x@U}" "${#x}"`},
		{cmd: `x=$(cat f); [ "$x" -gt 0 ]`},
		// Names that may hold text may not, wherever the text is.
		{cmd: `x=$(cat f); (( x ))`, want: `cannot check x in an arithmetic expression: bash evaluates the value of x there`},
		{cmd: `while :; do (( x )) && break; x=$(cat f); done`, want: `cannot check x in an arithmetic expression`},
		{cmd: `a=$b; b=$c; c=$(cat f); (( a ))`, want: `cannot check a in an arithmetic expression`},
		{cmd: `y=${n}abc; (( y ))`, want: `cannot check y in`},
		{cmd: `: "$PWD"; (( PWD ))`, want: `bash gives it text the command line controls`},
		{cmd: `(( $1 ))`, want: `cannot check $1 in an arithmetic expression`},
		{cmd: `(( $(cat f) ))`, want: `cannot check $(cat f) in an arithmetic expression`},
		{cmd: `x=$(cat f); echo ${!x}`, want: `cannot check ${!x}`},
		{cmd: `declare -i m; m=n+1`, want: `cannot check the integer variable m (declare -i)`},
		{cmd: `read -r x; bash -c '(( x ))'`, want: `cannot check x in an arithmetic expression`},
		// Names given as text.
		{cmd: `read 'a[1]' < f; printf -v 'b[2]' x; unset 'a[1]'`},
		{cmd: `read 'a[$(rm x)]'`, want: `the subscript of a[$(rm x)] in a variable name given to read: cannot check $(rm x)`},
		{cmd: `read "$name"`, want: `which may be an option at run time`},
		{cmd: `printf "$fmt" x`, want: `which may be an option at run time`},
		{cmd: `printf -v '1x' y`, want: `"1x" is not a variable name`},
		{cmd: `declare -n r=x`, want: `cannot check declare -n`},
		{cmd: `export -n x`},
		// test and [ with -v.
		{cmd: `[ "$a" = "$b" ] && [ -n "$x" -a -z "$y" ] && [ -v x ] && test -v 'a[1]'`},
		{cmd: `[ "$op" "$x" ]`, want: `"$x" is not literal and follows "$op", which is or may be -v`},
		{cmd: `[ -v "$x" ]`, want: `is not literal and follows -v`},
		{cmd: `[[ -v $x ]]`, want: `cannot check the name given to -v in [[ ]]`},
		// Prompts, compound assignments, environment functions.
		{cmd: `PS4='+ '; set -x; ls`},
		{cmd: `PS4='+ $LINENO: '`, want: `cannot check PS4='+ $LINENO: ': bash expands the prompt string`},
		{cmd: `echo ${x@P}`, want: `cannot check ${x@P}: prompt expansion`},
		{cmd: `declare -a x=(a b) y; declare 'z=(1)'`},
		{cmd: `declare -a 'x=(1)'`, want: `x is an array, and declare parses a value starting with ( again`},
		{cmd: `x=(1); local x="$y"`, want: `x is an array`},
		{cmd: `env 'BASH_FUNC_f%%=() { ls; }' bash -c f`, want: `cannot check BASH_FUNC_f%%: bash imports it from the environment as a function`},
		{cmd: `echo $"hello"`, want: `cannot check $"...": bash translates it`},
		// Aliases.
		{cmd: `alias ll='ls -l' g='grep -n' c='ls #'`},
		{cmd: `alias x=eval`, want: `cannot check alias x="eval": the policy reads the arguments of eval`},
		{cmd: `alias x=read`, want: `the policy reads the arguments of read`},
		{cmd: `alias x='ls '`, want: `it ends in a blank or a backslash`},
		{cmd: `alias x='FOO=1 ls'`, want: `it is not one simple command`},
		{cmd: `alias x='ls > f'`, want: `it is not one simple command`},
		{cmd: `alias x='ls; ls'`, want: `it is not one simple command`},
		{cmd: `alias x='ls $(pwd)'`, want: `its words are not literal`},
		{cmd: `alias if=ls`, want: `it redefines a reserved word`},
		{cmd: `BASH_ALIASES[x]=ls`, want: `cannot check an assignment to BASH_ALIASES`},
		// Builtins that run strings.
		{cmd: `mapfile -t lines < f; compgen -W 'a b' a; jobs -l; fc -l`},
		{cmd: `mapfile -C 'rm -f' -c 1 < f`, want: `"rm" is on the block list (in the command line run by mapfile -C)`},
		{cmd: `compgen -C 'rm x' y`, want: `"rm" is on the block list (in the command line run by compgen -C)`},
		{cmd: `compgen -W '$(ls)' y`, want: `cannot check compgen -W '$(ls)'`},
		{cmd: `jobs -x rm x`, want: `"rm" is on the block list (run by jobs)`},
		{cmd: `fc -s`, want: `cannot check fc`},
		{cmd: `bind -x '"\C-a": ls'`, want: `cannot check bind -x`},
		{cmd: `eval -- 'rm x'`, want: `"rm" is on the block list (in the command line run by eval)`},
		{cmd: `xargs bash -c`, want: `(the words xargs reads) is not a literal word`},
		{cmd: `find . -exec sh -c 'echo {}' \;`, want: `'echo {}' (with a file name find puts there) is not a literal word`},
		// Shells: interactive ones, startup files, standard input.
		{cmd: `bash -i`, want: `cannot check an interactive shell (bash -i)`},
		{cmd: `script -q /dev/null`, want: `cannot check an interactive shell (script without -c)`},
		{cmd: `BASH_ENV=./env.sh bash -c ls`},
		{cmd: `BASH_ENV=/dev/stdin bash -c ls`, want: `cannot check the commands a shell started with BASH_ENV=/dev/stdin reads from standard input`},
		{cmd: `BASH_ENV=$f bash -c ls`, want: `cannot check BASH_ENV=$f:`},
		{cmd: `env BASH_ENV=$f bash -c ls`, want: `cannot check BASH_ENV=$f:`},
		{cmd: `sudo PS1='$x' BASH_ENV="$f" bash -c ls`, want: `cannot check PS1=$x:`},
		{cmd: `sudo BASH_ENV="$f" bash -c ls`, want: `cannot check BASH_ENV="$f":`},
		{cmd: `bash --rcfile /dev/fd/3 -c ls`, want: `cannot check the commands bash --rcfile reads from /dev/fd/3`},
		{cmd: `bash /proc/self/root/dev/stdin <<< 'ls'`},
		{cmd: `bash /proc/self/root/dev/stdin <<< 'rm x'`, want: `"rm" is on the block list (in the command line run by bash reading standard input)`},
		{cmd: `cd sub && bash ./run.sh && cd /tmp && bash /work/x.sh`},
		{cmd: `cd .. && bash run.sh`, want: `cannot check bash run.sh: the command line changes directory (cd ..)`},
		{cmd: `cd "$d"; source x.sh`, want: `changes directory (cd "$d")`},
		{cmd: `PATH=/opt/bin:$PATH; source lib.sh`, want: `cannot check source lib.sh: the command line changes PATH`},
		{cmd: `PATH=/opt/bin:$PATH; source ./lib.sh`},
		{cmd: `SHELL=/bin/rm script -qc ls /dev/null`, want: `"rm" is on the block list (run by SHELL)`},
	}
	p := ShellPolicy{Block: []string{"rm"}}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			err := p.Check(tt.cmd)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check(%q) = %v, want nil", tt.cmd, err)
			case tt.want != "" && err == nil:
				t.Fatalf("Check(%q) = nil, want an error containing %q", tt.cmd, tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Check(%q) = %q, want it to contain %q", tt.cmd, err, tt.want)
			case err != nil && !errors.Is(err, ErrRefused):
				t.Fatalf("Check(%q) = %v, which does not wrap ErrRefused", tt.cmd, err)
			}
			// Without a list, nothing is refused.
			if err := (ShellPolicy{}).Check(tt.cmd); err != nil {
				t.Errorf("with no list, Check(%q) = %v", tt.cmd, err)
			}
		})
	}
}

func TestShellPolicyActiveNames(t *testing.T) {
	if (ShellPolicy{}).Active() || (ShellPolicy{Allow: []string{" "}}).Active() {
		t.Error("a policy without names is active")
	}
	if !(ShellPolicy{Block: []string{"rm"}}).Active() {
		t.Error("a block list is not active")
	}
	p := ShellPolicy{Allow: []string{"/usr/bin/python3", "node"}, Block: []string{"node"}}
	for name, want := range map[string]bool{"python3": true, "/usr/local/bin/python3": true, "node": false, "ls": false} {
		if got := p.Names(name); got != want {
			t.Errorf("Names(%q) = %v, want %v", name, got, want)
		}
	}
	if (ShellPolicy{Block: []string{"rm"}}).Names("python3") {
		t.Error("a block list names python3")
	}
}

// TestShellPolicyHostile: a list refuses every command line built to
// exhaust the analysis, saying why; none crashes the process or slips
// through.
func TestShellPolicyHostile(t *testing.T) {
	for _, p := range []ShellPolicy{{Block: []string{"rm"}}, {Allow: []string{"a", "echo", "cat"}}} {
		for _, c := range bashcmdtest.Hostile(32 << 10) {
			err := p.Check(c.Cmd)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "cannot read the command line: ") {
				t.Errorf("%+v: %s of %d bytes: %v, want a refusal that the command line cannot be read", p, c.Name, len(c.Cmd), err)
			}
		}
	}
}
