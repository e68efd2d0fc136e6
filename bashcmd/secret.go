package bashcmd

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// secrets matches the files that may hold secrets, from a list of glob
// patterns read as a .gitignore reads them (the same rules as
// workpath.MatchList, which this package may not import): a pattern
// without a slash matches the base name wherever the file lies, one with
// a slash the whole path, one ending in / a directory and everything
// below it; the last pattern that matches decides, and a pattern that
// starts with ! takes a name back out (.env.* then !.env.example).
type secrets struct {
	patterns []string
	// names are made-up names that the positive patterns match and the
	// list keeps (.env, .env.x, x.pem, .ssh), to try the globs of a
	// command line against: a glob that matches one may name a secret.
	names []string
}

func newSecrets(patterns []string) *secrets {
	s := &secrets{patterns: patterns}
	seen := map[string]bool{}
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") {
			continue
		}
		for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
			for _, name := range examples(seg, 0) {
				if name != "" && !seen[name] && !strings.ContainsAny(name, "*?[]{}\\") {
					seen[name] = true
					s.names = append(s.names, name)
				}
			}
		}
	}
	return s
}

// examples returns names a glob segment matches: each * as nothing and
// as "x", ? as "x", a class as its first member, each alternative of a
// brace.
func examples(seg string, depth int) []string {
	if depth > 4 {
		return nil
	}
	if i := strings.IndexByte(seg, '{'); i >= 0 {
		if j := strings.IndexByte(seg[i:], '}'); j > 0 {
			var out []string
			for _, alt := range strings.Split(seg[i+1:i+j], ",") {
				out = append(out, examples(seg[:i]+alt+seg[i+j+1:], depth+1)...)
			}
			return out
		}
	}
	var empty, x strings.Builder
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '*':
			x.WriteByte('x')
		case '?':
			empty.WriteByte('x')
			x.WriteByte('x')
		case '[':
			j := strings.IndexByte(seg[i+1:], ']')
			if j < 0 {
				return nil
			}
			class := strings.TrimLeft(seg[i+1:i+1+j], "!^")
			if class == "" || seg[i+1] == '!' || seg[i+1] == '^' {
				return nil
			}
			empty.WriteByte(class[0])
			x.WriteByte(class[0])
			i += j + 1
		case '\\':
			if i+1 < len(seg) {
				i++
				empty.WriteByte(seg[i])
				x.WriteByte(seg[i])
			}
		default:
			empty.WriteByte(c)
			x.WriteByte(c)
		}
	}
	return []string{empty.String(), x.String()}
}

// match reports whether the file p (a path as written, cleaned) may hold
// secrets.
func (s *secrets) match(p string) bool {
	if s == nil || p == "" {
		return false
	}
	matched := false
	for _, pat := range s.patterns {
		neg := strings.HasPrefix(pat, "!")
		if neg == matched {
			if secretMatch(strings.TrimPrefix(pat, "!"), p) {
				matched = !neg
			}
		}
	}
	return matched
}

// secretMatch is workpath.Match: a pattern without / matches the base
// name, one ending in / the path or any directory above it.
func secretMatch(pattern, p string) bool {
	p = path.Clean(p)
	if dir, ok := strings.CutSuffix(pattern, "/"); ok && dir != "" {
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if secretMatch(dir, q) {
				return true
			}
		}
		return false
	}
	if !strings.Contains(pattern, "/") {
		ok, _ := doublestar.Match(pattern, path.Base(p))
		return ok
	}
	ok, _ := doublestar.Match(pattern, p)
	return ok
}

// mayMatch reports whether a glob segment of a command line (bash's
// syntax) may match a file that holds secrets: whether it matches one of
// the made-up names. As in bash, a leading . is matched only by a
// leading . in the glob.
func (s *secrets) mayMatch(glob string) bool {
	if s == nil {
		return false
	}
	for _, name := range s.names {
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(glob, ".") && !strings.HasPrefix(glob, `\.`) {
			continue
		}
		if ok, _ := doublestar.Match(glob, name); ok && s.match(name) {
			return true
		}
	}
	return false
}
