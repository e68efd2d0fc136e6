package search

import (
	"math/bits"
	"slices"
	"strings"
)

// This file matches gitignore(5) glob patterns with the semantics of
// git's wildmatch (wildmatch.c), but not with its algorithm. git
// backtracks, which on some patterns takes time exponential in the number
// of wildcards: "*a*a*a*a…" before git 2.41, and "**/**/**/…/x" against a
// deep path still in git 2.55. Here a pattern is compiled once into a
// sequence of steps, and a text runs through all of them at once, as
// through an NFA, with the live steps in a bit set: every match takes
// O(len(text) × len(pattern)) time, and none allocates for patterns of
// fewer than 64 steps.

// A wmPattern is a compiled wildmatch pattern. It is never modified once
// compiled, so it is safe for concurrent use.
type wmPattern struct {
	steps []wmStep
	// tail is the literal bytes the pattern ends with (the bytes of its
	// last wmByte steps): a text that does not end with them cannot
	// match, which settles most texts without running the steps.
	tail string
	// never is set for a pattern git matches against nothing: one with an
	// unterminated set, an unknown [:class:] or a trailing '\'.
	never bool
}

// wmStep is one step of a pattern: it consumes one byte, or for the
// repeating kinds, any number of bytes of its set.
type wmStep struct {
	kind wmKind
	lit  byte     // wmByte
	set  *byteSet // wmSet, wmStar; the empty set for wmFork
	// For patterns of fewer than 64 steps, whose states fit in one word:
	// enter is the state of this step with the states reachable from it
	// without consuming a byte, and follow the states after it consumed
	// one (its own enter for a star, the next step's for the others).
	enter, follow uint64
}

type wmKind uint8

const (
	wmByte wmKind = iota // one literal byte
	wmSet                // one byte of set: '?' or "[...]"
	// wmFork starts a "**/" at the start of the pattern or after a '/',
	// which matches any run of bytes that ends in '/', or nothing: it
	// consumes nothing itself and leads to the wmStar and '/' steps after
	// it, or past both.
	wmFork
	wmStar // any run of bytes of set: '*', or "**"
)

// byteSet is a set of bytes, one bit each.
type byteSet [4]uint64

func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }

var (
	noByte   byteSet
	anyByte  = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	notSlash = func() byteSet { s := anyByte; s[0] &^= 1 << '/'; return s }()
)

// wildmatch reports whether text matches the gitignore(5) glob pattern,
// byte by byte, with git's wildmatch semantics (no case folding):
//
//   - '\' makes the next byte literal; '?' matches one byte; '[...]' is a
//     set of bytes with ranges, '!' or '^' negation and the POSIX classes
//     [:alnum:] and friends (ASCII only);
//   - with pathname set, '*', '?' and sets never match '/', and "**" is
//     special when it is a whole path component: a leading "**/" matches
//     any number of leading directories, "/**/" zero or more directories
//     and a trailing "/**" everything below; any other "**" is a '*';
//   - without pathname, '*' matches any string.
//
// It compiles the pattern for one match; compile it once with
// compileWildmatch to match it many times.
func wildmatch(pattern, text string, pathname bool) bool {
	return compileWildmatch(pattern, pathname).match(text)
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// compileWildmatch compiles a pattern for wildmatch. Each step comes from
// the bytes of the pattern in order, and a pattern's literal start (the
// bytes before its first special byte) is one wmByte step per byte, which
// matchFrom relies on.
func compileWildmatch(p string, pathname bool) *wmPattern {
	m := new(wmPattern)
	m.compile(p, pathname)
	return m
}

// compile compiles p into m, which must be the zero wmPattern.
func (m *wmPattern) compile(p string, pathname bool) {
	var buf [32]wmStep // most patterns fit: one allocation, of the right size
	steps := buf[:0]
	one := &anyByte // what '?' and '*' match
	if pathname {
		one = &notSlash
	}
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			if i+1 == len(p) {
				m.never = true
				return
			}
			steps = append(steps, wmStep{kind: wmByte, lit: p[i+1]})
			i += 2
		case '?':
			steps = append(steps, wmStep{kind: wmSet, set: one})
			i++
		case '[':
			set, end, ok := parseSet(p, i)
			if !ok {
				m.never = true
				return
			}
			if pathname {
				set[0] &^= 1 << '/'
			}
			steps = append(steps, wmStep{kind: wmSet, set: &set})
			i = end + 1
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			step := wmStep{kind: wmStar, set: one}
			if j-i >= 2 && pathname && (i == 0 || p[i-1] == '/') {
				// "**" as a whole component (git tests the byte before
				// it as it is, even if escaped).
				if j < len(p) && p[j] == '/' {
					steps = append(steps, wmStep{kind: wmFork, set: &noByte})
					step.set = &anyByte
				} else if j == len(p) || (p[j] == '\\' && j+1 < len(p) && p[j+1] == '/') {
					// A trailing "**", or one before an escaped '/',
					// which git does not let match no directory.
					step.set = &anyByte
				}
			}
			steps = append(steps, step)
			i = j
		default:
			steps = append(steps, wmStep{kind: wmByte, lit: p[i]})
			i++
		}
	}
	m.steps = slices.Clone(steps)
	m.setTail(p)
	if len(m.steps) < 64 {
		m.setMasks()
	}
}

