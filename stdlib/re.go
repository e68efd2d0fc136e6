package stdlib

import (
	"context"
	"fmt"
	"regexp"
	"sync"
)

// The re module uses RE2 syntax (Go's regexp): no backreferences or
// lookaround; inline flags such as (?i) work. Offsets are byte offsets.
// Replacement strings use $1, ${1} and ${name}, not \1.
//
// Matching takes time linear in the input, and every function stops when
// its context ends, however long the input. What a call builds is
// bounded: see MaxGrowth and MaxMatches.

// Bounds of what one call builds.
const (
	// MaxGrowth bounds how much longer than its input a result of re.sub,
	// json.indent or json.encode_indent may be (64 MiB): a replacement or an
	// indent repeated for every match or line can otherwise turn a small
	// input into gigabytes.
	MaxGrowth = 64 << 20

	// MaxMatches bounds the items re.findall and re.split return
	// (4,194,304): an empty pattern matches at every position of its input.
	MaxMatches = 1 << 22
)

// The bounds as the functions read them; tests lower them.
var maxGrowth, maxMatches = MaxGrowth, MaxMatches

// reCache keeps compiled patterns; scripts tend to reuse a few.
var reCache struct {
	sync.Mutex
	m map[string]*pattern
}

const reCacheSize = 256

// pattern is a compiled pattern and, made when first needed, the form
// that resumes a search in the middle of a text (see search).
type pattern struct {
	re        *regexp.Regexp
	looksBack bool

	once    sync.Once
	cont    *regexp.Regexp
	contErr error
}

// Compile returns the compiled pattern, cached.
func Compile(p string) (*regexp.Regexp, error) {
	c, err := compile(p)
	if err != nil {
		return nil, err
	}
	return c.re, nil
}

func compile(p string) (*pattern, error) {
	reCache.Lock()
	c, ok := reCache.m[p]
	reCache.Unlock()
	if ok {
		return c, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %v (patterns use RE2 syntax: no backreferences or lookaround)", p, unwrapSyntax(err))
	}
	c = &pattern{re: re, looksBack: looksBack(re)}
	reCache.Lock()
	if reCache.m == nil || len(reCache.m) >= reCacheSize {
		reCache.m = map[string]*pattern{}
	}
	reCache.m[p] = c
	reCache.Unlock()
	return c, nil
}

func unwrapSyntax(err error) string {
	if se, ok := err.(interface{ Unwrap() error }); ok && se.Unwrap() != nil {
		return se.Unwrap().Error()
	}
	return err.Error()
}

// Match is one match: the whole text and every group.
type Match struct {
	// Groups[0] is the whole match.
	Groups []Group
	// Names[i] is the name of group i, "" if unnamed.
	Names []string
}

// Group is one capture group.
type Group struct {
	Text       string
	Start, End int  // byte offsets; -1 when the group did not take part
	Matched    bool // false for a group that did not take part
}

// Group returns group i, or false if there is no such group.
func (m *Match) Group(i int) (Group, bool) {
	if i < 0 || i >= len(m.Groups) {
		return Group{}, false
	}
	return m.Groups[i], true
}

// GroupIndex returns the index of the named group, or -1.
func (m *Match) GroupIndex(name string) int {
	for i, n := range m.Names {
		if n != "" && n == name {
			return i
		}
	}
	return -1
}

func newMatch(re *regexp.Regexp, s string, loc []int) *Match {
	m := &Match{Names: re.SubexpNames(), Groups: make([]Group, len(loc)/2)}
	for i := range m.Groups {
		a, b := loc[2*i], loc[2*i+1]
		if a < 0 {
			m.Groups[i] = Group{Start: -1, End: -1}
			continue
		}
		m.Groups[i] = Group{Text: s[a:b], Start: a, End: b, Matched: true}
	}
	return m
}

// Search returns the leftmost match of pattern in s, or nil.
func Search(ctx context.Context, pattern, s string) (*Match, error) {
	c, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	loc, err := c.search(ctx, s, 0)
	if loc == nil || err != nil {
		return nil, err
	}
	return newMatch(c.re, s, loc), nil
}

