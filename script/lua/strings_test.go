package lua

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/script/lua/pattern"
	lua "github.com/yuin/gopher-lua"
)

// showLua renders the results of a call, or the fact that it failed, the
// same way in every Lua (strings byte by byte, as string.format's %q
// differs): a call that returns nothing shows as nil.
const showLua = `
local function quote(s)
  local out = {}
  for i = 1, #s do
    local b = s:byte(i)
    if b >= 97 and b <= 122 or b >= 65 and b <= 90 or b >= 48 and b <= 57 or b == 32 then
      out[i] = string.char(b)
    else
      out[i] = "\\" .. b
    end
  end
  return '"' .. table.concat(out) .. '"'
end
local function show(ok, ...)
  if not ok then return "error" end
  local n = select("#", ...)
  if n == 0 then return "nil" end
  local out = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == "string" then out[i] = quote(v) else out[i] = tostring(v) end
  end
  return table.concat(out, ",")
end
function gm(s, p)
  local out = {}
  for a, b, c in string.gmatch(s, p) do
    out[#out + 1] = show(true, a, b, c)
  end
  return table.concat(out, " | ")
end
local calls = 0
function f(...)
  calls = calls + 1
  if calls % 3 == 0 then return nil end
  return "<" .. table.concat({...}, ":") .. ">"
end
t = {a = "A", b = false, ["1"] = "one", hello = "HELLO", [3] = "three"}
function __run(src)
  local fn = loadstring("return " .. src)
  if not fn then return "bad case: " .. src end
  return show(pcall(fn))
end
`

// patternCase is one call of a string function.
type patternCase struct {
	call string // gm is a loop over string.gmatch
	s, p string
	init int    // for find and match: 0 when absent
	repl string // for gsub: a Lua expression
}

func (c patternCase) String() string {
	args := luaQuote(c.s) + ", " + luaQuote(c.p)
	switch {
	case c.call == "string.gsub":
		args += ", " + c.repl
	case c.init != 0:
		args += fmt.Sprintf(", %d", c.init)
	}
	return c.call + "(" + args + ")"
}

// luaQuote quotes s for Lua 5.1, which knows decimal escapes only.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= ' ' && c < 127 && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// gopherDiffers reports the calls where gopher-lua departs from Lua 5.1,
// whose behaviour the new functions follow (TestLua51Semantics pins it).
func (c patternCase) gopherDiffers() bool {
	init := c.init
	if init < 0 {
		init += len(c.s) + 1
	}
	switch {
	case strings.Contains(c.p, "%f"):
		return true // gopher-lua has no frontier: it reads %f as an f
	case c.call == "gm" && strings.HasPrefix(c.p, "^"):
		return true // gmatch: gopher-lua anchors, Lua 5.1 matches a '^'
	case c.call != "gm" && c.call != "string.gsub" && init > len(c.s)+1:
		return true // a start past the end: Lua 5.1 starts at the end
	case c.call == "string.find" && c.p == "" && init > 1:
		return true // gopher-lua finds "" at 1 whatever the start
	case c.call == "string.find" && !strings.ContainsAny(c.p, "^$*+?.([%-") && strings.Contains(c.p, ")"):
		return true // without Lua's special characters, Lua 5.1 searches plainly; gopher-lua parses the ')'
	case c.p == "%" || c.p == "a%" || c.p == "%b" || c.p == "%bx":
		return true // malformed: gopher-lua matches nothing, Lua 5.1 fails
	case strings.Contains(c.repl, "{}") || strings.Contains(c.repl, "true"):
		return true // a table or boolean replacement: gopher-lua inserts "", Lua 5.1 fails
	}
	return false
}

