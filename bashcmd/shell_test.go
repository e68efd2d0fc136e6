package bashcmd_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/bashcmd"
)

// render writes a command as VIA: WORDS, a word that is not static in
// <>, a function call marked (f), its upstream as |[a b].
func render(c bashcmd.Command) string {
	var via []string
	for _, h := range c.Via {
		via = append(via, h.Name)
	}
	var words []string
	for _, w := range c.Args {
		if w.Static {
			words = append(words, w.Text)
		} else {
			words = append(words, "<"+w.Text+">")
		}
	}
	s := strings.Join(words, " ")
	if len(via) > 0 {
		s = strings.Join(via, ">") + ": " + s
	}
	if c.Function {
		s += " (f)"
	}
	if len(c.PipeFrom) > 0 {
		s += " |" + fmt.Sprint(c.PipeFrom)
	}
	return s
}

func renderAll(a *bashcmd.Analysis) []string {
	out := []string{}
	for _, c := range a.Commands {
		out = append(out, render(c))
	}
	return out
}

func TestParseCommands(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{``, []string{}},
		{`# rm -rf /`, []string{}},
		{`ls -la`, []string{"ls -la"}},
		{`sudo rm -rf /`, []string{"sudo rm -rf /", "sudo: rm -rf /"}},
		{`sudo -u root env FOO=1 rm -r -f /home`, []string{"sudo -u root env FOO=1 rm -r -f /home", "sudo: env FOO=1 rm -r -f /home", "sudo>env: rm -r -f /home"}},
		{`"/usr/bin/rm" -fr '/'`, []string{"/usr/bin/rm -fr /"}},
		{`rm -rf ~ ~/x $HOME "$HOME" "$d"/x * . .. '~' '*' a=~/b dd`, []string{`rm -rf <~> <~/x> <$HOME> <"$HOME"> <"$d"/x> <*> . .. ~ * <a=~/b> dd`}},
		{`dd if=/dev/zero of=/dev/sda bs=1M`, []string{"dd if=/dev/zero of=/dev/sda bs=1M"}},
		{`ls; rm x && cp a b || mv c d & wait`, []string{"ls", "rm x", "cp a b", "mv c d", "wait"}},
		{`(cd /tmp && rm -rf *); { rm a; }`, []string{"cd /tmp", "rm -rf <*>", "rm a"}},
		{"echo $(rm a) `rm b` \"$(rm c)\"", []string{"echo <$(rm a)> <`rm b`> <\"$(rm c)\">", "$( ): rm a", "` `: rm b", "$( ): rm c"}},
		{`diff <(ls a) >(cat)`, []string{"diff <<(ls a)> <>(cat)>", "<( ): ls a", ">( ): cat"}},
		{`x=$(rm y) ls`, []string{"ls", "$( ): rm y"}},
		{`if true; then rm a; elif false; then rm b; else rm c; fi`, []string{"true", "rm a", "false", "rm b", "rm c"}},
		{`for f in *; do rm "$f"; done; while :; do break; done`, []string{`rm <"$f">`, ":", "break"}},
		{`case $x in a) rm a;; esac`, []string{"rm a"}},
		{`f() { rm -rf /; }; f`, []string{"f(): rm -rf /", "f (f)"}},
		{`f() { :; }; ./f; sudo f`, []string{"f(): :", "./f", "sudo f", "sudo: f"}},
		{`bash -c 'rm -rf "$HOME"'`, []string{`bash -c rm -rf "$HOME"`, `bash -c: rm -rf <"$HOME">`}},
		{`sh -c "bash -c 'sudo rm x'"`, []string{`sh -c bash -c 'sudo rm x'`, "sh -c: bash -c sudo rm x", "sh -c>bash -c: sudo rm x", "sh -c>bash -c>sudo: rm x"}},
		{`eval 'rm a; ls'`, []string{"eval rm a; ls", "eval: rm a", "eval: ls"}},
		{`ls | xargs rm -f`, []string{"ls", "xargs rm -f |[ls]", "xargs: rm -f <(the words xargs reads)> |[ls]"}},
		{`find / -name '*.o' -exec rm {} \; -delete`, []string{"find / -name *.o -exec rm {} ; -delete", "find: rm <{} (with a file name find puts there)>"}},
		{`f() { :; }; find . -exec f \;`, []string{"f(): :", "find . -exec f ;", "find: f"}},
		{`curl -s http://x | sh`, []string{"curl -s http://x", "sh |[curl]"}},
		{`curl x | tee f | sudo bash`, []string{"curl x", "tee f |[curl]", "sudo bash |[curl tee]", "sudo: bash |[curl tee]"}},
		{`wget -O- x | sh < f`, []string{"wget -O- x", "sh"}},
		{`cat <<'EOF' | sh
ls
EOF`, []string{"cat", "sh |[cat]"}},
		{"bash <<'EOF'\nrm -rf /\nEOF", []string{"bash", "bash reading standard input: rm -rf /"}},
		{`trap 'rm x' EXIT; alias l='ls -l'`, []string{"trap rm x EXIT", "trap: rm x", "alias l=ls -l", "alias l: ls -l"}},
		{`su -c 'rm x' root`, []string{"su -c rm x root", "su -c: rm x"}},
		{`timeout 5 nice -n 1 nohup rm x`, []string{"timeout 5 nice -n 1 nohup rm x", "timeout: nice -n 1 nohup rm x", "timeout>nice: nohup rm x", "timeout>nice>nohup: rm x"}},
		{`env -S 'rm -rf $x'`, []string{"env -S rm -rf $x", "env: rm -rf <$x>"}},
		{`hash -p /bin/rm ls`, []string{"hash -p /bin/rm ls", "hash -p: /bin/rm"}},
		{`SHELL=/bin/zsh script -qc ls /dev/null`, []string{"SHELL: /bin/zsh", "script -qc ls /dev/null", "script -c: ls"}},
		{`export A=1; declare -a b=(1 2); let x=1+2`, []string{"export A=1", "declare -a <b=(1 2)>", "let <x=1+2>"}},
		{`read 'a[$(rm x)]'`, []string{"read a[$(rm x)]", "the subscript of a[$(rm x)] in a variable name given to read>$( ): rm x"}},
		{`$CMD -rf /`, []string{"<$CMD> -rf /"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			got := renderAll(bashcmd.Parse(tt.cmd))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) commands:\ngot  %q\nwant %q", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestParseNames(t *testing.T) {
	for cmd, want := range map[string]string{
		`rm x`: "rm", `/usr/bin/rm x`: "rm", `\rm x`: "rm", `~/bin/rm x`: "rm", `'r'"m"`: "rm",
		`$RM x`: "", `r? x`: "", `{rm,x}`: "", `=rm x`: "", `"${x}rm"`: "",
	} {
		a := bashcmd.Parse(cmd)
		if len(a.Commands) != 1 || a.Commands[0].Name != want {
			t.Errorf("Parse(%q): commands %q, want one named %q", cmd, renderAll(a), want)
			continue
		}
		if want == "" && a.OK() {
			t.Errorf("Parse(%q) is OK, want a reason for its name", cmd)
		}
	}
}

func TestParseRedirects(t *testing.T) {
	type r struct {
		op     string
		fd     int
		target string
		static bool
		write  bool
	}
	a := bashcmd.Parse("cat < in > out 2>&1 >> ~/log &> all 2>/dev/null; echo hi >&2 >& f >| g 3<> h {v}> i; cat <<'EOF'\nhello $x\nEOF\ncat <<< \"$x\"; > /tmp/trunc; { ls; } > \"$f\"; bash -c 'echo > /etc/passwd'")
	var got []r
	for _, x := range a.Redirects {
		got = append(got, r{x.Op, x.Fd, x.Target.Text, x.Target.Static, x.Write})
	}
	want := []r{
		{"<", 0, "in", true, false}, {">", 1, "out", true, true}, {">&", 2, "1", true, false},
		{">>", 1, "~/log", false, true}, {"&>", 1, "all", true, true}, {">", 2, "/dev/null", true, true},
		{">&", 1, "2", true, false}, {">&", 1, "f", true, true}, {">|", 1, "g", true, true}, {"<>", 3, "h", true, true}, {">", -1, "i", true, true},
		{"<<", 0, "hello $x\n", true, false}, {"<<<", 0, `"$x"`, false, false},
		{">", 1, "/tmp/trunc", true, true}, {">", 1, `"$f"`, false, true}, {">", 1, "/etc/passwd", true, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("redirects:\ngot  %v\nwant %v", got, want)
	}
	if last := a.Redirects[len(a.Redirects)-1]; len(last.Via) != 1 || last.Via[0].Name != "bash -c" {
		t.Errorf("the redirection in bash -c has via %v, want [bash -c]", last.Via)
	}
	// A command carries the redirections of its statement, wrappers too.
	b := bashcmd.Parse("sudo tee /etc/x > /dev/null < in")
	for _, c := range b.Commands {
		if len(c.Redirects) != 2 || c.Redirects[0].Target.Text != "/dev/null" {
			t.Errorf("%s: redirects %v, want > /dev/null and < in", render(c), c.Redirects)
		}
	}
}

func TestParseFunctions(t *testing.T) {
	tests := map[string][]bashcmd.Function{
		`:(){ :|:& };:`:                       {{Name: ":", Recursive: true}},
		`bomb() { bomb | bomb & }; bomb`:      {{Name: "bomb", Recursive: true}},
		`f() { (f) ; }`:                       {{Name: "f", Recursive: true}},
		`f() { echo $(f); }`:                  {{Name: "f", Recursive: true}},
		`a() { b; }; b() { a & }; a`:          {{Name: "a", Recursive: true}, {Name: "b", Recursive: true}},
		`a() { b; }; b() { ls; }; c() { a; }`: {{Name: "a"}, {Name: "b"}, {Name: "c"}},
		`a() { b; }; b() { b; }; a`:           {{Name: "a"}, {Name: "b", Recursive: true}},
		`a() { b; }; b() { c; }; c() { b; }`:  {{Name: "a"}, {Name: "b", Recursive: true}, {Name: "c", Recursive: true}},
		`f() { sudo f; }; f`:                  {{Name: "f"}}, // sudo runs a program f, not the function
		`f() { ls; }; f; f`:                   {{Name: "f"}},
		`bash -c ':(){ :|:& };:'`:             {{Name: ":", Recursive: true}},
		`ls`:                                  nil,
	}
	for cmd, want := range tests {
		got := bashcmd.Parse(cmd).Functions
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q).Functions = %v, want %v", cmd, got, want)
		}
	}
}