// MatchStart returns a match of pattern that starts at the beginning of s,
// or nil. (A leftmost match starts at 0 whenever one can.)
func MatchStart(ctx context.Context, pattern, s string) (*Match, error) {
	m, err := Search(ctx, pattern, s)
	if m == nil || err != nil || m.Groups[0].Start != 0 {
		return nil, err
	}
	return m, nil
}

// FullMatch returns a match of pattern that spans all of s, or nil.
func FullMatch(ctx context.Context, pattern, s string) (*Match, error) {
	if _, err := compile(pattern); err != nil {
		return nil, err
	}
	return Search(ctx, `\A(?:`+pattern+`)\z`, s)
}

// FindAll returns every non-overlapping match: the whole match when the
// pattern has no groups, the group when it has one, and a list of groups
// ([]any of strings) when it has several. Unmatched groups are "".
func FindAll(ctx context.Context, pattern, s string) ([]any, error) {
	c, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	out := []any{}
	err = c.each(ctx, s, -1, func(loc []int) error {
		if len(out) == maxMatches {
			return fmt.Errorf("more than %d matches; search a smaller part of the text", maxMatches)
		}
		m := newMatch(c.re, s, loc)
		switch len(m.Groups) {
		case 1:
			out = append(out, m.Groups[0].Text)
		case 2:
			out = append(out, m.Groups[1].Text)
		default:
			gs := make([]any, len(m.Groups)-1)
			for i, g := range m.Groups[1:] {
				gs[i] = g.Text
			}
			out = append(out, gs)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Sub replaces the first count matches (all when count <= 0) of pattern in
// s with repl, expanding $1, ${1} and ${name}. A result more than
// MaxGrowth bytes longer than s is an error.
func Sub(ctx context.Context, pattern, repl, s string, count int) (string, error) {
	c, err := compile(pattern)
	if err != nil {
		return "", err
	}
	n := -1
	if count > 0 {
		n = count
	}
	tmpl := parseTemplate(c.re, repl)
	limit := len(s) + maxGrowth
	var out []byte
	last := 0
	err = c.each(ctx, s, n, func(loc []int) error {
		if len(out)+loc[0]-last+tmpl.size(s, loc) > limit {
			return fmt.Errorf("the result would be more than %d bytes longer than the input (%d bytes); replace in smaller parts, or pass count", maxGrowth, len(s))
		}
		out = append(out, s[last:loc[0]]...)
		out = tmpl.expand(out, s, loc)
		last = loc[1]
		return nil
	})
	if err != nil {
		return "", err
	}
	return string(append(out, s[last:]...)), nil
}

// Split splits s around matches of pattern, at most maxsplit times when
// maxsplit > 0. Unlike Python, groups in the pattern are not included.
// The pieces are those of Go's Regexp.Split.
func Split(ctx context.Context, pattern, s string, maxsplit int) ([]string, error) {
	c, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	n := -1
	if maxsplit > 0 {
		n = maxsplit + 1
	}
	if pattern != "" && s == "" {
		return []string{""}, nil
	}
	out := []string{}
	beg, end := 0, 0
	stop := fmt.Errorf("stop")
	err = c.each(ctx, s, n, func(loc []int) error {
		if n > 0 && len(out) == n-1 {
			return stop
		}
		if len(out) == maxMatches {
			return fmt.Errorf("more than %d pieces; split a smaller part of the text, or pass maxsplit", maxMatches)
		}
		end = loc[0]
		if loc[1] != 0 {
			out = append(out, s[beg:end])
		}
		beg = loc[1]
		return nil
	})
	if err != nil && err != stop {
		return nil, err
	}
	if end != len(s) {
		out = append(out, s[beg:])
	}
	return out, nil
}

// Escape quotes every metacharacter of s.
func Escape(s string) string { return regexp.QuoteMeta(s) }
