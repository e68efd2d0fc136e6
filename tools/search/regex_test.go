package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestRequiredLiteral(t *testing.T) {
	cases := []struct {
		req   GrepRequest
		lit   string
		fold  bool
		exact bool
		never bool
	}{
		{GrepRequest{Pattern: "return err"}, "return err", false, true, false},
		{GrepRequest{Pattern: `func \w+\(ctx`}, "func ", false, false, false}, // the longest
		{GrepRequest{Pattern: `ab\w+\(ctx`}, "(ctx", false, false, false},
		{GrepRequest{Pattern: "todo", IgnoreCase: true}, "todo", true, true, false},
		{GrepRequest{Pattern: "(?i)kiss"}, "i", true, false, false}, // k and s also match non-ASCII runes
		{GrepRequest{Pattern: "(?i)123"}, "123", false, true, false},
		{GrepRequest{Pattern: "é+x"}, "é", false, false, false},
		{GrepRequest{Pattern: `a|b`}, "", false, false, false},
		{GrepRequest{Pattern: `(abc)+`}, "abc", false, false, false},
		{GrepRequest{Pattern: `x{0,2}`}, "", false, false, false},
		{GrepRequest{Pattern: `a\x{FFFD}b`}, "a", false, false, false},
		{GrepRequest{Pattern: `a\nb`}, "", false, false, true},
		{GrepRequest{Pattern: `a\n?bc`}, "bc", false, false, false},
		{GrepRequest{Pattern: `a[\n]`}, "", false, false, true},
		{GrepRequest{Pattern: `a\nb`, Multiline: true}, "a\nb", false, false, false},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.req)
		if err != nil {
			t.Fatal(err)
		}
		lit, fold := "", false
		if m.lit != nil {
			lit, fold = string(m.lit.s), m.lit.fold
		}
		if lit != c.lit || fold != c.fold || m.exact != c.exact || m.never != c.never {
			t.Errorf("%+v: literal %q fold %v exact %v never %v; want %q %v %v %v", c.req, lit, fold, m.exact, m.never, c.lit, c.fold, c.exact, c.never)
		}
	}
}

func TestLiteralIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []byte("abcABCxyzXYZ -_\n\xc3\xa9")
	for i := range 2000 {
		h := make([]byte, rng.IntN(60))
		for j := range h {
			h[j] = alphabet[rng.IntN(len(alphabet))]
		}
		n := 1 + rng.IntN(3)
		lit := make([]byte, n)
		for j := range lit {
			lit[j] = "abcxyz -"[rng.IntN(8)]
		}
		if got, want := newLiteral(string(lit), false).index(h), bytes.Index(h, lit); got != want {
			t.Fatalf("case %d: index(%q, %q) = %d, want %d", i, h, lit, got, want)
		}
		want := -1 // brute force: the first ASCII-case-insensitive match
		for k := 0; k+n <= len(h); k++ {
			if strings.EqualFold(string(h[k:k+n]), string(lit)) {
				want = k
				break
			}
		}
		if got := newLiteral(string(lit), true).index(h); got != want {
			t.Fatalf("case %d: fold index(%q, %q) = %d, want %d", i, h, lit, got, want)
		}
	}
}

// TestMatchLinesAgainstRegexp checks the line search (literal prefilter,
// whole-buffer regexp) against Go's regexp run on each line.
func TestMatchLinesAgainstRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	words := []string{"foo", "Foo", "bar", "baz", "k", "\u212a", "é", "\xff", " ", "\r", "_", "1"}
	var lines []string
	for range 300 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		lines = append(lines, b.String())
	}
	lines[len(lines)-1] = "foo baz" // so the file may end without "\n"
	patterns := []string{"foo", "(?i)foo", "^foo", "foo$", `\bfoo\b`, "fo+ba[rz]", "k", "(?i)k", `\w+é`, ".", "^$", "", `\r$`, `\xff`, `(foo|bar)\s`, `[^a-z]`, `\Afoo`, `baz\z`, `\B`}
	for _, p := range patterns {
		m, err := compileMatcher(GrepRequest{Pattern: p})
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(p)
		var want []int
		for i, l := range lines {
			if re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		for _, end := range []string{"\n", ""} {
			buf := []byte(strings.Join(lines, "\n") + end)
			var got []int
			spans, _ := m.matchLines(buf, 1, nil)
			for _, sp := range spans {
				got = append(got, sp.num)
				if text := string(buf[sp.start:sp.end]); text != lines[sp.num-1] {
					t.Fatalf("%q: line %d text %q, want %q", p, sp.num, text, lines[sp.num-1])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%q (ending %q): lines %v, want %v", p, end, got, want)
			}
		}
	}
}

func TestCollectorContext(t *testing.T) {
	buf := []byte("l1\nl2\nl3\nl4\nl5\nl6")
	spans := []lineSpan{{2, 3, 5}, {6, 15, 17}}
	var c collector
	c.reset(1, 1)
	c.piece(buf, 1, spans, true)
	got := c.lines
	var b strings.Builder
	for _, l := range got {
		fmt.Fprintf(&b, "%d%v%s ", l.Number, l.Match, l.Text)
	}
	if want := "1falsel1 2truel2 3falsel3 5falsel5 6truel6 "; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