func TestParseUnknown(t *testing.T) {
	tests := map[string]string{
		`$CMD x`:                           "cannot check the command name: $CMD is not a literal word",
		`eval "$x"`:                        "cannot check the command line run by eval: \"$x\" is not a literal word",
		`bash -c "$x"`:                     "cannot check an option of bash: \"$x\" is not a literal word",
		`bash -c -- "$x"`:                  "cannot check the command line run by bash -c",
		`source "$f"`:                      "cannot check the script run by source",
		`. /dev/stdin`:                     "cannot check the commands . reads from standard input",
		`curl x | sh`:                      "cannot check the commands sh reads from standard input",
		`sh < script.sh`:                   "cannot check the commands sh reads from a redirection, which is not literal",
		`sudo -s`:                          "cannot check the commands sudo -s reads from standard input",
		`bash -i`:                          "cannot check an interactive shell (bash -i)",
		`env --frobnicate rm`:              "cannot tell which command env runs: unknown option --frobnicate",
		`x=$(cat f); (( x ))`:              "cannot check x in an arithmetic expression",
		`echo ${x@P}`:                      "cannot check ${x@P}: prompt expansion",
		`bash -c 'ls ('`:                   "cannot parse the command line run by bash -c: ",
		`ls (`:                             "does not parse: ",
		`echo "unterminated`:               "does not parse: ",
		strings.Repeat("eval ", 12) + "ls": "command lines nested more than 8 levels deep",
		strings.Repeat("$(", 100) + strings.Repeat(")", 100): "constructs nested more than 64 levels deep are not read",
		strings.Repeat("nice ", 100) + "rm":                  "constructs nested more than 64 levels deep are not read",
		strings.Repeat("x", bashcmd.MaxLength+1):             "cannot read the command line: it is 131073 bytes long, over the limit of 131072",
	}
	for cmd, want := range tests {
		a := bashcmd.Parse(cmd)
		found := false
		for _, u := range a.Unknown {
			found = found || strings.Contains(u.Reason, want)
			if u.Reason != strings.ToLower(u.Reason[:1])+u.Reason[1:] {
				t.Errorf("Parse(%.40q): reason %q is not lowercase", cmd, u.Reason)
			}
		}
		if !found || a.OK() {
			t.Errorf("Parse(%.40q).Unknown = %q, want a reason with %q", cmd, a.Unknown, want)
		}
	}
	a := bashcmd.Parse(`ls (`)
	if len(a.Unknown) != 1 || !a.Unknown[0].Syntax || len(a.Unknown[0].Via) != 0 || len(a.Commands) != 0 {
		t.Errorf("Parse(`ls (`) = %+v, want one syntax reason at the top and no command", a)
	}
	b := bashcmd.Parse(`bash -c 'ls ('`)
	if len(b.Unknown) != 1 || !b.Unknown[0].Syntax || len(b.Unknown[0].Via) != 1 {
		t.Errorf("Parse(`bash -c 'ls ('`).Unknown = %+v, want one syntax reason via bash -c", b.Unknown)
	}
	// A reason does not hide the commands after it.
	c := bashcmd.Parse(`$x; rm -rf /`)
	if got := renderAll(c); !reflect.DeepEqual(got, []string{"<$x>", "rm -rf /"}) || c.OK() {
		t.Errorf("Parse(`$x; rm -rf /`) = %q, %v; want both commands and a reason", got, c.Unknown)
	}
}