// setTail sets m.tail from the last steps of p: those that consume one
// literal byte each, but not a '/' that a fork may skip.
func (m *wmPattern) setTail(p string) {
	k := 0 // the number of tail steps
	escaped := false
	for s := len(m.steps) - 1; s >= 0; s-- {
		if m.steps[s].kind != wmByte || (s >= 2 && m.steps[s-2].kind == wmFork) {
			break
		}
		if i := len(p) - 1 - k; i < 0 || p[i] != m.steps[s].lit || (i > 0 && p[i-1] == '\\') {
			escaped = true
		}
		k++
	}
	if !escaped {
		m.tail = p[len(p)-k:]
		return
	}
	tail := make([]byte, k)
	for j := range tail {
		tail[j] = m.steps[len(m.steps)-k+j].lit
	}
	m.tail = string(tail)
}

// setMasks computes the enter and follow masks of a pattern of fewer
// than 64 steps, from the last step back.
func (m *wmPattern) setMasks() {
	final := len(m.steps)
	enter := func(s int) uint64 {
		if s == final {
			return 1 << final
		}
		return m.steps[s].enter
	}
	for s := final - 1; s >= 0; s-- {
		st := &m.steps[s]
		st.enter = 1 << s
		switch st.kind {
		case wmStar:
			st.enter |= enter(s + 1)
			st.follow = st.enter
		case wmFork:
			st.enter |= enter(s+1) | enter(s+3)
		default:
			st.follow = enter(s + 1)
		}
	}
}

// parseSet parses the set that starts at p[open] == '[': it returns the
// bytes the set matches and the index of its closing ']', or ok false for
// a set git rejects (unterminated, a trailing '\', an unknown class). As
// in git, a ']' right after the '[' (and its '!' or '^') is a member, a
// '-' between two members is a range, and "[:" that does not end in ":]"
// is a literal '['.
func parseSet(p string, open int) (set byteSet, end int, ok bool) {
	i := open + 1
	negated := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negated {
		i++
	}
	var prev byte // a member that may start a range; 0 for none
	for first := true; ; first = false {
		if i >= len(p) {
			return set, 0, false
		}
		c := p[i]
		if c == ']' && !first {
			break
		}
		switch {
		case c == '\\':
			i++
			if i >= len(p) {
				return set, 0, false
			}
			prev = p[i]
			set.add(prev)
		case c == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			hi := p[i]
			if hi == '\\' {
				i++
				if i >= len(p) {
					return set, 0, false
				}
				hi = p[i]
			}
			for b := int(prev); b <= int(hi); b++ {
				set.add(byte(b))
			}
			prev = 0 // a range cannot start another range
		case c == '[' && i+1 < len(p) && p[i+1] == ':':
			start := i + 2
			close := strings.IndexByte(p[start:], ']')
			if close < 0 {
				return set, 0, false
			}
			close += start
			if close == start || p[close-1] != ':' {
				// Not a [:class:]: a literal '[', and the bytes after it
				// are members.
				prev = '['
				set.add(prev)
				break
			}
			if !addClass(&set, p[start:close-1]) {
				return set, 0, false
			}
			i = close
			prev = 0
		default:
			prev = c
			set.add(c)
		}
		i++
	}
	if negated {
		for w := range set {
			set[w] = ^set[w]
		}
	}
	return set, i, true
}

