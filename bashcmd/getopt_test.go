package bashcmd

import (
	"fmt"
	"strings"
	"testing"
)

// staticWords splits a test's argument text on spaces into static words.
func staticWords(text string) []Word {
	var out []Word
	for _, f := range strings.Fields(text) {
		out = append(out, Word{Text: f, Static: true})
	}
	return out
}

// render is a parse as text: each option by name with its value, then
// the operands, the unknown options and the rest.
func render(p *parsed) string {
	var b strings.Builder
	for _, u := range p.opts {
		b.WriteString(u.opt.name)
		if u.has {
			b.WriteString("=" + u.value.Text)
		}
		b.WriteByte(' ')
	}
	b.WriteString("|")
	for _, w := range p.operands {
		b.WriteString(" " + w.Text)
	}
	if len(p.unknown) > 0 {
		fmt.Fprintf(&b, " ?%v", p.unknown)
	}
	if len(p.rest) > 0 {
		fmt.Fprintf(&b, " rest%v", len(p.rest))
	}
	return b.String()
}

func TestParseOptions(t *testing.T) {
	sort := lookup("sort").opts
	for _, c := range []struct {
		set     *optionSet
		st      style
		permute bool
		args    string
		want    string
	}{
		// GNU: clusters, values attached or in the next word, prefixes.
		{sort, gnu, true, `-uoFILE data`, `-u -o=FILE | data`},
		{sort, gnu, true, `-u -o FILE data`, `-u -o=FILE | data`},
		{sort, gnu, true, `-uo FILE data`, `-u -o=FILE | data`},
		{sort, gnu, true, `--output=/etc/x data`, `-o=/etc/x | data`},
		{sort, gnu, true, `--output /etc/x data`, `-o=/etc/x | data`},
		{sort, gnu, true, `--out=/etc/x data`, `-o=/etc/x | data`},
		{sort, gnu, true, `--o /etc/x data`, `-o=/etc/x | data`},
		{sort, gnu, true, `--s data`, `| data ?[--s]`},                                 // ambiguous: --sort, --stable
		{sort, gnu, true, `--compress=gzip data`, `--compress-program=gzip | data`},    // unique prefix
		{sort, gnu, true, `data -o /etc/x`, `-o=/etc/x | data`},                        // options after operands
		{sort, gnu, true, `-- -o /etc/x`, `| -o /etc/x`},                               // -- ends them
		{sort, gnu, true, `-rnk2 data`, `-r -n -k=2 | data`},                           // a value ends the cluster
		{sort, gnu, true, `-q data`, `| data ?[-q]`},                                   // unknown
		{sort, gnu, true, `-uq data`, `-u | data ?[-q]`},                               // unknown inside a cluster
		{sort, gnu, true, `--reverse=yes data`, `| data ?[--reverse=yes]`},             // a value it does not take
		{sort, gnu, true, `-c --check=quiet`, `-c --check=quiet |`},                    // optional values
		{sort, gnu, true, `-`, `| -`},                                                  // standard input
		{lookup("head").opts, gnu, true, `-20 f`, `| f`},                               // -NUM
		{lookup("sed").opts, gnu, true, `-i.bak -e s/a/b/ f`, `-i=.bak -e=s/a/b/ | f`}, // optional value attached
		{lookup("sed").opts, gnu, true, `-i -e s/a/b/ f`, `-i -e=s/a/b/ | f`},          // or not at all
		{lookup("sed").opts, gnu, true, `--in-place=.bak f`, `-i=.bak | f`},            // long alias of a short
		{lookup("sed").opts, gnu, true, `--in f`, `-i | f`},                            // the one name that starts so
		{table["curl"].opts, gnu, true, `-sSLoFILE https://x`, `-s -S -L -o=FILE | https://x`},
		{table["fd"].opts, gnu, true, `-H . -x rm -rf {}`, `-H -x | . rest3`},     // -x takes the rest
		{envOptions, gnu, false, `-i A=1 ls -l`, `-i | A=1 ls -l`},                // strict: stops at the first operand
		{envOptions, gnu, false, `--chdir=/etc rm passwd`, `-C=/etc | rm passwd`}, // -C and --chdir are one
		{envOptions, gnu, false, `--ch /etc rm passwd`, `-C=/etc | rm passwd`},
		// git's own options: whole names only, one short option a word.
		{gitGlobal, exact, false, `-C . reset --hard`, `-C=. | reset --hard`},
		{gitGlobal, exact, false, `-C. status`, `-C=. | status`},
		{gitGlobal, exact, false, `--no-pager clean -fdx`, `-P | clean -fdx`},
		{gitGlobal, exact, false, `--no-p clean`, `| clean ?[--no-p]`},
		{gitGlobal, exact, false, `-Pp log`, `| log ?[-Pp]`},
		// Go: one or two dashes, whole names, -name=value, booleans.
		{table["go"].subs["build"].opts, golang, false, `-o /tmp/x .`, `-o=/tmp/x | .`},
		{table["go"].subs["build"].opts, golang, false, `--o /tmp/x .`, `-o=/tmp/x | .`},
		{table["go"].subs["build"].opts, golang, false, `-o=/tmp/x .`, `-o=/tmp/x | .`},
		{table["go"].subs["build"].opts, golang, false, `-race=false -v .`, `--race=false -v | .`},
		{table["go"].subs["build"].opts, golang, false, `-toolexec ./evil .`, `--toolexec=./evil | .`},
		{table["go"].subs["build"].opts, golang, false, `-tool ./evil .`, `| ./evil . ?[-tool]`},     // no prefixes
		{table["go"].subs["build"].opts, golang, false, `. -o /tmp/x`, `| . -o /tmp/x`},              // flags stop at a package
		{table["go"].subs["test"].opts, golang, true, `./... -exec ./evil`, `--exec=./evil | ./...`}, // go test reads them after
		{table["go"].subs["test"].opts, golang, true, `-test.run X -args -exec y`, `--run=X --args | rest2`},
	} {
		got := strings.TrimSpace(render(parseOptions(staticWords(c.args), c.set, c.st, c.permute)))
		if got != strings.TrimSpace(c.want) {
			t.Errorf("%s: got %q, want %q", c.args, got, c.want)
		}
	}
}

