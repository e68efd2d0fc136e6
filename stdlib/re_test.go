package stdlib

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

var bg = context.Background()

func TestCompile(t *testing.T) {
	a, err := Compile(`\d+`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Compile(`\d+`)
	if a != b {
		t.Error("Compile does not reuse the cached pattern")
	}
	for _, p := range []string{`(a`, `a(?=b)`, `(a)\1`, `[z-a]`, `*`} {
		_, err := Compile(p)
		if err == nil {
			t.Errorf("Compile(%q) succeeded", p)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, fmt.Sprintf("invalid pattern %q: ", p)) || !strings.Contains(msg, "RE2 syntax") {
			t.Errorf("Compile(%q) error = %q", p, msg)
		}
	}
}

// TestCompileCacheConcurrent: many goroutines compiling more patterns than
// the cache holds (so it resets) always get a working regexp; run with
// -race.
func TestCompileCacheConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2*reCacheSize/8+10; i++ {
				p := fmt.Sprintf(`x%d_%d`, g, i)
				re, err := Compile(p)
				if err != nil || !re.MatchString("--"+p+"--") {
					t.Errorf("Compile(%q) = %v, %v", p, re, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func groupTexts(m *Match) []string {
	out := make([]string, len(m.Groups))
	for i, g := range m.Groups {
		out[i] = fmt.Sprintf("%q@%d-%d/%v", g.Text, g.Start, g.End, g.Matched)
	}
	return out
}

func TestSearch(t *testing.T) {
	m, err := Search(bg, `(?P<user>\w+)@(\w+)(x)?`, "to: ada@home.")
	if err != nil || m == nil {
		t.Fatal(m, err)
	}
	want := []string{`"ada@home"@4-12/true`, `"ada"@4-7/true`, `"home"@8-12/true`, `""@-1--1/false`}
	if got := groupTexts(m); !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(m.Names, []string{"", "user", "", ""}) {
		t.Errorf("Names = %q", m.Names)
	}
	if m.GroupIndex("user") != 1 || m.GroupIndex("nope") != -1 || m.GroupIndex("") != -1 {
		t.Error("GroupIndex")
	}
	if g, ok := m.Group(2); !ok || g.Text != "home" {
		t.Errorf("Group(2) = %+v, %v", g, ok)
	}
	for _, i := range []int{-1, 4} {
		if _, ok := m.Group(i); ok {
			t.Errorf("Group(%d) found", i)
		}
	}
	if m, err := Search(bg, "z", "abc"); m != nil || err != nil {
		t.Errorf("no match = %v, %v", m, err)
	}
	// Offsets are bytes.
	m, _ = Search(bg, "é+", "caféé!")
	if m.Groups[0].Start != 3 || m.Groups[0].End != 7 {
		t.Errorf("byte offsets: %+v", m.Groups[0])
	}
	if _, err := Search(bg, "(", "x"); err == nil {
		t.Error("bad pattern accepted")
	}
}

func TestMatchStartFullMatch(t *testing.T) {
	for _, tc := range []struct {
		fn      func(context.Context, string, string) (*Match, error)
		name    string
		pattern string
		s       string
		want    string // whole match, or "<nil>"
	}{
		{MatchStart, "match", "a", "abc", "a"},
		{MatchStart, "match", "b", "abc", "<nil>"},
		{MatchStart, "match", "b*", "abc", ""},
		{MatchStart, "match", "a|ab", "abc", "a"},
		{MatchStart, "match", "(?m)^b", "a\nb", "<nil>"},
		{FullMatch, "fullmatch", "a|ab", "ab", "ab"},
		{FullMatch, "fullmatch", "a", "ab", "<nil>"},
		{FullMatch, "fullmatch", "b", "ab", "<nil>"},
		{FullMatch, "fullmatch", "(?i)AB", "ab", "ab"},
		{FullMatch, "fullmatch", `\d+|x`, "123", "123"},
		{FullMatch, "fullmatch", ".*", "line1\nline2", "<nil>"},
		{FullMatch, "fullmatch", "(?s).*", "line1\nline2", "line1\nline2"},
		{FullMatch, "fullmatch", "", "", ""},
	} {
		m, err := tc.fn(bg, tc.pattern, tc.s)
		if err != nil {
			t.Errorf("%s(%q, %q): %v", tc.name, tc.pattern, tc.s, err)
			continue
		}
		got := "<nil>"
		if m != nil {
			got = m.Groups[0].Text
		}
		if got != tc.want {
			t.Errorf("%s(%q, %q) = %q, want %q", tc.name, tc.pattern, tc.s, got, tc.want)
		}
	}
	// FullMatch keeps the pattern's groups and names.
	m, err := FullMatch(bg, `(?P<k>\w+)=(\d+)`, "port=80")
	if err != nil || len(m.Groups) != 3 || m.Groups[1].Text != "port" || m.Groups[2].Text != "80" || m.GroupIndex("k") != 1 {
		t.Errorf("FullMatch groups = %+v, %v", m, err)
	}
	for _, fn := range []func(context.Context, string, string) (*Match, error){MatchStart, FullMatch} {
		if _, err := fn(bg, "(", ""); err == nil || !strings.Contains(err.Error(), `invalid pattern "("`) {
			t.Errorf("bad pattern: %v", err)
		}
	}
}

func TestFindAll(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       []any
	}{
		{`\d+`, "a1 b22 c333", []any{"1", "22", "333"}},
		{`(\w)=\d`, "a=1 b=2", []any{"a", "b"}},
		{`(\w)=(\d)?`, "a=1 b=", []any{[]any{"a", "1"}, []any{"b", ""}}},
		{`(a)(b)(c)`, "abcabc", []any{[]any{"a", "b", "c"}, []any{"a", "b", "c"}}},
		{`x`, "abc", []any{}},
		// Go's rule, not Python's: an empty match right after a match is
		// skipped (Python 3.7+ gives ["", "aa", ""]).
		{`a*`, "baa", []any{"", "aa"}},
	} {
		got, err := FindAll(bg, tc.pattern, tc.s)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FindAll(bg, %q, %q) = %#v, %v; want %#v", tc.pattern, tc.s, got, err, tc.want)
		}
	}
	if _, err := FindAll(bg, "[", ""); err == nil {
		t.Error("bad pattern accepted")
	}
}

func TestSub(t *testing.T) {
	for _, tc := range []struct {
		pattern, repl, s string
		count            int
		want             string
	}{
		{`(\w+)@(\w+)`, "$2 at ${1}", "ada@home bob@work", 0, "home at ada work at bob"},
		{`(?P<w>o+)`, "<${w}>", "foo boo", 0, "f<oo> b<oo>"},
		{"a", "X", "banana", 1, "bXnana"},
		{"a", "X", "banana", 2, "bXnXna"},
		{"a", "X", "banana", 0, "bXnXnX"},
		{"a", "X", "banana", -1, "bXnXnX"},
		{"a", "X", "banana", 10, "bXnXnX"},
		{"z", "X", "banana", 0, "banana"},
		{`(a)`, `$$1 \1`, "a", 0, `$1 \1`}, // $$ is a literal $; \1 is not a reference
		{`(a)`, `$1x`, "a", 0, ""},         // $1x names group "1x", which is empty
		{`(a)`, `${1}x`, "a", 0, "ax"},
		{"", "-", "ab", 0, "-a-b-"},
	} {
		got, err := Sub(bg, tc.pattern, tc.repl, tc.s, tc.count)
		if err != nil || got != tc.want {
			t.Errorf("Sub(bg, %q, %q, %q, %d) = %q, %v; want %q", tc.pattern, tc.repl, tc.s, tc.count, got, err, tc.want)
		}
	}
	if _, err := Sub(bg, "(", "", "", 0); err == nil {
		t.Error("bad pattern accepted")
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		max        int
		want       []string
	}{
		{`\s*,\s*`, "a , b,c ,d", 0, []string{"a", "b", "c", "d"}},
		{",", "a,b,c", 1, []string{"a", "b,c"}},
		{",", "a,b,c", 2, []string{"a", "b", "c"}},
		{",", "a,b,c", 5, []string{"a", "b", "c"}},
		{",", "a,b,c", -1, []string{"a", "b", "c"}},
		{"(,)", "a,b", 0, []string{"a", "b"}}, // groups are not included
		{",", "", 0, []string{""}},
		{",", ",a,", 0, []string{"", "a", ""}},
	} {
		got, err := Split(bg, tc.pattern, tc.s, tc.max)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(bg, %q, %q, %d) = %q, %v; want %q", tc.pattern, tc.s, tc.max, got, err, tc.want)
		}
	}
	if _, err := Split(bg, "(", "", 0); err == nil {
		t.Error("bad pattern accepted")
	}
}

func TestEscape(t *testing.T) {
	for _, s := range []string{`a.b*c(d)`, `1+1=2?`, `[x]{1}|^$\`, "plain", ""} {
		esc := Escape(s)
		m, err := FullMatch(bg, esc, s)
		if err != nil || m == nil {
			t.Errorf("FullMatch(bg, Escape(%q)=%q) = %v, %v", s, esc, m, err)
		}
	}
	if Escape("a.b") != `a\.b` {
		t.Errorf("Escape(a.b) = %q", Escape("a.b"))
	}
}