// patternCases are ordinary patterns and subjects: captures, position
// captures, %b, anchors, classes and sets, every repetition, gsub with
// string, table and function replacements, and errors.
var patternCases = func() []patternCase {
	subjects := []string{"", "a", "hello world", "  trim me  ", "key = value", "(a(b)c)", "[x]", "a.b.c", "aaa", "abcabc",
		"THE (quick) fox", "x=1, y=22, z=333", "line1\nline2\n", "%d", "a+b-c*d", "f(a(b)c)d", "\x00\x01z", "é café", "^a^b"}
	patterns := []string{"", "a", "l+", "l*", "l-", "l?", "o.", "%a+", "%d+", "%s*(.-)%s*$", "^%s*", "%w+", "(%w+)%s*=%s*(%w+)",
		"()a()", "%b()", "%b[]", "^(a)", "a$", "^$", ".-b", "(a*(.)%w(%s*))", "[%a_][%w_]*", "[^%s]+", "[a-c]+", "[]x]",
		"[^]x]", "[%]]", "%.", "%%", "(h)(e)(l)(l)(o)", "(.)%1", "([ab])%1", "[%d%.]+", "%x+", "%p", "%c", "%u%l*", "[-+*]",
		"[a-]", ".+", "x*$", "(%d)(%d?)", "%S+", "^(%w+)", "[%z]", "%A+", "[^%a%d]", "()", "(()a)", "^a", "%^", "[%^a]",
		"a)", "]", "$a", "%f[%w]%w+", "%f[%s]", "%f[%z]"}
	var out []patternCase
	for _, s := range subjects {
		for _, p := range patterns {
			out = append(out,
				patternCase{call: "string.find", s: s, p: p},
				patternCase{call: "string.find", s: s, p: p, init: 2},
				patternCase{call: "string.find", s: s, p: p, init: -3},
				patternCase{call: "string.find", s: s, p: p, init: 30},
				patternCase{call: "string.match", s: s, p: p},
				patternCase{call: "string.match", s: s, p: p, init: 3},
				patternCase{call: "gm", s: s, p: p},
				patternCase{call: "string.gsub", s: s, p: p, repl: `"[%0]"`},
				patternCase{call: "string.gsub", s: s, p: p, repl: `"%1-%%"`},
				patternCase{call: "string.gsub", s: s, p: p, repl: `"#", 2`},
				patternCase{call: "string.gsub", s: s, p: p, repl: "f"},
				patternCase{call: "string.gsub", s: s, p: p, repl: "t"},
			)
		}
	}
	// Malformed patterns: an error in every Lua.
	for _, p := range []string{"[a", "[", "(", "(()", "%", "a%", "%b", "%bx", "[%", "(a))", "%0", "(a)%2", "%f", "%fx", "%f[a"} {
		out = append(out, patternCase{call: "string.find", s: "a(b)c[d]%", p: p}, patternCase{call: "string.gsub", s: "(a)", p: p, repl: `"x"`})
	}
	// Bad replacements: errors too.
	for _, repl := range []string{`"%2"`, `"%9"`, `true`, `{b = {}}`, `function() return {} end`, `function() return true end`} {
		out = append(out, patternCase{call: "string.gsub", s: "abc", p: "(b)", repl: repl})
	}
	return out
}()

// runCases evaluates the cases in L, into which showLua is loaded.
func runCases(t *testing.T, L *lua.LState, cases []patternCase) []string {
	t.Helper()
	if err := L.DoString(showLua); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(cases))
	for i, c := range cases {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("__run"), NRet: 1, Protect: true}, lua.LString(c.String())); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		out[i] = L.Get(-1).String()
		L.Pop(1)
	}
	return out
}

// oursState is a bare state with the new string functions.
func oursState() *lua.LState {
	L := lua.NewState()
	installPatterns(L)
	return L
}

// TestPatternsAgreeWithGopherLua: on ordinary patterns and subjects the
// string functions give exactly what gopher-lua's own gave, errors
// included.
func TestPatternsAgreeWithGopherLua(t *testing.T) {
	ref, ours := lua.NewState(), oursState()
	defer ref.Close()
	defer ours.Close()
	var cases []patternCase
	for _, c := range patternCases {
		if !c.gopherDiffers() {
			cases = append(cases, c)
		}
	}
	want, got := runCases(t, ref, cases), runCases(t, ours, cases)
	bad := 0
	for i, c := range cases {
		if got[i] != want[i] {
			if bad++; bad <= 40 {
				t.Errorf("%s\n  got  %s\n  want %s", c, got[i], want[i])
			}
		}
	}
	if bad > 0 || len(cases) < 10000 {
		t.Errorf("%d of %d cases differ", bad, len(cases))
	}
}

// lua51 returns the path of the reference Lua 5.1, or skips the test.
func lua51(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 is not installed (apt-get install lua5.1); the reference Lua checks the patterns")
	}
	return bin
}

