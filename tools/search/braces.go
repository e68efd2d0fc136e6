package search

import "fmt"

// doublestar matches a pattern with braces by trying the alternatives of
// the first "{...}" one after another, each time on a new copy of the
// pattern, and so on for the braces that follow: a pattern such as
// "{a,b}{a,b}{a,b}…" makes it try 2^n patterns against every name, for
// hours. Without braces it is polynomial (it remembers only the last '*'
// and the last "**/" to go back to). So a Glob or GlobRequest.Pattern is
// refused when its braces would make doublestar try more than
// maxBraceAttempts patterns, which keeps every match within a small
// multiple of the time of a pattern without braces.

// maxBraceAttempts bounds the patterns doublestar tries for one match:
// "{a,b}" seven times in a row needs 255, "*.{go,md}" 3. At the bound, a
// hostile pattern costs about 0.4 ms per 255-byte name.
const maxBraceAttempts = 256

// checkBraces refuses pattern (the rest of the request's value orig,
// named what) if its braces expand too far.
func checkBraces(what, orig, pattern string) error {
	if n := braceAttempts(pattern); n > maxBraceAttempts {
		return fmt.Errorf("search: %s %q has too many brace alternatives: matching it would try more than %d patterns against every path; use fewer braces, or run one search per alternative", what, orig, maxBraceAttempts)
	}
	return nil
}

// braceGroup is one "{...}" of a pattern: its alternatives, each with the
// groups in it.
type braceGroup struct {
	alts [][]braceGroup
}

// braceAttempts returns how many patterns doublestar tries, at most, to
// match the pattern p against one name (1 for a pattern without braces),
// or a number above maxBraceAttempts. It reads braces, escapes and
// classes as doublestar does for a valid pattern.
func braceAttempts(p string) int {
	seq, _ := parseBraceGroups(p, 0, false)
	return attempts(seq, 1)
}

// parseBraceGroups reads p from i to its end or, when nested, to the ','
// or '}' that ends the alternative, and returns the groups on the way and
// where it stopped.
func parseBraceGroups(p string, i int, nested bool) ([]braceGroup, int) {
	var seq []braceGroup
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			// A class, where braces and commas are literal.
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
			i++
		case '{':
			var g braceGroup
			i++
			for {
				alt, end := parseBraceGroups(p, i, true)
				g.alts = append(g.alts, alt)
				i = end + 1
				if end >= len(p) || p[end] == '}' {
					break
				}
			}
			seq = append(seq, g)
		case ',', '}':
			if nested {
				return seq, i
			}
			i++
		default:
			i++
		}
	}
	return seq, i
}

// attempts returns how many patterns doublestar tries for the groups seq
// followed by a rest that takes rest tries: at the first group it tries
// each alternative, followed by the groups after it, in a pattern of its
// own, and one try reaches the group.
func attempts(seq []braceGroup, rest int) int {
	if len(seq) == 0 {
		return rest
	}
	after := attempts(seq[1:], rest)
	n := 1
	for _, alt := range seq[0].alts {
		n = min(n+attempts(alt, after), maxBraceAttempts+1)
	}
	return n
}
