package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher is a compiled grep pattern.
//
// Without Multiline every line is matched on its own (without its "\n",
// with a "\r" before it if there is one): "^" and "$" are the line's
// edges and nothing matches a newline. With Multiline the pattern runs
// over the whole file with (?m) set, so "^" and "$" match at line
// boundaries and \A and \z at the file's edges; "." matches a newline
// only under (?s). Like ripgrep, the search resumes where the previous
// match ended (one byte later after an empty match) and treats that
// position as the start of the text, and every line a match touches is a
// matching line.
type matcher struct {
	multiline bool
	// mode is what the caller reads (see Mode): lines are numbered only
	// for ModeContent, and ModeFiles stops at a file's first match.
	mode Mode
	// re is the pattern as the user wrote it (with (?i) for IgnoreCase,
	// and (?m) with Multiline). Line mode runs it on single lines.
	re *regexp.Regexp
	// bufRe (line mode) runs over a whole file and cannot match across a
	// newline: its leftmost match from a line start lies in the first
	// line on which re matches.
	bufRe *regexp.Regexp
	// lit, if set, is a literal every match contains (line mode: every
	// matching line; multiline: every matching file).
	lit *literal
	// exact (line mode): a line matches if and only if it holds lit.
	exact bool
	// never (line mode): the pattern needs a newline, so no line matches.
	never bool
	// piece is the most bytes matched at once in a buffer, and
	// streamEvery the runes a stream reads between checks of its context:
	// see maxWork.
	piece, streamEvery int
	// prefix, if set, is a literal every match of re starts with: a
	// stream is matched from its first occurrence on.
	prefix *literal
}

// litLen returns the length of m's literal, 0 if it has none.
func (m *matcher) litLen() int {
	if m.lit == nil {
		return 0
	}
	return len(m.lit.s)
}

// instructions returns the size of a parsed pattern's compiled
// program (what a match costs for each byte, at worst), and the literal
// every match starts with, if any. Unlike Regexp.LiteralPrefix, a
// program's prefix never follows an assertion such as \A, so a text
// started at an occurrence of it has the same matches.
func instructions(tree *syntax.Regexp) (n int, prefix string) {
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return 1, ""
	}
	prefix, _ = prog.Prefix()
	return max(len(prog.Inst), 1), prefix
}

// setCost sets piece and streamEvery from the sizes of the programs run
// over a buffer (0 if none is, but for the literal) and over a stream.
func (m *matcher) setCost(inBuffer, inStream int) {
	m.piece = maxPiece
	if inBuffer > 0 {
		m.piece = min(max(maxWork/inBuffer, 1), maxPiece)
	}
	m.streamEvery = min(max(maxWork/inStream, 1), 4096)
}

// parseFlags are the regexp/syntax flags of a request, as regexp.Compile
// sets them plus FoldCase for IgnoreCase and minus OneLine for Multiline.
func parseFlags(req GrepRequest) syntax.Flags {
	f := syntax.Perl
	if req.IgnoreCase {
		f |= syntax.FoldCase
	}
	if req.Multiline {
		f &^= syntax.OneLine
	}
	return f
}

// validatePattern checks that the pattern is RE2 syntax, with the error
// regexp.Compile gives.
func validatePattern(p string) error {
	if _, err := regexp.Compile(p); err != nil {
		return fmt.Errorf("search: invalid pattern: %w", err)
	}
	return nil
}

func compileMatcher(req GrepRequest) (*matcher, error) {
	if err := validatePattern(req.Pattern); err != nil {
		return nil, err
	}
	flags := ""
	if req.IgnoreCase {
		flags += "(?i)"
	}
	if req.Multiline {
		flags += "(?m)"
	}
	re, err := regexp.Compile(flags + req.Pattern)
	if err != nil {
		return nil, fmt.Errorf("search: invalid pattern: %w", err)
	}
	tree, err := syntax.Parse(req.Pattern, parseFlags(req))
	if err != nil {
		return nil, fmt.Errorf("search: invalid pattern: %w", err)
	}
	m := &matcher{multiline: req.Multiline, mode: req.Mode, re: re}
	n, prefix := instructions(tree) // re's program
	if prefix != "" {
		m.prefix = newLiteral(prefix, false)
	}
	if req.Multiline {
		if s, fold, ok := requiredLiteral(tree); ok {
			m.lit = newLiteral(s, fold)
		}
		m.setCost(n, n)
		return m, nil
	}
	tree = lineSafe(tree)
	m.never = !canMatch(tree)
	m.bufRe, err = regexp.Compile(emit(tree, targetGo, nil))
	if err != nil {
		return nil, fmt.Errorf("search: internal error compiling %q: %w", req.Pattern, err)
	}
	if s, fold, ok := requiredLiteral(tree); ok {
		m.lit = newLiteral(s, fold)
		m.exact = isWholeLiteral(tree, s, fold)
	}
	switch {
	case m.lit == nil:
		nb, _ := instructions(tree) // bufRe's program
		m.setCost(nb, n)
	case m.exact:
		m.setCost(0, n)
	default:
		m.setCost(n, n) // re runs on the lines that hold the literal
	}
	return m, nil
}

