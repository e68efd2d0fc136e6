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
// lists with CheckPatterns first.
func MatchList(patterns []string, p string) bool {
	matched := false
	for _, pat := range patterns {
		neg := strings.HasPrefix(pat, "!")
		if neg == matched {
			// Only a pattern that could change the answer is tried.
			if m, _ := Match(strings.TrimPrefix(pat, "!"), p); m {
				matched = !neg
			}
		}
	}
	return matched
}