func TestParseOptionsWordsNotStatic(t *testing.T) {
	args := []Word{{Text: "$x"}, {Text: "*.txt"}, {Text: "src/*.go"}, {Text: `"$f"`}, {Text: "x$y"}}
	p := parseOptions(args, lookup("sort").opts, gnu, true)
	var may []string
	for _, w := range p.maybeOption {
		may = append(may, w.Text)
	}
	if got := strings.Join(may, " "); got != `$x *.txt "$f"` {
		t.Errorf("words that may expand to an option: %q, want $x *.txt \"$f\"", got)
	}
	if len(p.operands) != len(args) {
		t.Errorf("operands: %d, want %d", len(p.operands), len(args))
	}
}

func TestOptionDeclarations(t *testing.T) {
	for _, bad := range []string{`x:nosuch`, `o|o`, `a b a`, `|x`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("parseDecl(%q) did not panic", bad)
				}
			}()
			parseDecl(bad)
		}()
	}
	s := parseDecl(`o|output=:write c check[=] #`)
	if s.short['o'] != s.long["output"] || s.short['o'].arg != reqArg || s.short['o'].fx != fxWrite || s.short['o'].name != "-o" {
		t.Errorf("o|output=:write: %+v %+v", s.short['o'], s.long["output"])
	}
	if s.short['c'].arg != noArg || s.long["check"].arg != optArg || !s.numeric {
		t.Errorf("c check[=] #: %+v %+v numeric %v", s.short['c'], s.long["check"], s.numeric)
	}
}

// TestEveryDeclarationReads reads every option set the package declares,
// which it otherwise does only when a command line needs one: a
// malformed declaration panics here, not in a user's call.
func TestEveryDeclarationReads(t *testing.T) {
	loadTable()
	if len(declared) < 100 {
		t.Fatalf("%d option sets declared, want the table's hundreds", len(declared))
	}
	for _, s := range declared {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("option set %q: %v", s.decl, v)
				}
			}()
			if tb := s.table(); len(tb.short)+len(tb.long) == 0 && !tb.numeric && strings.TrimSpace(s.decl) != "" {
				t.Errorf("option set %q read as empty", s.decl)
			}
		}()
	}
}
