package search

import (
	"bytes"
	"strings"
)

// This file holds the one implementation of .gitignore rules that every
// backend uses. It follows gitignore(5) and git's own matcher (dir.c,
// wildmatch.c) as of git 2.52, rather than a glob library, because the
// corner cases (trailing spaces, escapes, "**" in odd places, patterns
// that match directories) are where tools disagree. Where git changed
// its answers, this follows the newer git: a .gitignore larger than
// 100 MiB is ignored (git 2.46), and a "**" right after a pattern's
// literal start is not at the start of the path (git 2.52: "foo**/bar"
// does not match "foobar", nor "/m**/*" "m.log").

// maxGitignoreSize is the size above which git ignores a .gitignore file
// (dir.c's PATTERN_MAX_FILE_SIZE).
const maxGitignoreSize = 100 << 20

// ignorePattern is one non-blank, non-comment line of a .gitignore file.
type ignorePattern struct {
	pattern string // wildmatch pattern: no '!', no trailing '/', no leading '/'
	negate  bool   // "!pattern": re-include
	dirOnly bool   // "pattern/": directories only
	// base: the pattern has no '/' (other than a trailing one) and matches
	// the base name at any depth; otherwise it matches the path relative
	// to the .gitignore's directory.
	base bool
	kind patternKind
	lit  string    // patLiteral: the name; patSuffix: the suffix
	wm   wmPattern // patGlob: the compiled pattern
	// prefix is the length of the literal start of the pattern, before
	// its first wildcard or backslash (see match).
	prefix int
}

type patternKind uint8

const (
	patGlob    patternKind = iota // wildmatch
	patLiteral                    // base-name pattern without wildcards
	patSuffix                     // base-name pattern "*literal"
)

// parseGitignore parses the content of a .gitignore file. Like git, it
// ignores a file larger than maxGitignoreSize.
func parseGitignore(data []byte) []ignorePattern {
	if len(data) > maxGitignoreSize {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	pats := make([]ignorePattern, 0, min(bytes.Count(data, []byte("\n"))+1, 256))
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i] // git reads lines as C strings
		}
		if p, ok := parseIgnoreLine(trimTrailingSpaces(string(line))); ok {
			pats = append(pats, p)
		}
	}
	return pats
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a
// backslash; tabs and other blanks stay, as in git.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

func parseIgnoreLine(s string) (ignorePattern, bool) {
	var p ignorePattern
	if strings.HasPrefix(s, "!") {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	if s == "" {
		return p, false // matches nothing
	}
	p.base = !strings.Contains(s, "/")
	if !p.base {
		s = strings.TrimPrefix(s, "/")
	}
	p.pattern = s
	p.prefix = len(s)
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			p.prefix = i
			break
		}
	}
	switch {
	case p.base && p.prefix == len(s):
		p.kind, p.lit = patLiteral, s
	case p.base && s[0] == '*' && noWildcard(s[1:]):
		p.kind, p.lit = patSuffix, s[1:]
	case p.prefix < len(s):
		p.wm.compile(s, !p.base)
	}
	return p, true
}

func noWildcard(s string) bool {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return false
		}
	}
	return true
}

// match reports whether the pattern matches an entry; rel is the entry's
// path relative to the directory of the .gitignore and name its base name.
func (p *ignorePattern) match(rel, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	text := name
	if !p.base {
		text = rel
	}
	switch p.kind {
	case patLiteral:
		return name == p.lit
	case patSuffix:
		return strings.HasSuffix(name, p.lit)
	}
	// The literal start is compared first, as git does; the rest is
	// matched in the context of the whole pattern, so a "**" right after
	// that start is not at the start of the path ("b**/*" does not match
	// "b.log"; git < 2.52 matched only the rest, and said it did).
	n := p.prefix
	if n > len(text) || p.pattern[:n] != text[:n] {
		return false
	}
	if n == len(p.pattern) {
		return len(text) == n
	}
	return p.wm.matchFrom(text, n)
}

// ignoreFrame is the .gitignore of one directory.
type ignoreFrame struct {
	dir      string // relative to the search root, "" for the root
	patterns []ignorePattern
}

// ignoreStack is the .gitignore files that apply in a directory, from
// the shallowest to the deepest. It is never modified in place: push
// returns a new stack, so a walk can keep one per directory.
type ignoreStack []*ignoreFrame

func (s ignoreStack) push(f *ignoreFrame) ignoreStack {
	if f == nil || len(f.patterns) == 0 {
		return s
	}
	out := make(ignoreStack, len(s)+1)
	copy(out, s)
	out[len(s)] = f
	return out
}

// ignored reports whether the entry at rel (relative to the search root,
// with base name name) is ignored. The deepest .gitignore with a matching
// pattern decides, and within a file the last matching pattern: a "!"
// pattern re-includes.
func (s ignoreStack) ignored(rel, name string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		sub := rel
		if f.dir != "" {
			sub = rel[len(f.dir)+1:]
		}
		for j := len(f.patterns) - 1; j >= 0; j-- {
			if p := &f.patterns[j]; p.match(sub, name, isDir) {
				return !p.negate
			}
		}
	}
	return false
}
