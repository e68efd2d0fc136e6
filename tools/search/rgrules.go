package search

import (
	"bytes"
	"context"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rg applies .gitignore files with its own matcher (the Rust ignore and
// globset crates), which agrees with git, and so with this package, on
// ordinary patterns but not on all: it expands {a,b}, matches '?' and
// sets against characters rather than bytes, trims trailing tabs, keeps a
// byte order mark, reads a .gitignore that is a symbolic link or larger
// than git's 100 MiB limit, applies the rules given with --ignore-file
// inside nested repositories too, and ripgrep 13 also reads .rgignore
// files, which only --no-ignore turns off. A "**" next to other
// characters ("b**/*") is handed over too: git read it one way before
// 2.52 and another since (the one this package follows, and rg 13's in
// the cases tried), and globset documents it as invalid, so its reading
// is not one to depend on. So while rg runs, the ripgrep backend walks the
// same directories (reading no files but .gitignore) and looks for any of
// these; if it finds one, rg's result is dropped and the native backend
// answers instead. The walk costs about as much as a native Glob (some
// 25 ms of CPU over GOROOT/src), next to rg.

// rulesCheck is the outcome of that walk.
type rulesCheck struct {
	explicit bool // see checkRules
	differ   bool // rg would apply different rules
	charSets bool // a pattern has '?' or a set: safe only on ASCII names
	nonASCII bool // a name that is not ASCII
}

func (c *rulesCheck) ok() bool { return !c.differ && !(c.charSets && c.nonASCII) }

// checkRules walks the tree as a search of req would and reports whether
// rg's ignore rules can differ from ours there. explicit says that the
// rules of start's parents reach rg with --ignore-file, which rg applies
// below a nested repository too, where ours stop.
func checkRules(ctx context.Context, top *os.Root, rootPath string, req GrepRequest, start string, explicit bool) *rulesCheck {
	c := &rulesCheck{explicit: explicit}
	if start != "" {
		// The parents' rules reach rg rewritten by parentIgnores.
		parts := strings.Split(start, "/")
		for i := range parts {
			c.name(parts[i])
			dir := strings.Join(parts[:i], "/")
			if fi, err := top.Lstat(joinRel(dir, ".gitignore")); err == nil {
				if !fi.Mode().IsRegular() {
					c.differ = true
				} else if data, err := top.ReadFile(joinRel(dir, ".gitignore")); err == nil {
					c.gitignore(data)
				}
			}
		}
	}
	w := &walker{
		src:       &checkSource{diskSource: newDiskSource(top, rootPath), c: c},
		top:       top,
		hidden:    req.Hidden,
		unordered: true,
		stopped:   func() bool { return ctx.Err() != nil || c.differ },
		file: func(_ *dirHandle, name, _ string) bool {
			c.name(name)
			return true
		},
	}
	if err := w.walk(start); err != nil {
		c.differ = true
	}
	return c
}

func (c *rulesCheck) name(n string) {
	for i := 0; i < len(n); i++ {
		if n[i] >= utf8.RuneSelf {
			c.nonASCII = true
			return
		}
	}
}

// checkSource is a disk walk that inspects what it reads.
type checkSource struct {
	*diskSource
	c *rulesCheck
}

func (s *checkSource) readDir(d *dirHandle) ([]dirEntry, error) {
	entries, err := s.diskSource.readDir(d)
	for _, e := range entries {
		switch {
		case e.name == ".git" && s.c.explicit:
			s.c.differ = true
		case e.name == ".rgignore":
			s.c.differ = true
		case e.name == ".gitignore" && e.kind != kindFile:
			s.c.differ = true
		case e.kind == kindDir:
			s.c.name(e.name)
		}
	}
	return entries, err
}

func (s *checkSource) readGitignore(d *dirHandle) []byte {
	data := s.diskSource.readGitignore(d)
	s.c.gitignore(data)
	return data
}

// gitignore looks for patterns that rg reads differently.
func (c *rulesCheck) gitignore(data []byte) {
	if len(data) > maxGitignoreSize || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || !utf8.Valid(data) {
		// git ignores such a file and rg reads it; rg keeps a byte order
		// mark as part of the first pattern.
		c.differ = true
		return
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		gitLine := trimTrailingSpaces(line)
		rgLine := line
		if !strings.HasSuffix(line, `\ `) {
			rgLine = strings.TrimRightFunc(line, unicode.IsSpace)
		}
		if gitLine != rgLine || strings.ContainsAny(gitLine, "{}\x00\r") {
			c.differ = true
			return
		}
		p, ok := parseIgnoreLine(gitLine)
		if !ok {
			c.differ = true // matches nothing in git; rg may read it otherwise
			return
		}
		if !safeGlob(p.pattern, &c.charSets) {
			c.differ = true
			return
		}
	}
}

// safeGlob reports whether git and rg read a pattern the same way, and
// notes sets and '?'.
func safeGlob(p string, charSets *bool) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
			if i >= len(p) {
				return false // a trailing backslash
			}
		case '?':
			*charSets = true
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				// "**" must be a whole component.
				if (i > 0 && p[i-1] != '/') || (i+2 < len(p) && p[i+2] != '/') {
					return false
				}
				i++
			}
		case '[':
			// A plain set: ASCII, no nested '[', escapes, '/' or classes.
			*charSets = true
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				return false
			}
			for ; j < len(p) && p[j] != ']'; j++ {
				if c := p[j]; c >= utf8.RuneSelf || c == '[' || c == '\\' || c == '/' {
					return false
				}
			}
			if j >= len(p) {
				return false
			}
			i = j
		case ']':
			return false
		}
	}
	return true
}