// lineSafe rewrites a parsed pattern so that it cannot match a newline
// and its text anchors become line anchors. Run over a whole file, it
// finds the same lines as the original run on each line alone.
func lineSafe(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return &syntax.Regexp{Op: syntax.OpNoMatch}
			}
		}
	case syntax.OpCharClass:
		c.Rune = removeNewline(re.Rune)
		if len(c.Rune) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpAnyChar:
		c.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		c.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		c.Op = syntax.OpEndLine
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = lineSafe(s)
		}
	}
	return &c
}

// canMatch reports whether re can match anything at all.
func canMatch(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !canMatch(s) {
				return false
			}
		}
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if canMatch(s) {
				return true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return canMatch(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || canMatch(re.Sub[0])
	}
	return true
}

// removeNewline removes '\n' from a class's ranges.
func removeNewline(ranges []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// Emitting patterns. Both targets get a pattern without flags, captures
// or case folding, in which every construct means the same in Go's
// regexp and in ripgrep's Rust regex on valid UTF-8 text:
//   - case folding becomes classes holding each rune's simple-folding
//     orbit (Go's definition), and classes are spelled out range by range
//     (Go's Unicode tables), so ripgrep's tables never come into play;
//   - \b and \B are ASCII in Go; in Rust they are (?-u:\b) and (?-u:\B),
//     which rg also tries between the bytes of a character, where \B holds
//     (so a pattern with \B is checked like the supersets below);
//   - "." is [^\n] or (?s:.); \A, \z, (?m:^) and (?m:$) are the same.
//
// On bytes that are not UTF-8, Go's "." and any class holding U+FFFD match
// one invalid byte, which Rust's do not. For ripgrep such constructs get
// an alternative (?-u:[\x80-\xFF]); the pattern then matches a superset
// and the caller checks what rg found with Go's regexp (see ripgrep.go).

type target int

const (
	targetGo target = iota
	targetRust
)

// emitState collects facts about an emitted Rust pattern.
type emitState struct {
	superset bool // holds an invalid-byte alternative
}

func emit(re *syntax.Regexp, t target, st *emitState) string {
	var b strings.Builder
	emitTo(&b, re, t, st)
	return b.String()
}

const invalidByte = `(?-u:[\x80-\xFF])`

func emitTo(b *strings.Builder, re *syntax.Regexp, t target, st *emitState) {
	switch re.Op {
	case syntax.OpNoMatch:
		if t == targetRust {
			b.WriteString(`(?:\z.)`) // Rust rejects an empty class
		} else {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
		}
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if fold {
				if orbit := foldOrbit(r); len(orbit) > 1 {
					emitClass(b, runeRanges(orbit), t, st)
					continue
				}
			}
			if r == utf8.RuneError && t == targetRust {
				emitClass(b, []rune{r, r}, t, st)
				continue
			}
			writeRune(b, r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			emitTo(b, &syntax.Regexp{Op: syntax.OpNoMatch}, t, st)
			return
		}
		emitClass(b, re.Rune, t, st)
	case syntax.OpAnyCharNotNL:
		emitClass(b, []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, t, st)
	case syntax.OpAnyChar:
		emitClass(b, []rune{0, unicode.MaxRune}, t, st)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		if t == targetRust {
			b.WriteString(`(?-u:\b)`)
		} else {
			b.WriteString(`\b`)
		}
	case syntax.OpNoWordBoundary:
		if t == targetRust {
			// rg also finds \B inside a multi-byte character, where Go
			// never looks: a superset.
			if st != nil {
				st.superset = true
			}
			b.WriteString(`(?-u:\B)`)
		} else {
			b.WriteString(`\B`)
		}
	case syntax.OpCapture:
		b.WriteString(`(?:`)
		emitTo(b, re.Sub[0], t, st)
		b.WriteString(`)`)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		emitTo(b, re.Sub[0], t, st)
		b.WriteString(`)`)
		switch re.Op {
		case syntax.OpStar:
			b.WriteString(`*`)
		case syntax.OpPlus:
			b.WriteString(`+`)
		case syntax.OpQuest:
			b.WriteString(`?`)
		case syntax.OpRepeat:
			b.WriteString(`{` + strconv.Itoa(re.Min))
			if re.Max != re.Min {
				b.WriteString(`,`)
				if re.Max >= 0 {
					b.WriteString(strconv.Itoa(re.Max))
				}
			}
			b.WriteString(`}`)
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString(`?`)
		}
	case syntax.OpConcat:
		b.WriteString(`(?:`)
		for _, s := range re.Sub {
			emitTo(b, s, t, st)
		}
		b.WriteString(`)`)
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, s := range re.Sub {
			if i > 0 {
				b.WriteString(`|`)
			}
			emitTo(b, s, t, st)
		}
		b.WriteString(`)`)
	default:
		panic(fmt.Sprintf("search: unexpected regexp op %v", re.Op))
	}
}

func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%X}`, r)
}

// runeRanges turns sorted runes into class ranges.
func runeRanges(runes []rune) []rune {
	var out []rune
	for _, r := range runes {
		if n := len(out); n > 0 && out[n-1]+1 == r {
			out[n-1] = r
			continue
		}
		out = append(out, r, r)
	}
	return out
}

// emitClass writes a class given as sorted, non-overlapping [lo, hi]
// pairs.
func emitClass(b *strings.Builder, ranges []rune, t target, st *emitState) {
	hasFFFD := false
	var body strings.Builder
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= utf8.RuneError && utf8.RuneError <= hi {
			hasFFFD = true
		}
		if t == targetRust {
			// Rust rejects surrogates, which never occur in decoded text.
			if lo <= 0xDFFF && hi >= 0xD800 {
				if lo < 0xD800 {
					writeRange(&body, lo, 0xD7FF)
				}
				if hi > 0xDFFF {
					writeRange(&body, 0xE000, hi)
				}
				continue
			}
		}
		writeRange(&body, lo, hi)
	}
	if t == targetRust && hasFFFD {
		if st != nil {
			st.superset = true
		}
		b.WriteString(`(?:`)
		if body.Len() > 0 {
			b.WriteString(`[` + body.String() + `]|`)
		}
		b.WriteString(invalidByte + `)`)
		return
	}
	if body.Len() == 0 {
		emitTo(b, &syntax.Regexp{Op: syntax.OpNoMatch}, t, st)
		return
	}
	b.WriteString(`[` + body.String() + `]`)
}

func writeRange(b *strings.Builder, lo, hi rune) {
	fmt.Fprintf(b, `\x{%X}`, lo)
	if hi != lo {
		fmt.Fprintf(b, `-\x{%X}`, hi)
	}
}

// foldOrbit returns the runes that match r under case folding, sorted;
// just r if it has no other case.
func foldOrbit(r rune) []rune {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	for i := 1; i < len(orbit); i++ { // insertion sort: orbits are tiny
		for j := i; j > 0 && orbit[j] < orbit[j-1]; j-- {
			orbit[j], orbit[j-1] = orbit[j-1], orbit[j]
		}
	}
	return orbit
}

// Required literals.

// foldSafe reports whether r, under case folding, matches only ASCII
// runes that ASCII case-insensitive comparison finds: digits, punctuation
// and the letters other than k and s (which also match U+212A KELVIN
// SIGN and U+017F LATIN SMALL LETTER LONG S).
func foldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	switch unicode.ToLower(r) {
	case 'k', 's':
		return false
	}
	return true
}

// literalRuns splits a literal node into the runs of runes a searcher can
// look for as bytes: without U+FFFD (which also matches invalid bytes)
// and, when folding, with only foldSafe runes (lowercased).
func literalRuns(re *syntax.Regexp) (runs []string, fold bool) {
	fold = re.Flags&syntax.FoldCase != 0
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			runs = append(runs, cur.String())
			cur.Reset()
		}
	}
	for _, r := range re.Rune {
		switch {
		case r == utf8.RuneError:
			flush()
		case fold && len(foldOrbit(r)) > 1:
			if !foldSafe(r) {
				flush()
				continue
			}
			cur.WriteRune(unicode.ToLower(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	// A folded literal whose runes all have a single case is not folded.
	if fold {
		hasCase := false
		for _, r := range re.Rune {
			if len(foldOrbit(r)) > 1 {
				hasCase = true
			}
		}
		fold = hasCase
	}
	return runs, fold
}

// requiredLiteral returns a literal that every match of re contains, the
// longest it finds, and whether it must be compared ignoring ASCII case.
func requiredLiteral(re *syntax.Regexp) (string, bool, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		runs, fold := literalRuns(re)
		best := ""
		for _, r := range runs {
			if len(r) > len(best) {
				best = r
			}
		}
		return best, fold, best != ""
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold, found := "", false, false
		for _, s := range re.Sub {
			l, fold, ok := requiredLiteral(s)
			if ok && (!found || litScore(l, fold) > litScore(best, bestFold)) {
				best, bestFold, found = l, fold, true
			}
		}
		return best, bestFold, found
	}
	return "", false, false
}

func litScore(s string, fold bool) int {
	n := 2 * len(s)
	if !fold {
		n++
	}
	return n
}

// isWholeLiteral reports whether re matches exactly the lines holding
// the literal s.
func isWholeLiteral(re *syntax.Regexp, s string, fold bool) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return false
	}
	runs, f := literalRuns(re)
	return len(runs) == 1 && runs[0] == s && f == fold && utf8.RuneCountInString(s) == len(re.Rune)
}

// ripgrep 13's regex engine misses matches where zero-width assertions
// meet in some orders: an end anchor ($, \z) followed by \b, \B, ^ or
// \A at the same position, or \b or \B followed by ^ or \A. Assertions at
// one position commute, so a run of them is put in the order it handles
// (begin anchors, word boundaries, end anchors). If such a pair can still
// meet across groups, the pattern for rg drops its assertions, which makes
// it match a superset that the caller checks with Go's regexp.

type assertClass uint8

const (
	assertBegin assertClass = 1 << iota
	assertWord
	assertEnd
)

func classOf(op syntax.Op) assertClass {
	switch op {
	case syntax.OpBeginLine, syntax.OpBeginText:
		return assertBegin
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return assertWord
	case syntax.OpEndLine, syntax.OpEndText:
		return assertEnd
	}
	return 0
}

// badOrder reports whether an assertion of a class in before can be
// followed at the same position by one of a class in after in an order
// rg mishandles.
func badOrder(before, after assertClass) bool {
	return (before&assertEnd != 0 && after&(assertBegin|assertWord) != 0) ||
		(before&assertWord != 0 && after&assertBegin != 0)
}

// sortAssertions reorders runs of adjacent assertions (in a copy).
func sortAssertions(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = sortAssertions(s)
		}
	}
	if c.Op == syntax.OpConcat {
		for i := 0; i < len(c.Sub); {
			j := i
			for j < len(c.Sub) && classOf(c.Sub[j].Op) != 0 {
				j++
			}
			if j > i+1 {
				run := c.Sub[i:j]
				for a := 1; a < len(run); a++ { // insertion sort, stable
					for b := a; b > 0 && classOf(run[b].Op) < classOf(run[b-1].Op); b-- {
						run[b], run[b-1] = run[b-1], run[b]
					}
				}
			}
			i = max(j, i+1)
		}
	}
	return &c
}

// assertInfo describes what a node can start and end with without
// consuming a character.
type assertInfo struct {
	first, last assertClass
	nullable    bool
	bad         bool
}

func analyzeAssertions(re *syntax.Regexp) assertInfo {
	if k := classOf(re.Op); k != 0 {
		return assertInfo{first: k, last: k, nullable: true}
	}
	switch re.Op {
	case syntax.OpEmptyMatch:
		return assertInfo{nullable: true}
	case syntax.OpCapture:
		return analyzeAssertions(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		s := analyzeAssertions(re.Sub[0])
		repeats := re.Op == syntax.OpStar || re.Op == syntax.OpPlus || (re.Op == syntax.OpRepeat && re.Max != 1)
		s.bad = s.bad || (repeats && badOrder(s.last, s.first))
		s.nullable = s.nullable || re.Op == syntax.OpStar || re.Op == syntax.OpQuest || (re.Op == syntax.OpRepeat && re.Min == 0)
		return s
	case syntax.OpAlternate:
		var out assertInfo
		for _, sub := range re.Sub {
			s := analyzeAssertions(sub)
			out.first |= s.first
			out.last |= s.last
			out.nullable = out.nullable || s.nullable
			out.bad = out.bad || s.bad
		}
		return out
	case syntax.OpConcat:
		out := assertInfo{nullable: true}
		var pending assertClass // what can sit right before the next part
		for _, sub := range re.Sub {
			s := analyzeAssertions(sub)
			out.bad = out.bad || s.bad || badOrder(pending, s.first)
			if out.nullable {
				out.first |= s.first
			}
			if s.nullable {
				pending |= s.last
			} else {
				pending = s.last
			}
			out.nullable = out.nullable && s.nullable
		}
		out.last = pending
		return out
	}
	return assertInfo{}
}

// dropAssertions replaces every assertion with an empty match (in a copy).
func dropAssertions(re *syntax.Regexp) *syntax.Regexp {
	if classOf(re.Op) != 0 {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	c := *re
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = dropAssertions(s)
		}
	}
	return &c
}
