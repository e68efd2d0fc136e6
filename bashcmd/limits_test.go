package bashcmd_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/bashcmd"
	"github.com/agentsh/agentsh/bashcmd/bashcmdtest"
)

// TestParseHostile: every hostile shape gives one reason, which says
// what bound the command line passed, and lists nothing it did not read.
func TestParseHostile(t *testing.T) {
	for _, size := range []int{32 << 10, bashcmd.MaxLength + 1} {
		for _, c := range bashcmdtest.Hostile(size) {
			a := bashcmd.Parse(c.Cmd)
			if a.OK() || len(a.Unknown) != 1 || len(a.Commands) != 0 {
				t.Errorf("%s of %d bytes: %d commands, reasons %.200q; want no command and one reason", c.Name, len(c.Cmd), len(a.Commands), a.Unknown)
				continue
			}
			r := a.Unknown[0].Reason
			if !strings.HasPrefix(r, "cannot read the command line: ") || a.Unknown[0].Syntax {
				t.Errorf("%s of %d bytes: reason %q, want one that starts with \"cannot read the command line: \" and is no syntax error", c.Name, len(c.Cmd), r)
			}
			bound := strings.Contains(r, "over the limit of ") || strings.Contains(r, "nests too deeply to parse at byte ") ||
				strings.Contains(r, fmt.Sprintf("nests more than %d levels deep once parsed", bashcmd.MaxSyntaxDepth))
			if !bound {
				t.Errorf("%s of %d bytes: reason %q does not name the bound it passed", c.Name, len(c.Cmd), r)
			}
			if size > bashcmd.MaxLength && !strings.Contains(r, fmt.Sprintf("it is %d bytes long, over the limit of %d", len(c.Cmd), bashcmd.MaxLength)) {
				t.Errorf("%s of %d bytes: reason %q, want the size and the limit", c.Name, len(c.Cmd), r)
			}
		}
	}
}

// TestParseBrackets: brackets nest up to MaxBrackets deep, whatever their
// kind and quoting; one more is refused with the depth and where it is.
func TestParseBrackets(t *testing.T) {
	at := func(depth int) string {
		return "echo '" + strings.Repeat("([{", depth/3) + strings.Repeat("(", depth%3) + "'"
	}
	if a := bashcmd.Parse(at(bashcmd.MaxBrackets)); !a.OK() || len(a.Commands) != 1 {
		t.Errorf("%d quoted brackets: %q, want echo read", bashcmd.MaxBrackets, a.Unknown)
	}
	a := bashcmd.Parse(at(bashcmd.MaxBrackets + 1))
	want := fmt.Sprintf("cannot read the command line: its brackets nest %d levels deep (at byte %d), over the limit of %d", bashcmd.MaxBrackets+1, len("echo '")+bashcmd.MaxBrackets, bashcmd.MaxBrackets)
	if len(a.Unknown) != 1 || a.Unknown[0].Reason != want {
		t.Errorf("%d quoted brackets: %q, want %q", bashcmd.MaxBrackets+1, a.Unknown, want)
	}
	// The costliest bracket for the parser, nested as deep as the count
	// allows, is read, also when the parser's stack is checked at its
	// deepest (the text reaches it 1 KiB at a time).
	nest := "echo $((" + strings.Repeat("(", bashcmd.MaxBrackets-2)
	arith := "ls " + strings.Repeat("x", 1024-4-len(nest)) + "; " + nest + "1" + strings.Repeat(")", bashcmd.MaxBrackets)
	if a := bashcmd.Parse(arith); !a.OK() || len(a.Commands) != 2 {
		t.Errorf("arithmetic nested %d deep: %q, want ls and echo read", bashcmd.MaxBrackets, a.Unknown)
	}
	// Balanced brackets in a row, a closing bracket of another kind, and
	// unbalanced closers do not add up.
	var b strings.Builder
	b.WriteString("cat <<'EOF' > x.py\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "if x[%d] == {'a': (1, [2])}: print(')}]', \"(\")\n", i)
	}
	b.WriteString("EOF\n")
	if a := bashcmd.Parse(b.String()); !a.OK() || len(a.Commands) != 1 || a.Commands[0].Name != "cat" {
		t.Errorf("a here-document of %d bytes of Python: %d commands, %.200q; want cat read", b.Len(), len(a.Commands), a.Unknown)
	}
}

// TestParseSyntaxDepth: a pipeline of 500 commands is read; one of 600
// is deeper than MaxSyntaxDepth once parsed.
func TestParseSyntaxDepth(t *testing.T) {
	if a := bashcmd.Parse(strings.Repeat("a && ", 499) + "a"); !a.OK() || len(a.Commands) != 500 {
		t.Errorf("a list of 500 commands: %d commands, %q; want all read", len(a.Commands), a.Unknown)
	}
	a := bashcmd.Parse(strings.Repeat("a | ", 599) + "a")
	if len(a.Unknown) != 1 || !strings.Contains(a.Unknown[0].Reason, fmt.Sprintf("it nests more than %d levels deep once parsed", bashcmd.MaxSyntaxDepth)) {
		t.Errorf("a pipeline of 600 commands: %q, want it refused by depth", a.Unknown)
	}
}