// lua51Results runs cases in the reference Lua 5.1 and returns its result
// line for each.
func lua51Results(t *testing.T, bin string, cases []patternCase) []string {
	t.Helper()
	var src bytes.Buffer
	src.WriteString(showLua)
	for _, c := range cases {
		fmt.Fprintf(&src, "print(__run(%q))\n", c.String())
	}
	cmd := exec.Command(bin, "-")
	cmd.Stdin = &src
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lua5.1: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// TestPatternsAgreeWithLua51: every case, those where gopher-lua departs
// from Lua 5.1 included, gives what the reference Lua 5.1 gives.
func TestPatternsAgreeWithLua51(t *testing.T) {
	bin := lua51(t)
	want := lua51Results(t, bin, patternCases)
	ours := oursState()
	defer ours.Close()
	got := runCases(t, ours, patternCases)
	if len(want) != len(got) {
		t.Fatalf("lua5.1 gave %d results for %d cases", len(want), len(got))
	}
	bad := 0
	for i, c := range patternCases {
		if got[i] == want[i] {
			continue
		}
		if _, err := pattern.Compile(c.p, c.call != "gm"); got[i] == "error" && err != nil {
			continue // malformed: an error here whatever the subject, in Lua 5.1 only when matching reaches it
		}
		if bad++; bad <= 40 {
			t.Errorf("%s\n  got  %s\n  want %s (lua5.1)", c, got[i], want[i])
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ from Lua 5.1", bad, len(patternCases))
	}
}

// TestLua51Semantics: where gopher-lua departs from Lua 5.1, the string
// functions follow Lua 5.1 (the results are lua5.1's): %f frontiers, a
// start past the end, '^' in gmatch, % before a letter in a replacement,
// a number as the replacement, gsub's count, nil from a failed match, a
// plain search for a pattern without special characters, and errors for
// replacement values that are not strings.
func TestLua51Semantics(t *testing.T) {
	L := oursState()
	defer L.Close()
	if err := L.DoString(showLua); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ call, want string }{
		{`string.find("THE (quick) fox", "%f[%a]%a+")`, `1,3`},
		{`string.find("THE (quick) fox", "%f[%a]%a+", 5)`, `6,10`},
		{`string.gsub("hello world from Lua", "%f[%w]%w+", "<%0>")`, `"\60hello\62 \60world\62 \60from\62 \60Lua\62",4`},
		{`string.gsub("the cat sat", "%f[%a]%a%f[%A]", "X")`, `"the cat sat",0`},
		{`string.find("x y", "%f[%z]")`, `4,3`},
		{`string.find("abc", "%f[%l]")`, `1,0`},
		{`string.find("", "l*", 2)`, `1,0`},
		{`string.find("abc", "", 10)`, `4,3`},
		{`string.match("abc", "()", 10)`, `4`},
		{`string.find("abc", "c", 10, true)`, `nil`},
		{`gm("^a^b", "^.")`, `"\34\9294a\34\44nil\44nil \124 \34\9294b\34\44nil\44nil"`},
		{`gm("hello", "^h")`, `""`},
		{`string.gsub("abc", "%w", "%x")`, `"xxx",3`},
		{`string.gsub("abc", "b", 5)`, `"a5c",1`},
		{`string.gsub("abc", "b", 2.5)`, `"a2\465c",1`},
		{`string.gsub("abc", "b", "x", 0)`, `"abc",0`},
		{`string.gsub("abc", "b", "x", -1)`, `"abc",0`},
		{`string.gsub("abab", "b", "x", 1.9)`, `"axab",1`},
		{`string.match("a", "b")`, `nil`},
		{`string.find("a)b", "a)")`, `1,2`},
		{`string.find("a]b", "]")`, `2,2`},
		{`string.gsub("abc", "(b)", {b = {}})`, `error`},
		{`string.gsub("abc", "(b)", function() return true end)`, `error`},
		{`string.gsub("abc", "%w", function(c) if c == "b" then return false end return c:upper() end)`, `"AbC",3`},
		{`string.gsub("hello", "", "-")`, `"\45h\45e\45l\45l\45o\45",6`},
		{`string.gsub("hello", "l*", "#")`, `"\35h\35e\35\35o\35",5`},
		{`string.find("aXb", "%bXb")`, `2,3`},
		{`string.gsub("f(a(b)c)d(e)", "%b()", "[]")`, `"f\91\93d\91\93",2`},
		{`string.match("2024-01-02", "(%d+)-(%d+)-(%d+)")`, `"2024","01","02"`},
		{`string.match("  x  ", "^%s*(.-)%s*$")`, `"x"`},
		{`string.find("abc", "[%a-z]")`, `1,1`},
	} {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("__run"), NRet: 1, Protect: true}, lua.LString(tc.call)); err != nil {
			t.Fatal(err)
		}
		if got := L.Get(-1).String(); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.call, got, tc.want)
		}
		L.Pop(1)
	}
}