// addClass adds the ASCII bytes of a named POSIX class to set and reports
// whether the name is known.
func addClass(set *byteSet, name string) bool {
	if _, valid := posixClass(name, 0); !valid {
		return false
	}
	for c := range byte(0x80) {
		if in, _ := posixClass(name, c); in {
			set.add(c)
		}
	}
	return true
}

// posixClass reports whether c is in the named ASCII class, and whether
// the name is known.
func posixClass(name string, c byte) (in, valid bool) {
	alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	graph := c > ' ' && c < 0x7f
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return graph, true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return graph || c == ' ', true
	case "punct":
		return graph && !alpha && !digit, true
	case "space":
		return c == ' ' || c >= '\t' && c <= '\r', true
	case "upper":
		return c >= 'A' && c <= 'Z', true
	case "xdigit":
		return digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}

// match reports whether text matches the pattern.
func (m *wmPattern) match(text string) bool { return m.matchFrom(text, 0) }

// matchFrom reports whether text matches the pattern, given that its
// first n bytes are known to match the pattern's first n steps, which
// must be wmByte steps (n at most the length of the pattern's literal
// start). The whole pattern still counts: a "**" right after those bytes
// is not at the start of the pattern.
func (m *wmPattern) matchFrom(text string, n int) bool {
	if m.never || !strings.HasSuffix(text, m.tail) {
		return false
	}
	final := len(m.steps) // the state after the last step: a match
	if final < 64 {
		return m.matchSmall(text, n)
	}
	words := final>>6 + 1
	buf := make([]uint64, 2*words)
	cur, next := buf[:words], buf[words:]
	m.enter(cur, n)
	for _, c := range []byte(text[n:]) {
		clear(next)
		live := false
		for w, word := range cur {
			for word != 0 {
				s := w<<6 | bits.TrailingZeros64(word)
				word &= word - 1
				if s == final {
					continue
				}
				st := &m.steps[s]
				if st.kind == wmByte {
					if c != st.lit {
						continue
					}
				} else if !st.set.has(c) {
					continue
				}
				live = true
				if st.kind == wmStar {
					m.enter(next, s) // a star stays
				} else {
					m.enter(next, s+1)
				}
			}
		}
		if !live {
			return false
		}
		cur, next = next, cur
	}
	return cur[final>>6]&(1<<(final&63)) != 0
}

// matchSmall is matchFrom for a pattern of fewer than 64 steps: the
// states are the bits of one word, and the masks say where each step
// leads.
func (m *wmPattern) matchSmall(text string, n int) bool {
	final := len(m.steps)
	cur := uint64(1) << final
	if n < final {
		cur = m.steps[n].enter
	}
	live := cur &^ (1 << final) // the states that consume a byte
	for i := n; i < len(text); i++ {
		c := text[i]
		var next uint64
		for w := live; w != 0; w &= w - 1 {
			st := &m.steps[bits.TrailingZeros64(w)]
			if st.kind == wmByte {
				if c == st.lit {
					next |= st.follow
				}
			} else if st.set.has(c) {
				next |= st.follow
			}
		}
		cur = next
		live = cur &^ (1 << final)
		if live == 0 {
			// Only the final state is left, or none: a match only if
			// the text ends here.
			return cur != 0 && i == len(text)-1
		}
	}
	return cur&(1<<final) != 0
}

// enter adds state s to set with the states reachable from it without
// consuming a byte: past a star, which may match nothing, and from a
// fork to its star or past the star and the '/' after it. A state
// already in the set has its followers there too, so each state is
// entered at most once per byte of text.
func (m *wmPattern) enter(set []uint64, s int) {
	for {
		bit := uint64(1) << (s & 63)
		if set[s>>6]&bit != 0 {
			return
		}
		set[s>>6] |= bit
		if s == len(m.steps) {
			return
		}
		switch m.steps[s].kind {
		case wmStar:
			s++
		case wmFork:
			m.enter(set, s+1) // the "**", then its '/'
			s += 3            // or no directory
		default:
			return
		}
	}
}
