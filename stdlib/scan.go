package stdlib

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regexp searches a string without looking at a context, and finds
// all matches at once, holding every position in memory. Here the
// regexp reads the text through a RuneReader that watches the context, so
// a search over a huge text stops when the call is cancelled, and matches
// are found one at a time, so they cost memory only as the caller keeps
// them.
//
// A search that resumes at pos > 0 in a pattern that looks back (^, \A,
// \b, \B) must see the character before pos, or it would take pos for the
// start of the text. So it reads from that character on, with the pattern
// behind a prefix that consumes it: \A(?s:.)(?s:.*?)(PATTERN). The lazy
// .*? makes the leftmost match win, as in an unanchored search, and the
// group gives PATTERN's own span. A pattern that does not look back
// simply searches the rest of the text.

// checkEvery is how many characters a search reads between looks at its
// context.
const checkEvery = 1 << 12

// textReader reads s from a byte offset, as the string engine would
// decode it, and ends early once done is closed.
type textReader struct {
	s       string
	i       int
	n       int
	done    <-chan struct{}
	stopped bool
}

func (r *textReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	if r.done != nil {
		if r.n++; r.n%checkEvery == 0 {
			select {
			case <-r.done:
				r.stopped = true
				return 0, 0, io.EOF
			default:
			}
		}
	}
	if c := r.s[r.i]; c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	c, w := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += w
	return c, w, nil
}

// looksBack reports whether re has an assertion about the text before a
// position: ^, \A, \b or \B.
func looksBack(re *regexp.Regexp) bool {
	prog, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		for _, sub := range r.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(prog)
}

// resume is the pattern that continues a search after one character.
func (p *pattern) resume() (*regexp.Regexp, error) {
	p.once.Do(func() {
		p.cont, p.contErr = regexp.Compile(`\A(?s:.)(?s:.*?)(` + p.re.String() + `)`)
		if p.contErr != nil {
			// Only a pattern at the limits of RE2's nesting or size gets here.
			p.contErr = fmt.Errorf("pattern %q is too complex to search for more than one match: %v", shortPattern(p.re.String()), unwrapSyntax(p.contErr))
		}
	})
	return p.cont, p.contErr
}

func shortPattern(s string) string {
	if len(s) > 64 {
		return s[:60] + "…"
	}
	return s
}

// readerAbove is the length of text beyond which a search reads through
// a textReader, which watches the context but is slower, rather than the
// string itself: a search of at most this much text ends soon anyway.
// Tests lower it.
var readerAbove = 1 << 20

// search returns the submatch positions of the leftmost match in s that
// starts at pos or later, nil if there is none, or ctx's error.
func (p *pattern) search(ctx context.Context, s string, pos int) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	re, base := p.re, pos
	if pos > 0 && p.looksBack {
		var err error
		if re, err = p.resume(); err != nil {
			return nil, err
		}
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		base = pos - w
	}
	var loc []int
	if len(s)-base <= readerAbove {
		loc = re.FindStringSubmatchIndex(s[base:])
	} else {
		r := &textReader{s: s, i: base, done: ctx.Done()}
		loc = re.FindReaderSubmatchIndex(r)
		if r.stopped {
			return nil, ctx.Err()
		}
	}
	if loc == nil {
		return nil, nil
	}
	if re != p.re {
		loc = loc[2:] // the pattern's own groups, behind the prefix's
	}
	if base == 0 {
		return loc, nil
	}
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += base
		}
	}
	return loc, nil
}

// each calls fn with the submatch positions of the first n matches (all
// when n < 0), the ones Go's FindAll functions return: an empty match
// right after a match does not count. It stops at fn's first error.
func (p *pattern) each(ctx context.Context, s string, n int, fn func(loc []int) error) error {
	prevEnd := -1
	for pos, found := 0, 0; (n < 0 || found < n) && pos <= len(s); {
		loc, err := p.search(ctx, s, pos)
		if err != nil {
			return err
		}
		if loc == nil {
			return nil
		}
		accept := true
		if loc[1] == pos {
			// An empty match: none may follow a match directly, and the
			// next search starts a character later.
			if loc[0] == prevEnd {
				accept = false
			}
			if _, w := utf8.DecodeRuneInString(s[pos:]); w > 0 {
				pos += w
			} else {
				pos = len(s) + 1
			}
		} else {
			pos = loc[1]
		}
		prevEnd = loc[1]
		if accept {
			if err := fn(loc); err != nil {
				return err
			}
			found++
		}
	}
	return nil
}

// template is a replacement string, parsed once: literal text and group
// references, as Regexp.Expand reads them.
type template []segment

// segment is literal text, or a reference: the groups it may insert, the
// first of them that took part in the match.
type segment struct {
	text   string
	groups []int
}

// parseTemplate reads $1, ${1}, $name and ${name} in repl as Go's
// Regexp.Expand does: $$ is a $, a name is the longest run of letters,
// digits and underscores, and a reference to no group inserts nothing.
func parseTemplate(re *regexp.Regexp, repl string) template {
	var t template
	for {
		before, after, ok := strings.Cut(repl, "$")
		if !ok {
			break
		}
		t = append(t, segment{text: before})
		repl = after
		if strings.HasPrefix(repl, "$") {
			t = append(t, segment{text: "$"})
			repl = repl[1:]
			continue
		}
		name, num, rest, ok := templateName(repl)
		if !ok {
			t = append(t, segment{text: "$"})
			continue
		}
		repl = rest
		var groups []int
		switch {
		case num > re.NumSubexp():
		case num >= 0:
			groups = []int{num}
		default:
			for i, n := range re.SubexpNames() {
				if n == name {
					groups = append(groups, i)
				}
			}
		}
		if groups != nil {
			t = append(t, segment{groups: groups})
		}
	}
	return append(t, segment{text: repl})
}

// templateName reads a reference's name after a $: its group number, or
// -1 when it is not a number.
func templateName(s string) (name string, num int, rest string, ok bool) {
	brace := strings.HasPrefix(s, "{")
	if brace {
		s = s[1:]
	}
	i := 0
	for i < len(s) {
		c, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' {
			break
		}
		i += w
	}
	if i == 0 {
		return "", 0, "", false
	}
	name = s[:i]
	if brace {
		if i >= len(s) || s[i] != '}' {
			return "", 0, "", false
		}
		i++
	}
	num = 0
	for j := 0; j < len(name); j++ {
		if name[j] < '0' || name[j] > '9' || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(name[j]-'0')
	}
	if name[0] == '0' && len(name) > 1 {
		num = -1
	}
	return name, num, s[i:], true
}

// span is the text a segment inserts for the match loc in s.
func (sg segment) span(s string, loc []int) string {
	if sg.groups == nil {
		return sg.text
	}
	for _, g := range sg.groups {
		if a := loc[2*g]; a >= 0 {
			return s[a:loc[2*g+1]]
		}
	}
	return ""
}

// size is the length of t expanded for the match loc in s.
func (t template) size(s string, loc []int) int {
	n := 0
	for _, sg := range t {
		n += len(sg.span(s, loc))
	}
	return n
}

// expand appends t, expanded for the match loc in s, to dst.
func (t template) expand(dst []byte, s string, loc []int) []byte {
	for _, sg := range t {
		dst = append(dst, sg.span(s, loc)...)
	}
	return dst
}
