package lua

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/agentsh/agentsh/script/lua/pattern"
	"github.com/agentsh/agentsh/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's string.find, match, gmatch and gsub backtrack without
// looking at the context, so a pathological pattern ran for hours, deaf
// to timeouts and signals. installPatterns replaces them with functions
// over package pattern, whose matching stops when the call's context
// ends. They follow Lua 5.1 where gopher-lua departs from it: %f
// frontiers, a match that finds nothing returning nil, gsub's count of 0
// replacing nothing, a number as gsub's replacement, and an error for a
// replacement value that is not a string or number.

// installPatterns sets string.find, match, gmatch (and its old name
// gfind) and gsub in L's string library, which string methods share.
func installPatterns(L *lua.LState) {
	mod, ok := L.GetGlobal(lua.StringLibName).(*lua.LTable)
	if !ok {
		return
	}
	gmatch := L.NewFunction(strGmatch)
	for name, fn := range map[string]lua.LValue{
		"find": L.NewFunction(strFind), "match": L.NewFunction(strMatch),
		"gmatch": gmatch, "gfind": gmatch, "gsub": L.NewFunction(strGsub),
	} {
		mod.RawSetString(name, fn)
	}
}

// patterns caches compiled patterns: scripts use a few, in loops.
var patterns struct {
	sync.Mutex
	m map[patternKey]*pattern.Pattern
}

type patternKey struct {
	src    string
	anchor bool
}

const patternCacheSize = 256

// compilePattern returns p compiled, or raises its error in L.
func compilePattern(L *lua.LState, fn, p string, anchor bool) *pattern.Pattern {
	key := patternKey{p, anchor}
	patterns.Lock()
	c := patterns.m[key]
	patterns.Unlock()
	if c != nil {
		return c
	}
	c, err := pattern.Compile(p, anchor)
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	patterns.Lock()
	if patterns.m == nil || len(patterns.m) >= patternCacheSize {
		patterns.m = map[patternKey]*pattern.Pattern{}
	}
	patterns.m[key] = c
	patterns.Unlock()
	return c
}

// matcher returns a matcher of p against s under L's context.
func matcher(L *lua.LState, p *pattern.Pattern, s string) *pattern.Matcher {
	var ctx context.Context
	if L.Context() != nil {
		ctx = L.Context()
	}
	return p.NewMatcher(ctx, s)
}

// check raises err, a context's end, as the VM raises it.
func check(L *lua.LState, err error) {
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
}

// startIndex reads argument n, a 1-based position that may count from the
// end, as a 0-based offset into a string of length l, as Lua 5.1 does.
func startIndex(L *lua.LState, n, l int) int {
	i := L.OptInt(n, 1)
	if i < 0 {
		i += l + 1
	}
	i--
	return min(max(i, 0), l)
}

func strFind(L *lua.LState) int  { return findAux(L, true) }
func strMatch(L *lua.LState) int { return findAux(L, false) }

// findAux is string.find (find) and string.match.
func findAux(L *lua.LState, find bool) int {
	s, p := L.CheckString(1), L.CheckString(2)
	init := startIndex(L, 3, len(s))
	if find && (L.ToBool(4) || !pattern.HasSpecials(p)) {
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	name := "string.match"
	if find {
		name = "string.find"
	}
	m := matcher(L, compilePattern(L, name, p, true), s)
	start, end, err := m.Find(init)
	check(L, err)
	if start < 0 {
		L.Push(lua.LNil)
		return 1
	}
	if find {
		L.Push(lua.LNumber(start + 1))
		L.Push(lua.LNumber(end))
		return pushCaptures(L, m, s, "", false) + 2
	}
	return pushCaptures(L, m, s, s[start:end], true)
}

// pushCaptures pushes the captures of m's last match, or whole when it has
// none and whole is wanted.
func pushCaptures(L *lua.LState, m *pattern.Matcher, s, match string, wantWhole bool) int {
	n := m.NumCaptures()
	if n == 0 {
		if !wantWhole {
			return 0
		}
		L.Push(lua.LString(match))
		return 1
	}
	for i := 0; i < n; i++ {
		L.Push(captureValue(m, s, i))
	}
	return n
}

func captureValue(m *pattern.Matcher, s string, i int) lua.LValue {
	c := m.Capture(i)
	if c.Position {
		return lua.LNumber(c.Start + 1)
	}
	return lua.LString(s[c.Start:c.End])
}

// strGmatch is string.gmatch(s, p): an iterator over the matches, each
// found when the loop asks for it. A '^' in p is an ordinary character.
func strGmatch(L *lua.LState) int {
	s, p := L.CheckString(1), L.CheckString(2)
	pat := compilePattern(L, "string.gmatch", p, false)
	src := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m := matcher(L, pat, s)
		for ; src <= len(s); src++ {
			e, err := m.MatchAt(src)
			check(L, err)
			if e < 0 {
				continue
			}
			start := src
			if e == src {
				src++ // an empty match: go on one character later
			} else {
				src = e
			}
			return pushCaptures(L, m, s, s[start:e], true)
		}
		return 0
	}))
	return 1
}

