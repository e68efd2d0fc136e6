package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// The reference matcher: git's backtracking wildmatch (wildmatch.c as of
// git 2.41, which returns the abort values that keep "*a*a*a…" from going
// exponential), as this package had it before. It is exponential on
// patterns such as "**/**/**/…", so it only checks small inputs.

const (
	refNoMatch = iota
	refMatch
	refAbortAll        // the text ran out: no later start can match either
	refAbortToStarStar // a single '*' met a '/': only an enclosing "**" may go on
)

func refWildmatch(pattern, text string, pathname bool) bool {
	return refDowild(pattern, text, pathname) == refMatch
}

func refByteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func refDowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return refAbortAll
		}
		tc := refByteAt(text, ti)
		switch pc {
		case '\\':
			// A literal next byte; a trailing '\' matches nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return refNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return refNoMatch
			}
		case '*':
			var matchSlash bool
			pi++
			if pi < len(p) && p[pi] == '*' {
				before := pi - 2 // the byte before "**", if any
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (before < 0 || p[before] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && refByteAt(p, pi+1) == '/')):
					// "**/" may match no directory at all.
					if pi < len(p) && p[pi] == '/' && refDowild(p[pi+1:], text[ti:], pathname) == refMatch {
						return refMatch
					}
					matchSlash = true
				default:
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if pi == len(p) {
				// A trailing "**" matches everything, a trailing '*' the
				// rest of this component.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return refAbortToStarStar
				}
				return refMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/" skips to the next '/', which the loop then consumes
				// on both sides.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return refAbortAll
				}
				ti += slash
				continue
			}
			for ti < len(text) {
				if !isGlobSpecial(p[pi]) {
					// Skip to the next occurrence of the literal that
					// follows the star.
					want := p[pi]
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != want {
						ti++
					}
					if ti >= len(text) || text[ti] != want {
						if matchSlash {
							return refAbortAll
						}
						return refAbortToStarStar
					}
				}
				m := refDowild(p[pi:], text[ti:], pathname)
				if m != refNoMatch {
					if !matchSlash || m != refAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return refAbortToStarStar
				}
				ti++
			}
			return refAbortAll
		case '[':
			r := refMatchSet(p, &pi, tc)
			if r != refMatch {
				return r
			}
			if pathname && tc == '/' {
				return refNoMatch
			}
		default:
			if tc != pc {
				return refNoMatch
			}
		}
	}
	if ti < len(text) {
		return refNoMatch
	}
	return refMatch
}

// refMatchSet matches byte c against the set that starts at p[*pi] == '['
// and leaves *pi on its closing ']'.
func refMatchSet(p string, pi *int, c byte) int {
	i := *pi + 1
	pc := refByteAt(p, i)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		i++
		pc = refByteAt(p, i)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return refAbortAll // unterminated set
		}
		switch {
		case pc == '\\':
			i++
			pc = refByteAt(p, i)
			if pc == 0 {
				return refAbortAll
			}
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && refByteAt(p, i+1) != 0 && refByteAt(p, i+1) != ']':
			i++
			pc = p[i]
			if pc == '\\' {
				i++
				pc = refByteAt(p, i)
				if pc == 0 {
					return refAbortAll
				}
			}
			if c <= pc && c >= prev {
				matched = true
			}
			pc = 0 // a range cannot start another range
		case pc == '[' && refByteAt(p, i+1) == ':':
			start := i + 2
			end := start
			for end < len(p) && p[end] != ']' {
				end++
			}
			if end >= len(p) {
				return refAbortAll
			}
			if end-start-1 < 0 || p[end-1] != ':' {
				// Not a [:class:]: a literal '['.
				if c == '[' {
					matched = true
				}
				pc = '['
				break
			}
			ok, valid := posixClass(p[start:end-1], c)
			if !valid {
				return refAbortAll
			}
			if ok {
				matched = true
			}
			i = end
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		i++
		pc = refByteAt(p, i)
		if pc == ']' {
			break
		}
	}
	*pi = i
	if matched == negated {
		return refNoMatch
	}
	return refMatch
}

// finishes runs f and fails the test if it has not returned after d. It
// is a guard against matching that takes hours, not a measurement: d is
// many times what f needs on a loaded machine. On failure f keeps running
// in its goroutine until the test binary exits.
func finishes(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v; matching must take polynomial time", what, d)
	}
}