// fuzzDiffers reports the patterns on which gopher-lua cannot serve as
// the reference: beyond those of gopherDiffers, its sets read a range
// after a class (as in [%a-z]) and a second '-' (as in [a-c-] or [0--])
// otherwise than Lua, it fails on a back
// reference to a position capture, and it parses a pattern with a ')'
// that Lua searches for plainly.
func fuzzDiffers(p string) bool {
	if set := strings.Index(p, "["); set >= 0 {
		if strings.Count(p[set:], "-") > 1 || regexp.MustCompile(`%.-`).MatchString(p[set:]) {
			return true
		}
	}
	if strings.Contains(p, "()") && strings.ContainsAny(p, "123456789") {
		return true // a back reference to a position capture: gopher-lua fails, Lua matches nothing
	}
	return strings.Contains(p, "%f") || !strings.ContainsAny(p, "^$*+?.([%-") && strings.Contains(p, ")")
}

// FuzzPatterns: on any pattern this package compiles, find, match, gmatch
// and gsub give what gopher-lua's give. The seeds run as a plain test.
func FuzzPatterns(f *testing.F) {
	for i, c := range patternCases {
		if i%29 == 0 && !c.gopherDiffers() {
			f.Add(c.s, c.p)
		}
	}
	f.Add(strings.Repeat("a", 12), "(.-)(.-)(.-)b")
	ref, ours := lua.NewState(), oursState()
	defer ref.Close()
	defer ours.Close()
	var loaded bool
	f.Fuzz(func(t *testing.T, s, p string) {
		if len(s) > 24 || len(p) > 16 || fuzzDiffers(p) {
			return
		}
		if _, err := pattern.Compile(p, true); err != nil {
			return // malformed: the error tables cover those
		}
		if !loaded {
			runCases(t, ref, nil)
			runCases(t, ours, nil)
			loaded = true
		}
		cases := []patternCase{{call: "string.find", s: s, p: p}, {call: "string.match", s: s, p: p},
			{call: "string.gsub", s: s, p: p, repl: `"<%0>"`}}
		if !strings.HasPrefix(p, "^") {
			cases = append(cases, patternCase{call: "gm", s: s, p: p})
		}
		want, got := runCases2(t, ref, cases), runCases2(t, ours, cases)
		for i := range cases {
			if got[i] != want[i] && !strings.Contains(want[i], "too complex") {
				t.Errorf("%s\n  got  %s\n  want %s", cases[i], got[i], want[i])
			}
		}
	})
}

// runCases2 is runCases for a state that has showLua loaded already.
func runCases2(t *testing.T, L *lua.LState, cases []patternCase) []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("__run"), NRet: 1, Protect: true}, lua.LString(c.String())); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		out[i] = L.Get(-1).String()
		L.Pop(1)
	}
	return out
}

// TestRandomPatternsAgreeWithLua51: random patterns from the characters
// that matter, on random subjects, give what the reference Lua 5.1 gives.
func TestRandomPatternsAgreeWithLua51(t *testing.T) {
	bin := lua51(t)
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", "-", "[", "]", "%", "^", "$", "(", ")", ".", "*", "+", "?", "f", "1", "2", "w", " ", "%a", "%f[", "%b()", "[^", "()"}
	letters := "ab-[]()% ^$.*1"
	var cases []patternCase
	for len(cases) < 30000 {
		var p, s strings.Builder
		for n := r.IntN(7); n >= 0; n-- {
			p.WriteString(parts[r.IntN(len(parts))])
		}
		for n := r.IntN(8); n >= 0; n-- {
			s.WriteByte(letters[r.IntN(len(letters))])
		}
		if _, err := pattern.Compile(p.String(), true); err != nil {
			continue // malformed: Lua 5.1 reports it only when matching reaches it
		}
		cases = append(cases, patternCase{call: "string.find", s: s.String(), p: p.String()},
			patternCase{call: "gm", s: s.String(), p: p.String()},
			patternCase{call: "string.gsub", s: s.String(), p: p.String(), repl: `"<%0>"`})
	}
	want := lua51Results(t, bin, cases)
	ours := oursState()
	defer ours.Close()
	got := runCases(t, ours, cases)
	bad := 0
	for i, c := range cases {
		if got[i] != want[i] {
			if bad++; bad <= 20 {
				t.Errorf("%s\n  got  %s\n  want %s (lua5.1)", c, got[i], want[i])
			}
		}
	}
}