// TestParseNestedBounds: the command lines, arithmetic and strings nested
// in a command line are held to the same bounds, and say which they are.
func TestParseNestedBounds(t *testing.T) {
	deepIf := strings.Repeat("if a; then ", 3000) + "a" + strings.Repeat("; fi", 3000)
	tests := map[string]string{
		"bash -c '" + deepIf + "'":                           "cannot read the command line run by bash -c: it nests too deeply to parse at byte ",
		"eval '" + strings.Repeat("a|", 600) + "a'":          "cannot read the command line run by eval: it nests more than 1024 levels deep",
		`[[ $x -eq '` + strings.Repeat("1+", 1100) + `1' ]]`: "cannot read the operand '1+1+",
		"alias a='" + strings.Repeat("a|", 600) + "a'":       "cannot read the command line of alias a: it nests more than 1024 levels deep",
		"env -S '" + strings.Repeat("a|", 600) + "a'":        "cannot read the string of env -S: it nests more than 1024 levels deep",
	}
	for cmd, want := range tests {
		a := bashcmd.Parse(cmd)
		found := false
		for _, u := range a.Unknown {
			found = found || strings.Contains(u.Reason, want)
		}
		if !found || a.OK() {
			t.Errorf("Parse(%.40q...).Unknown = %.300q, want a reason with %q", cmd, a.Unknown, want)
		}
	}
}

// TestParseLongChains: the facts gathered over a command line are judged
// in one pass, whatever the length of the chains in them.
func TestParseLongChains(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "f%d() { f%d; }; ", i, i+1)
	}
	a := bashcmd.Parse(b.String() + "f2000() { ls; }")
	for _, f := range a.Functions {
		if f.Recursive {
			t.Fatalf("a chain of 2001 functions: %s is recursive, want none", f.Name)
		}
	}
	a = bashcmd.Parse(b.String() + "f2000() { f0; }")
	if len(a.Functions) != 2001 {
		t.Fatalf("a cycle of 2001 functions: %d functions", len(a.Functions))
	}
	for _, f := range a.Functions {
		if !f.Recursive {
			t.Fatalf("a cycle of 2001 functions: %s is not recursive", f.Name)
		}
	}
	b.Reset()
	for i := range 2000 {
		fmt.Fprintf(&b, "a%d=$a%d; ", i, i+1)
	}
	if a := bashcmd.Parse(b.String() + "a2000=5; ((a0))"); !a.OK() {
		t.Errorf("a chain of numeric copies: %q, want a0 known to be a number", a.Unknown)
	}
	a = bashcmd.Parse(b.String() + "a2000=$(cat f); ((a0)); ((a7))")
	if len(a.Unknown) != 2 || !strings.Contains(a.Unknown[0].Reason, "cannot check a0 in an arithmetic expression") {
		t.Errorf("a chain of copies of text: %q, want a0 and a7 refused", a.Unknown)
	}
}

// TestParseCounts: Parse lists up to MaxCommands commands and as many
// redirections; a command line with more gives a reason instead.
func TestParseCounts(t *testing.T) {
	max := bashcmd.MaxCommands
	if a := bashcmd.Parse(strings.Repeat("a >f; ", max)); !a.OK() || len(a.Commands) != max || len(a.Redirects) != max {
		t.Errorf("%d commands and redirections: %d and %d, %q; want all read", max, len(a.Commands), len(a.Redirects), a.Unknown)
	}
	tests := map[string]string{
		strings.Repeat("a;", max+1):                                fmt.Sprintf("cannot read the command line: it has %d simple commands, over the limit of %d", max+1, max),
		strings.Repeat(">f;", max+1):                               fmt.Sprintf("cannot read the command line: it has %d redirections, over the limit of %d", max+1, max),
		"bash -c '" + strings.Repeat("a;", max) + "'":              fmt.Sprintf("cannot read the command line run by bash -c: it has %d simple commands, over the limit of %d", max+1, max),
		strings.Repeat(strings.Repeat("nice ", 60)+"a;", max/60+1): fmt.Sprintf("cannot read the command line: it runs more than %d commands, counting those wrappers run, over the limit", max),
	}
	for cmd, want := range tests {
		a := bashcmd.Parse(cmd)
		found := 0
		for _, u := range a.Unknown {
			if u.Reason == want {
				found++
			}
		}
		if found != 1 || len(a.Commands) > max {
			t.Errorf("Parse(%.40q...): %d commands, reasons %.300q; want at most %d and the reason %q once", cmd, len(a.Commands), a.Unknown, max, want)
		}
	}
}

// TestBoundsDocumented: docs/policies.md states the bounds as they are.
func TestBoundsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		fmt.Sprintf("at most %d KiB long", bashcmd.MaxLength>>10),
		fmt.Sprintf("nested at most %d brackets deep", bashcmd.MaxBrackets),
		fmt.Sprintf("nested at most %d levels deep once parsed", bashcmd.MaxSyntaxDepth),
		fmt.Sprintf("at most %d simple commands (counting those wrappers run), and at most %d redirections", bashcmd.MaxCommands, bashcmd.MaxCommands),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/policies.md does not say %q", want)
		}
	}
}