// hostileWildmatch are patterns and texts on which a backtracking
// matcher takes time exponential in the number of wildcards: hours for
// each of these. The first is git's t3070 "matching does not exhibit
// exponential behavior" (fixed in git 2.41), the second still takes git
// 2.55 hours.
var hostileWildmatch = []struct {
	name, pattern, text string
	pathname, want      bool
}{
	{"t3070", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", strings.Repeat("a", 60) + "b", false, false},
	{"t3070 long", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", strings.Repeat("a", 5000) + "b", false, false},
	{"t3070 pathname", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a", strings.Repeat("a", 5000) + "b", true, false},
	{"double stars", strings.Repeat("**/", 40) + "x", strings.Repeat("a/", 2000) + "b", true, false},
	{"double stars match", strings.Repeat("**/", 40) + "b", strings.Repeat("a/", 2000) + "b", true, true},
	{"stars in components", strings.Repeat("**/*a", 30) + "x", strings.Repeat("aaaa/", 1000) + "b", true, false},
	{"stars across slashes", strings.Repeat("*a", 30) + "/x", strings.Repeat("aa/", 1500) + "b", false, false},
	{"sets", strings.Repeat("*[ab]", 24) + "c", strings.Repeat("ab", 3000), false, false},
	{"question marks", strings.Repeat("*?", 24) + "c", strings.Repeat("ab", 3000), true, false},
	{"odd double stars", strings.Repeat("a**", 24) + "c", strings.Repeat("a", 6000), true, false},
	{"many steps", strings.Repeat("*a", 400) + "c", strings.Repeat("a", 6000), false, false},
}

// TestWildmatchPolynomial runs the hostile patterns against long texts:
// each match must end, and give git's answer.
func TestWildmatchPolynomial(t *testing.T) {
	for _, c := range hostileWildmatch {
		t.Run(c.name, func(t *testing.T) {
			var got bool
			finishes(t, 20*time.Second, fmt.Sprintf("wildmatch(%.40q…, %d-byte text)", c.pattern, len(c.text)), func() {
				got = wildmatch(c.pattern, c.text, c.pathname)
			})
			if got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// Fragments of random patterns and texts for the differential tests:
// every kind of step, the bytes that make "**" special or not, sets that
// are malformed, escapes.
var (
	wmPatternFrags = []string{"a", "b", "/", "*", "**", "***", "?", "[ab]", "[!a]", "[^/]", "[a-c]", "[]a]", "[a-]",
		"[[:alpha:]]", "[[:nope:]]", "[", "]", "\\*", "\\/", "\\", "**/", "/**", "/**/", "-", ".", "[/]", "[\\]]", "[[:a]"}
	wmTextFrags = []string{"a", "b", "c", "/", "//", "*", ".", "-", "]", "[", "\\", "ab", "a/b"}
)

// TestWildmatchAgainstReference compares the matcher with the reference
// on random small patterns and texts (SEARCH_TEST_SEED and SEARCH_TEST_N
// change them), and matchFrom with match where a pattern has a literal
// start.
func TestWildmatchAgainstReference(t *testing.T) {
	n := 30000
	if s := os.Getenv("SEARCH_TEST_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	seed := uint64(1)
	if s := os.Getenv("SEARCH_TEST_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	build := func(frags []string, max int) string {
		var b strings.Builder
		for range rng.IntN(max + 1) {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		return b.String()
	}
	matches := 0
	for range n {
		pattern := build(wmPatternFrags, 6)
		text := build(wmTextFrags, 7)
		if rng.IntN(3) == 0 && len(pattern) > 0 {
			// Texts that match are rare; make some from the pattern.
			text = strings.NewReplacer("**", "a/b", "*", "ab", "?", "c", "\\", "").Replace(pattern)
		}
		pathname := rng.IntN(2) == 0
		if checkWildmatch(t, pattern, text, pathname) {
			matches++
		}
	}
	if matches < n/20 {
		t.Errorf("only %d of %d random cases match: the comparison says little", matches, n)
	}
}

// checkWildmatch compares one case with the reference and reports
// whether it matches.
func checkWildmatch(t *testing.T, pattern, text string, pathname bool) bool {
	t.Helper()
	want := refWildmatch(pattern, text, pathname)
	m := compileWildmatch(pattern, pathname)
	if got := m.match(text); got != want {
		t.Errorf("wildmatch(%q, %q, pathname=%v) = %v, reference %v", pattern, text, pathname, got, want)
	}
	n := len(pattern)
	for i := 0; i < len(pattern); i++ {
		if isGlobSpecial(pattern[i]) {
			n = i
			break
		}
	}
	for k := 0; k <= n && k <= len(text) && text[:k] == pattern[:k]; k++ {
		if got := m.matchFrom(text, k); got != want {
			t.Errorf("matchFrom(%q, %d) of %q, pathname=%v = %v, reference %v", text, k, pattern, pathname, got, want)
		}
	}
	return want
}

// FuzzWildmatch compares the matcher with the reference. Its seeds run
// with every go test; go test -fuzz=FuzzWildmatch looks further.
func FuzzWildmatch(f *testing.F) {
	for _, c := range wildmatchCases {
		f.Add(c.pattern, c.text, c.pathname)
	}
	for _, c := range hostileWildmatch {
		f.Add(c.pattern[:min(len(c.pattern), 24)], c.text[:min(len(c.text), 24)], c.pathname)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, pathname bool) {
		if len(pattern) > 32 || len(text) > 32 || strings.Count(pattern, "*") > 12 {
			t.Skip("too large for the exponential reference")
		}
		if strings.IndexByte(pattern+text, 0) >= 0 {
			t.Skip("a NUL byte: git's patterns end at one (parseGitignore cuts there), and names have none")
		}
		checkWildmatch(t, pattern, text, pathname)
	})
}