// maxGrowth bounds how much longer than its subject gsub's result may be,
// as for re.sub; tests lower it.
var maxGrowth = stdlib.MaxGrowth

// strGsub is string.gsub(s, p, repl [, n]).
func strGsub(L *lua.LState) int {
	s, p := L.CheckString(1), L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTTable, lua.LTFunction:
	default:
		L.ArgError(3, "string/function/table expected, got "+repl.Type().String())
	}
	maxN := L.OptInt(4, len(s)+1)
	pat := compilePattern(L, "string.gsub", p, true)
	m := matcher(L, pat, s)
	limit := len(s) + maxGrowth
	var b strings.Builder
	src, n := 0, 0
	for n < maxN {
		e, err := m.MatchAt(src)
		check(L, err)
		if e >= 0 {
			n++
			addValue(L, &b, m, s, src, e, repl)
			if b.Len() > limit {
				L.RaiseError("string.gsub: the result would be more than %d bytes longer than the input (%d bytes); replace in smaller parts, or pass a count", maxGrowth, len(s))
			}
		}
		switch {
		case e > src:
			src = e
		case src < len(s):
			b.WriteByte(s[src])
			src++
		default:
			src = len(s) + 1
		}
		if src > len(s) || pat.Anchored() {
			break
		}
	}
	if src <= len(s) {
		b.WriteString(s[src:])
	}
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// addValue appends the replacement of the match s[start:end] to b.
func addValue(L *lua.LState, b *strings.Builder, m *pattern.Matcher, s string, start, end int, repl lua.LValue) {
	var v lua.LValue
	switch r := repl.(type) {
	case *lua.LTable:
		v = L.GetTable(r, firstCapture(m, s, start, end))
	case *lua.LFunction:
		L.Push(r)
		n := pushCaptures(L, m, s, s[start:end], true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	default: // a string, or a number read as one
		addTemplate(L, b, m, s, start, end, lua.LVAsString(r))
		return
	}
	switch v.Type() {
	case lua.LTNil:
		b.WriteString(s[start:end])
	case lua.LTBool:
		if v == lua.LFalse {
			b.WriteString(s[start:end])
			return
		}
		L.RaiseError("string.gsub: invalid replacement value (a boolean)")
	case lua.LTString, lua.LTNumber:
		b.WriteString(lua.LVAsString(v))
	default:
		L.RaiseError("string.gsub: invalid replacement value (a %s)", v.Type().String())
	}
}

// firstCapture is the first capture of the match, or the whole match.
func firstCapture(m *pattern.Matcher, s string, start, end int) lua.LValue {
	if m.NumCaptures() == 0 {
		return lua.LString(s[start:end])
	}
	return captureValue(m, s, 0)
}

// addTemplate appends the replacement string t: %0 is the whole match, %1
// to %9 the captures, and % before any other character is that character.
func addTemplate(L *lua.LState, b *strings.Builder, m *pattern.Matcher, s string, start, end int, t string) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '%' || i+1 == len(t) {
			b.WriteByte(c)
			continue
		}
		i++
		d := t[i]
		switch {
		case d == '0':
			b.WriteString(s[start:end])
		case '1' <= d && d <= '9':
			k := int(d - '1')
			switch {
			case k < m.NumCaptures():
				b.WriteString(lua.LVAsString(captureValue(m, s, k)))
			case k == 0:
				b.WriteString(s[start:end])
			default:
				L.RaiseError("string.gsub: invalid capture index %%%d in replacement string %s", k+1, strconv.Quote(shortText(t)))
			}
		default:
			b.WriteByte(d)
		}
	}
}

func shortText(s string) string {
	if len(s) > 64 {
		return s[:60] + "…"
	}
	return s
}
