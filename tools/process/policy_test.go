package process

import (
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
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

func TestLiteral(t *testing.T) {
	tests := map[string]struct {
		val string
		ok  bool
	}{
		`rm`:              {"rm", true},
		`\rm`:             {"rm", true},
		`r\m`:             {"rm", true},
		`"r\m"`:           {`r\m`, true},
		`"r\$m"`:          {`r$m`, true},
		`'r\m'`:           {`r\m`, true},
		`"rm"'x'y`:        {"rmxy", true},
		`[`:               {"[", true},
		`-I{}`:            {"-I{}", true},
		`~/x`:             {"~/x", true},
		`~`:               {"", false},
		`~root`:           {"", false},
		`r*`:              {"", false},
		`"r*"`:            {"r*", true},
		`a{b,c}`:          {"", false},
		`a{1..3}`:         {"", false},
		`a\{b,c}`:         {"a{b,c}", true},
		`$x`:              {"", false},
		`"$x"`:            {"", false},
		`$(echo x)`:       {"", false},
		`$'a'`:            {"a", true},
		`$'\n'`:           {"", false},
		`@(a|b)`:          {"", false},
		`/r["m"]`:         {"", false},
		`"r"[m]`:          {"", false},
		`"a[b]"`:          {"a[b]", true},
		`"{a,b}"`:         {"{a,b}", true},
		`x"y"\ z`:         {"xy z", true},
		`"a\"b\\c"`:       {`a"b\c`, true},
		`'$(rm x)'`:       {"$(rm x)", true},
		`"\` + "`" + `x"`: {"`x", true},
	}
	for src, want := range tests {
		f, err := parse(src)
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		w := firstWord(f)
		if w == nil {
			t.Fatalf("%q: no word", src)
		}
		got, ok := literal(w)
		if got != want.val || ok != want.ok {
			t.Errorf("literal(%s) = %q, %v; want %q, %v", src, got, ok, want.val, want.ok)
		}
	}
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// firstWord is the first word of the first simple command in f.
func firstWord(f *syntax.File) *syntax.Word {
	var w *syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && w == nil && len(call.Args) > 0 {
			w = call.Args[0]
		}
		return w == nil
	})
	return w
}