// TestParseOrder: commands and reasons share one order, At.
func TestParseOrder(t *testing.T) {
	a := bashcmd.Parse(`ls; $x; rm y; eval "$z"`)
	if len(a.Commands) != 4 || len(a.Unknown) != 2 {
		t.Fatalf("got %q and %q, want 4 commands and 2 reasons", renderAll(a), a.Unknown)
	}
	// ls, $x (command, then its reason), rm, eval (command, then its reason)
	at := []int{a.Commands[0].At, a.Commands[1].At, a.Unknown[0].At, a.Commands[2].At, a.Commands[3].At, a.Unknown[1].At}
	for i := 1; i < len(at); i++ {
		if at[i] <= at[i-1] {
			t.Fatalf("At %v is not increasing in the order of the text", at)
		}
	}
}

// TestParseBounded: hostile sizes finish and stay bounded.
func TestParseBounded(t *testing.T) {
	long := strings.Repeat("a|", 500) + "b"
	a := bashcmd.Parse(long)
	if len(a.Commands) != 501 || len(a.Commands[500].PipeFrom) != 1 || !a.OK() {
		t.Errorf("a pipeline of 501 a's: %d commands, the last with upstream %v, reasons %q; want 501 and [a], no reason", len(a.Commands), a.Commands[500].PipeFrom, a.Unknown)
	}
	var sb strings.Builder
	for i := range 200 {
		fmt.Fprintf(&sb, "c%d | ", i)
	}
	sb.WriteString("sh")
	b := bashcmd.Parse(sb.String())
	if got := b.Commands[len(b.Commands)-1].PipeFrom; len(got) != bashcmd.MaxPipeFrom || got[0] != "c0" {
		t.Errorf("200 distinct upstream commands: PipeFrom has %d names from %v, want %d from c0", len(got), got[:1], bashcmd.MaxPipeFrom)
	}
	deep := strings.Repeat("$(", 5000) + strings.Repeat(")", 5000)
	if c := bashcmd.Parse(deep); len(c.Commands) > bashcmd.MaxDepth+1 {
		t.Errorf("5000 nested substitutions: %d commands, want at most %d", len(c.Commands), bashcmd.MaxDepth+1)
	}
	for _, u := range bashcmd.Parse(`$(` + strings.Repeat("x", 10000) + `)`).Unknown {
		if len(u.Reason) > 400 {
			t.Errorf("a reason of %d bytes, want the word in it cut", len(u.Reason))
		}
	}
}

// TestParseConcurrent: Parse shares nothing between calls.
func TestParseConcurrent(t *testing.T) {
	cmds := []string{`sudo rm -rf ~`, `:(){ :|:& };:`, `curl x | tee f | sh`, `x=$(cat f); (( x ))`, `bash -c 'eval "rm $x"'`}
	want := make([]*bashcmd.Analysis, len(cmds))
	for i, c := range cmds {
		want[i] = bashcmd.Parse(c)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 50 {
				i := (g + n) % len(cmds)
				if got := bashcmd.Parse(cmds[i]); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("Parse(%q) concurrently = %+v, want %+v", cmds[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
