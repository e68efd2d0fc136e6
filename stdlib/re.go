package stdlib

import (
	"fmt"
	"regexp"
	"sync"
)

// The re module uses RE2 syntax (Go's regexp): no backreferences or
// lookaround; inline flags such as (?i) work. Offsets are byte offsets.
// Replacement strings use $1, ${1} and ${name}, not \1.

// reCache keeps compiled patterns; scripts tend to reuse a few.
var reCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const reCacheSize = 256

// Compile returns the compiled pattern, cached.
func Compile(pattern string) (*regexp.Regexp, error) {
	reCache.Lock()
	re, ok := reCache.m[pattern]
	reCache.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %v (patterns use RE2 syntax: no backreferences or lookaround)", pattern, unwrapSyntax(err))
	}
	reCache.Lock()
	if reCache.m == nil || len(reCache.m) >= reCacheSize {
		reCache.m = map[string]*regexp.Regexp{}
	}
	reCache.m[pattern] = re
	reCache.Unlock()
	return re, nil
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
func Search(pattern, s string) (*Match, error) {
	re, err := Compile(pattern)
	if err != nil {
		return nil, err
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return nil, nil
	}
	return newMatch(re, s, loc), nil
}

// MatchStart returns a match of pattern that starts at the beginning of s,
// or nil. (A leftmost match starts at 0 whenever one can.)
func MatchStart(pattern, s string) (*Match, error) {
	m, err := Search(pattern, s)
	if m == nil || err != nil || m.Groups[0].Start != 0 {
		return nil, err
	}
	return m, nil
}

// FullMatch returns a match of pattern that spans all of s, or nil.
func FullMatch(pattern, s string) (*Match, error) {
	if _, err := Compile(pattern); err != nil {
		return nil, err
	}
	return Search(`\A(?:`+pattern+`)\z`, s)
}

// FindAll returns every non-overlapping match: the whole match when the
// pattern has no groups, the group when it has one, and a list of groups
// ([]any of strings) when it has several. Unmatched groups are "".
func FindAll(pattern, s string) ([]any, error) {
	re, err := Compile(pattern)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		m := newMatch(re, s, loc)
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
	}
	return out, nil
}

// Sub replaces the first count matches (all when count <= 0) of pattern in
// s with repl, expanding $1, ${1} and ${name}.
func Sub(pattern, repl, s string, count int) (string, error) {
	re, err := Compile(pattern)
	if err != nil {
		return "", err
	}
	n := -1
	if count > 0 {
		n = count
	}
	var out []byte
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, n) {
		out = append(out, s[last:loc[0]]...)
		out = re.ExpandString(out, repl, s, loc)
		last = loc[1]
	}
	return string(append(out, s[last:]...)), nil
}

// Split splits s around matches of pattern, at most maxsplit times when
// maxsplit > 0. Unlike Python, groups in the pattern are not included.
func Split(pattern, s string, maxsplit int) ([]string, error) {
	re, err := Compile(pattern)
	if err != nil {
		return nil, err
	}
	n := -1
	if maxsplit > 0 {
		n = maxsplit + 1
	}
	return re.Split(s, n), nil
}

// Escape quotes every metacharacter of s.
func Escape(s string) string { return regexp.QuoteMeta(s) }
