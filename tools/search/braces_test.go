package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestGlobBraceBound checks that a Glob or GlobRequest.Pattern whose
// braces would make doublestar try patterns by the billion is refused on
// every backend, at once and with a clear error, and that one within the
// bound still matches in good time.
func TestGlobBraceBound(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("a", 200)
	writeFiles(t, root, map[string]string{long: "needle\n", long + "b": "needle\n", "x.go": "needle\n", "y.md": "needle\n"})
	globbers, greppers := backends(t, root)
	for _, hostile := range []string{
		strings.Repeat("{a,a}", 40) + "b",
		strings.Repeat("{,}", 40) + "b",
		strings.Repeat("{*a,*a}", 40) + "b",
		"**/" + strings.Repeat("{x,{y,{z,w}}}", 20),
	} {
		for name, g := range globbers {
			var err error
			finishes(t, guard, name+" Glob "+hostile[:12], func() { _, err = globAll(g, GlobRequest{Pattern: hostile}) })
			if err == nil || !strings.Contains(err.Error(), "too many brace alternatives") {
				t.Errorf("%s Glob %q: got error %v, want one about too many brace alternatives", name, hostile, err)
			}
		}
		for name, g := range greppers {
			var err error
			finishes(t, guard, name+" Grep "+hostile[:12], func() { _, err = grepAll(g, GrepRequest{Pattern: "needle", Glob: hostile}) })
			if err == nil || !strings.Contains(err.Error(), "too many brace alternatives") {
				t.Errorf("%s Grep with Glob %q: got error %v, want one about too many brace alternatives", name, hostile, err)
			}
		}
	}
	within := []struct {
		pattern string
		want    []string
	}{
		{strings.Repeat("{*a,*a}", 7) + "b", []string{long + "b"}}, // 255 tries
		{"*.{go,md}", []string{"x.go", "y.md"}},
		{"{x,y}.{go,md}", []string{"x.go", "y.md"}},
	}
	for _, c := range within {
		if n := braceAttempts(c.pattern); n > maxBraceAttempts {
			t.Fatalf("braceAttempts(%q) = %d, over the bound", c.pattern, n)
		}
		for name, g := range globbers {
			var got []string
			var err error
			finishes(t, guard, name+" Glob "+c.pattern, func() { got, err = globAll(g, GlobRequest{Pattern: c.pattern}) })
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s Glob %q: got %q, %v; want %q", name, c.pattern, got, err, c.want)
			}
		}
		for name, g := range greppers {
			var got []string
			var err error
			finishes(t, guard, name+" Grep "+c.pattern, func() { got, err = grepAll(g, GrepRequest{Pattern: "needle", Glob: c.pattern}) })
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%s Grep with Glob %q: got %q, %v; want %q", name, c.pattern, got, err, c.want)
			}
		}
	}
}

// refBraceTries counts the patterns doublestar tries for p the way it
// does: the first brace's alternatives, each spliced into a copy of the
// pattern, and so on.
func refBraceTries(p string) int {
	// skip returns the index after the byte, escape or class at i.
	skip := func(i int) int {
		switch p[i] {
		case '\\':
			return i + 2
		case '[':
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		}
		return i + 1
	}
	open := -1
	for i := 0; i < len(p); i = skip(i) {
		if p[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		return 1
	}
	var alts []string
	depth, start := 0, open+1
	for i := open + 1; i < len(p); i = skip(i) {
		switch {
		case p[i] == '{':
			depth++
		case p[i] == '}' && depth > 0:
			depth--
		case p[i] == ',' && depth == 0:
			alts = append(alts, p[start:i])
			start = i + 1
		case p[i] == '}':
			alts = append(alts, p[start:i])
			n := 1
			for _, a := range alts {
				n += refBraceTries(p[:open] + a + p[i+1:])
			}
			return n
		}
	}
	return 1 // unterminated: not a valid pattern
}

// TestBraceAttempts compares braceAttempts with the count of what
// doublestar tries, on fixed and random valid patterns.
func TestBraceAttempts(t *testing.T) {
	cases := map[string]int{
		"":                1,
		"*.go":            1,
		"*.{go,md}":       3,
		"{a,b}{c,d}":      7,
		"{a,{b,c}}":       5,
		`{a\,b,c}`:        3,
		"[{]{a,b}":        3,
		"{[,],a}":         3,
		"{a,b}/**/{c,d}":  7,
		"{,}{,}{,}{,}{,}": 63,
	}
	for p, want := range cases {
		if got := braceAttempts(p); got != want {
			t.Errorf("braceAttempts(%q) = %d, want %d", p, got, want)
		}
		if ref := refBraceTries(p); ref != want {
			t.Errorf("reference count for %q = %d, want %d", p, ref, want)
		}
	}
	frags := []string{"a", "*", "{", "}", ",", "{a,b}", "{,}", `\,`, `\{`, "[{,]", "/", "**"}
	rng := rand.New(rand.NewPCG(1, 9))
	checked := 0
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(9) {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		p := b.String()
		if !doublestar.ValidatePattern(p) || strings.Count(p, "{") > 6 {
			continue
		}
		checked++
		if got, want := braceAttempts(p), min(refBraceTries(p), maxBraceAttempts+1); got != want {
			t.Errorf("braceAttempts(%q) = %d, doublestar tries %d", p, got, want)
		}
	}
	if checked < 2000 {
		t.Errorf("only %d valid random patterns: the comparison says little", checked)
	}
}
