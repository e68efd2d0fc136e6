// Package pattern implements Lua 5.1 patterns, the language of
// string.find, string.match, string.gmatch and string.gsub, with matching
// that stops when its context ends.
//
// Lua patterns backtrack: a pattern such as (.-)(.-)(.-)(.-)(.-)(.-)(.-)b
// can try every way to split its subject, exponential in the number of
// items. A Matcher counts its steps and looks at its context every few
// thousand of them, so a deadline, Ctrl-C or SIGTERM ends such a match
// like any other long computation.
//
// The semantics are those of the reference implementation (lstrlib.c of
// Lua 5.1), with two differences: a malformed pattern is an error whatever
// the subject (the reference reports some errors only when matching
// reaches them), and a pattern may hold at most MaxItems repetitions and
// captures, which bounds the matcher's recursion.
//
// A Pattern is immutable and safe for concurrent use; a Matcher belongs to
// one goroutine.
package pattern

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// MaxCaptures is how many captures a pattern may have, as in Lua 5.1.
const MaxCaptures = 32

// MaxItems bounds the repetitions (?, *, + and -) and captures of a
// pattern: the matcher recurses once for each.
const MaxItems = 1000

// Error is a malformed pattern.
type Error struct {
	Pattern string
	Msg     string // as Lua words it, such as "malformed pattern (missing ']')"
}

func (e *Error) Error() string {
	p := e.Pattern
	if len(p) > 64 {
		p = p[:60] + "…"
	}
	return e.Msg + " in pattern " + strconv.Quote(p)
}

type kind uint8

const (
	single   kind = iota // a character of a class, with a repetition
	open                 // '(': a capture starts
	position             // '()': a position capture
	close                // ')': a capture ends
	balance              // %bxy
	frontier             // %f[set]
	backref              // %1 to %9
	atEnd                // '$' at the end of the pattern
)

// set is a set of bytes.
type set [4]uint64

func (s *set) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *set) add(c byte)      { s[c>>6] |= 1 << (c & 63) }

func (s *set) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

func (s *set) invert() {
	for i := range s {
		s[i] = ^s[i]
	}
}

type item struct {
	kind  kind
	rep   byte // for single: 0, '?', '*', '+' or '-'
	n     int  // capture index, for open, position, close and backref
	a, b  byte // for balance
	class *set // for single and frontier
}

// Pattern is a compiled pattern.
type Pattern struct {
	src      string
	items    []item
	anchored bool
	ncap     int
}

// Anchored reports whether the pattern matches only at its start position.
func (p *Pattern) Anchored() bool { return p.anchored }

// NumCaptures is the number of captures, position captures included.
func (p *Pattern) NumCaptures() int { return p.ncap }

// Compile compiles the pattern p. With anchor, a leading '^' anchors it,
// as string.find, match and gsub read a pattern; without, '^' is an
// ordinary character, as string.gmatch reads it.
func Compile(p string, anchor bool) (*Pattern, error) {
	c := &compiler{src: p, pat: &Pattern{src: p}}
	if anchor && len(p) > 0 && p[0] == '^' {
		c.pat.anchored = true
		c.i = 1
	}
	if err := c.compile(); err != nil {
		return nil, err
	}
	return c.pat, nil
}

type compiler struct {
	src   string
	i     int
	pat   *Pattern
	opens []int // captures open at this point, innermost last
	deep  int   // items that make the matcher recurse
}

func (c *compiler) fail(format string, args ...any) error {
	return &Error{Pattern: c.src, Msg: fmt.Sprintf(format, args...)}
}

func (c *compiler) emit(it item) error {
	switch {
	case it.kind == open || it.kind == position || it.kind == close || it.kind == single && it.rep != 0:
		if c.deep++; c.deep > MaxItems {
			return c.fail("pattern too complex (more than %d repetitions and captures)", MaxItems)
		}
	}
	c.pat.items = append(c.pat.items, it)
	return nil
}

