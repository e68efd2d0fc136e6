package workpath

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Clean returns p slash-cleaned: "." and ".." resolved lexically, no
// trailing slash, "." for an empty path. It looks at no filesystem.
func Clean(p string) string { return path.Clean(p) }

// Within reports whether p is dir or lies below it, lexically: both are
// cleaned first, and "." holds every relative path that does not climb
// out with "..". An absolute path is within an absolute dir only.
func Within(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	switch {
	case p == dir:
		return true
	case dir == ".":
		return !strings.HasPrefix(p, "/") && p != ".." && !strings.HasPrefix(p, "../")
	case dir == "/":
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}

// CheckPatterns reports the first of patterns that is not a glob Match
// accepts (after a leading !, see MatchList), in an error a person can
// act on.
func CheckPatterns(patterns []string) error {
	for _, p := range patterns {
		if q := strings.TrimPrefix(p, "!"); q == "" || !doublestar.ValidatePattern(strings.TrimSuffix(q, "/")) {
			return fmt.Errorf("pattern %q is not a valid glob; use *, **, ?, [abc] and {a,b}, as in *.pem or .ssh/", p)
		}
	}
	return nil
}

// Match reports whether the slash path p matches the glob pattern
// (doublestar: *, **, ?, [abc], {a,b}). As in .gitignore, a pattern
// without a slash matches the base name of p wherever p lies (*.pem
// matches certs/server.pem), and one with a slash matches the whole
// path (src/**/*.go); a pattern ending in / matches p or any path below
// it (.ssh/ matches .ssh/id_ed25519). A malformed pattern is an error.
func Match(pattern, p string) (bool, error) {
	if !doublestar.ValidatePattern(pattern) {
		return false, fmt.Errorf("match: pattern %q is not a valid glob; use *, **, ?, [abc] and {a,b}", pattern)
	}
	p = path.Clean(p)
	if dir, ok := strings.CutSuffix(pattern, "/"); ok && dir != "" {
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if m, _ := Match(dir, q); m {
				return true, nil
			}
		}
		return false, nil
	}
	if !strings.Contains(pattern, "/") {
		return doublestar.Match(pattern, path.Base(p))
	}
	return doublestar.Match(pattern, p)
}

// MatchList reports whether p is matched by the list of patterns, read as
// a .gitignore reads them: each pattern is Match's, the last one that
// matches decides, and a pattern that starts with ! takes p back out
// (.env.* then !.env.example). Malformed patterns match nothing; check
// lists with CheckPatterns first, or compile one with NewMatcher to match
// many paths.
func MatchList(patterns []string, p string) bool {
	m, _ := newMatcher(patterns, false)
	return m.Match(p)
}

// Matcher is a list of patterns compiled for MatchList's matching of many
// paths. It is safe for concurrent use.
type Matcher struct{ pats []listPattern }

type listPattern struct {
	glob    string // without ! and a trailing /
	neg     bool   // !pattern
	dir     bool   // pattern/: p or any directory above it
	whole   bool   // holds a slash: matched against the whole path
	literal bool   // no glob syntax: compared as a string
	// prefix and suffix: the glob is prefix*suffix with no other syntax
	// (*.pem, id_rsa*), compared without doublestar.
	prefix, suffix string
	star           bool
}

// NewMatcher compiles patterns; a malformed one is an error (see
// CheckPatterns).
func NewMatcher(patterns []string) (*Matcher, error) { return newMatcher(patterns, true) }

func newMatcher(patterns []string, strict bool) (*Matcher, error) {
	m := &Matcher{pats: make([]listPattern, 0, len(patterns))}
	for _, raw := range patterns {
		lp := listPattern{glob: raw}
		lp.glob, lp.neg = strings.CutPrefix(lp.glob, "!")
		if g, ok := strings.CutSuffix(lp.glob, "/"); ok && g != "" {
			lp.glob, lp.dir = g, true
		}
		if lp.glob == "" || !doublestar.ValidatePattern(lp.glob) {
			if strict {
				return nil, fmt.Errorf("pattern %q is not a valid glob; use *, **, ?, [abc] and {a,b}, as in *.pem or .ssh/", raw)
			}
			continue
		}
		lp.whole = strings.Contains(lp.glob, "/")
		lp.literal = !strings.ContainsAny(lp.glob, `*?[]{}\`)
		if pre, suf, ok := strings.Cut(lp.glob, "*"); ok && !strings.ContainsAny(pre+suf, `*?[]{}\/`) {
			lp.prefix, lp.suffix, lp.star = pre, suf, true
		}
		m.pats = append(m.pats, lp)
	}
	return m, nil
}

// Match reports whether the slash path p is matched, as MatchList says.
func (m *Matcher) Match(p string) bool { return m.match(path.Clean(p), true) }

// MatchEntry is Match for a clean path whose directories did not match:
// an entry of a walk that skips what matched. It looks at the entry
// alone, not at the directories above it.
func (m *Matcher) MatchEntry(p string) bool { return m.match(p, false) }

func (m *Matcher) match(p string, above bool) bool {
	matched := false
	for _, lp := range m.pats {
		if lp.neg == matched && lp.match(p, above) {
			matched = !lp.neg
		}
	}
	return matched
}

func (lp listPattern) match(p string, above bool) bool {
	if !lp.dir || !above {
		return lp.one(p)
	}
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if lp.one(q) {
			return true
		}
	}
	return false
}

// one matches a single path: whole, or by its base name.
func (lp listPattern) one(p string) bool {
	if !lp.whole {
		p = path.Base(p)
	}
	switch {
	case lp.literal:
		return p == lp.glob
	case lp.star:
		return len(p) >= len(lp.prefix)+len(lp.suffix) && strings.HasPrefix(p, lp.prefix) && strings.HasSuffix(p, lp.suffix)
	}
	ok, _ := doublestar.Match(lp.glob, p)
	return ok
}