func (c *compiler) capture(k kind) error {
	if c.pat.ncap == MaxCaptures {
		return c.fail("too many captures")
	}
	n := c.pat.ncap
	c.pat.ncap++
	if k == open {
		c.opens = append(c.opens, n)
	}
	return c.emit(item{kind: k, n: n})
}

func (c *compiler) compile() error {
	p := c.src
	for c.i < len(p) {
		var err error
		switch ch := p[c.i]; {
		case ch == '(' && c.i+1 < len(p) && p[c.i+1] == ')':
			c.i += 2
			err = c.capture(position)
		case ch == '(':
			c.i++
			err = c.capture(open)
		case ch == ')':
			if len(c.opens) == 0 {
				return c.fail("invalid pattern capture")
			}
			n := c.opens[len(c.opens)-1]
			c.opens = c.opens[:len(c.opens)-1]
			c.i++
			err = c.emit(item{kind: close, n: n})
		case ch == '$' && c.i == len(p)-1:
			c.i++
			err = c.emit(item{kind: atEnd})
		case ch == '%' && c.i+1 < len(p) && p[c.i+1] == 'b':
			if c.i+3 >= len(p) {
				return c.fail("malformed pattern (missing arguments to '%%b')")
			}
			err = c.emit(item{kind: balance, a: p[c.i+2], b: p[c.i+3]})
			c.i += 4
		case ch == '%' && c.i+1 < len(p) && p[c.i+1] == 'f':
			c.i += 2
			if c.i >= len(p) || p[c.i] != '[' {
				return c.fail("missing '[' after '%%f' in pattern")
			}
			s, end, err := c.class(c.i)
			if err != nil {
				return err
			}
			c.i = end
			err = c.emit(item{kind: frontier, class: s})
			if err != nil {
				return err
			}
		case ch == '%' && c.i+1 < len(p) && p[c.i+1] >= '0' && p[c.i+1] <= '9':
			n := int(p[c.i+1] - '1')
			if n < 0 || n >= c.pat.ncap || c.isOpen(n) {
				return c.fail("invalid capture index %%%c", p[c.i+1])
			}
			c.i += 2
			err = c.emit(item{kind: backref, n: n})
		default:
			s, end, err := c.class(c.i)
			if err != nil {
				return err
			}
			it := item{kind: single, class: s}
			if end < len(p) {
				switch p[end] {
				case '?', '*', '+', '-':
					it.rep = p[end]
					end++
				}
			}
			c.i = end
			if err := c.emit(it); err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
	}
	if len(c.opens) > 0 {
		return c.fail("unfinished capture")
	}
	return nil
}

func (c *compiler) isOpen(n int) bool {
	for _, o := range c.opens {
		if o == n {
			return true
		}
	}
	return false
}

// class reads the single-character class at i: '.', %x, [set] or a
// character. It returns the set and the index after the class.
func (c *compiler) class(i int) (*set, int, error) {
	p := c.src
	s := new(set)
	switch p[i] {
	case '.':
		s.invert()
		return s, i + 1, nil
	case '%':
		if i+1 >= len(p) {
			return nil, 0, c.fail("malformed pattern (ends with '%%')")
		}
		classOf(s, p[i+1])
		return s, i + 2, nil
	case '[':
		return c.bracket(i)
	}
	s.add(p[i])
	return s, i + 1, nil
}

// bracket reads the set [...] at i, as Lua 5.1 does: a ']' or '^]' right
// after the '[' is a member, a '%' escapes the next character, and a '-'
// between two characters makes a range.
func (c *compiler) bracket(i int) (*set, int, error) {
	p := c.src
	// Find the closing ']'.
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	for {
		if j >= len(p) {
			return nil, 0, c.fail("malformed pattern (missing ']')")
		}
		ch := p[j]
		j++
		if ch == '%' && j < len(p) {
			j++
		}
		if j < len(p) && p[j] == ']' {
			break
		}
		if j >= len(p) {
			return nil, 0, c.fail("malformed pattern (missing ']')")
		}
	}
	end := j // the closing ']'
	s := new(set)
	k := i + 1
	negate := p[k] == '^'
	if negate {
		k++
	}
	for ; k < end; k++ {
		switch {
		case p[k] == '%':
			k++
			classOf(s, p[k])
		case k+2 < end && p[k+1] == '-':
			if p[k] <= p[k+2] {
				s.addRange(p[k], p[k+2])
			}
			k += 2
		default:
			s.add(p[k])
		}
	}
	if negate {
		s.invert()
	}
	return s, end + 1, nil
}

// classOf adds the class %cl to s: a, c, d, l, p, s, u, w, x and z (and
// their capitals, the complements) as in the C locale; any other
// character stands for itself.
func classOf(s *set, cl byte) {
	var in func(c byte) bool
	switch cl | 0x20 {
	case 'a':
		in = isAlpha
	case 'c':
		in = func(c byte) bool { return c < 32 || c == 127 }
	case 'd':
		in = isDigit
	case 'l':
		in = func(c byte) bool { return 'a' <= c && c <= 'z' }
	case 'p':
		in = func(c byte) bool { return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c) }
	case 's':
		in = func(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }
	case 'u':
		in = func(c byte) bool { return 'A' <= c && c <= 'Z' }
	case 'w':
		in = func(c byte) bool { return isAlpha(c) || isDigit(c) }
	case 'x':
		in = func(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
	case 'z':
		in = func(c byte) bool { return c == 0 }
	default:
		s.add(cl)
		return
	}
	upper := 'A' <= cl && cl <= 'Z'
	for c := 0; c < 256; c++ {
		if in(byte(c)) != upper {
			s.add(byte(c))
		}
	}
}

func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// HasSpecials reports whether p has one of the characters ^$*+?.([%- that
// Lua 5.1 looks for: string.find searches plainly for a pattern without
// them (even one with a ')' or a ']').
func HasSpecials(p string) bool { return strings.ContainsAny(p, "^$*+?.([%-") }

// Capture is one capture of a match: the text s[Start:End], or, for a
// position capture, the position Start (0-based; Lua shows Start+1).
type Capture struct {
	Start, End int
	Position   bool
}

// Matcher matches one pattern against one subject under a context.
type Matcher struct {
	p     *Pattern
	s     string
	ctx   context.Context
	done  <-chan struct{}
	steps uint
	level int // captures open or closed so far
	caps  [MaxCaptures]capState
}

type capState struct {
	start int
	len   int // capUnfinished or capPosition, or the length
}

const (
	capUnfinished = -1
	capPosition   = -2
)

// checkEvery is how many steps a match takes between looks at its context.
const checkEvery = 1 << 11

// NewMatcher returns a matcher of p against s that stops when ctx ends
// (ctx may be nil: then it does not stop).
func (p *Pattern) NewMatcher(ctx context.Context, s string) *Matcher {
	m := &Matcher{p: p, s: s, ctx: ctx}
	if ctx != nil {
		m.done = ctx.Done()
	}
	return m
}

// interrupted carries a context's error out of a match.
type interrupted struct{ err error }

// tick counts a step and, every checkEvery steps, ends the match if the
// context has. A context that keeps a step budget (it has a Charge
// method) is charged the steps, and asked again for Done, which closes
// when the budget runs out.
func (m *Matcher) tick() {
	m.steps++
	if m.steps%checkEvery != 0 {
		return
	}
	if c, ok := m.ctx.(interface{ Charge(int) }); ok {
		c.Charge(checkEvery)
		m.done = m.ctx.Done()
	}
	if m.done != nil {
		select {
		case <-m.done:
			panic(interrupted{m.ctx.Err()})
		default:
		}
	}
}

func (m *Matcher) recover(err *error) {
	if r := recover(); r != nil {
		in, ok := r.(interrupted)
		if !ok {
			panic(r)
		}
		*err = in.err
	}
}

// MatchAt matches the pattern at position pos of the subject (its anchor
// aside) and returns where the match ends, or -1. The captures are those
// of this match until the next call.
func (m *Matcher) MatchAt(pos int) (end int, err error) {
	defer m.recover(&err)
	m.level = 0
	return m.match(pos, 0), nil
}

// Find returns the first match that starts at init or later (only at init
// when the pattern is anchored): its start and end, or -1, -1.
func (m *Matcher) Find(init int) (start, end int, err error) {
	defer m.recover(&err)
	for s := init; s <= len(m.s); s++ {
		m.level = 0
		if e := m.match(s, 0); e >= 0 {
			return s, e, nil
		}
		if m.p.anchored {
			break
		}
	}
	return -1, -1, nil
}

// NumCaptures is the number of captures of the last match.
func (m *Matcher) NumCaptures() int { return m.level }

// Capture returns capture i of the last match.
func (m *Matcher) Capture(i int) Capture {
	c := m.caps[i]
	if c.len == capPosition {
		return Capture{Start: c.start, End: c.start, Position: true}
	}
	return Capture{Start: c.start, End: c.start + c.len}
}

// match matches items[ip:] at s and returns the end of the match, or -1.
func (m *Matcher) match(s, ip int) int {
	items := m.p.items
	for {
		m.tick()
		if ip == len(items) {
			return s
		}
		it := &items[ip]
		switch it.kind {
		case single:
			ok := s < len(m.s) && it.class.has(m.s[s])
			switch it.rep {
			case 0:
				if !ok {
					return -1
				}
				s++
				ip++
				continue
			case '?':
				if ok {
					if e := m.match(s+1, ip+1); e >= 0 {
						return e
					}
				}
				ip++
				continue
			case '*':
				return m.maxExpand(s, ip)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, ip)
			default: // '-'
				return m.minExpand(s, ip)
			}
		case open, position:
			c := &m.caps[m.level]
			c.start, c.len = s, capUnfinished
			if it.kind == position {
				c.len = capPosition
			}
			m.level++
			e := m.match(s, ip+1)
			if e < 0 {
				m.level--
			}
			return e
		case close:
			c := &m.caps[it.n]
			c.len = s - c.start
			e := m.match(s, ip+1)
			if e < 0 {
				c.len = capUnfinished
			}
			return e
		case balance:
			if s >= len(m.s) || m.s[s] != it.a {
				return -1
			}
			depth := 1
			for s++; ; s++ {
				m.tick()
				if s >= len(m.s) {
					return -1
				}
				if c := m.s[s]; c == it.b {
					if depth--; depth == 0 {
						break
					}
				} else if c == it.a {
					depth++
				}
			}
			s++
			ip++
		case frontier:
			var prev, cur byte
			if s > 0 {
				prev = m.s[s-1]
			}
			if s < len(m.s) {
				cur = m.s[s]
			}
			if it.class.has(prev) || !it.class.has(cur) {
				return -1
			}
			ip++
		case backref:
			c := m.caps[it.n]
			if c.len < 0 || len(m.s)-s < c.len || m.s[s:s+c.len] != m.s[c.start:c.start+c.len] {
				return -1 // as in Lua, a position capture matches nothing
			}
			s += c.len
			ip++
		case atEnd:
			if s != len(m.s) {
				return -1
			}
			return s
		}
	}
}

// maxExpand matches item ip as often as it can from s, then gives back
// one at a time until the rest of the pattern matches.
func (m *Matcher) maxExpand(s, ip int) int {
	class := m.p.items[ip].class
	i := 0
	for s+i < len(m.s) && class.has(m.s[s+i]) {
		m.tick()
		i++
	}
	for ; i >= 0; i-- {
		if e := m.match(s+i, ip+1); e >= 0 {
			return e
		}
	}
	return -1
}

// minExpand matches item ip as seldom as it can: the rest of the pattern
// first, then one more of the item.
func (m *Matcher) minExpand(s, ip int) int {
	class := m.p.items[ip].class
	for {
		if e := m.match(s, ip+1); e >= 0 {
			return e
		}
		if s < len(m.s) && class.has(m.s[s]) {
			s++
			continue
		}
		return -1
	}
}
