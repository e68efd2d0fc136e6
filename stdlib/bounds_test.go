package stdlib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The patterns and texts of the differential tests: anchors, word
// boundaries and empty matches are where resuming a search mid-text could
// go wrong.
var (
	diffPatterns = []string{
		``, `a`, `a*`, `a+`, `a*?`, `b|`, `|b`, `^`, `$`, `^a`, `a$`, `(?m)^`, `(?m)$`, `(?m)^\w+`,
		`\b`, `\B`, `\bx`, `x\b`, `\b\w+\b`, `\w+`, `(\w)(\w)?`, `(?P<n>\d+)|(?P<w>[a-z]+)`, `(?P<a>x)|(?P<a>y)`,
		`.`, `(?s).`, `é`, `[^a]`, `\A\w`, `\w\z`, `(a|ab)(c|bcd)(d*)`, `(?i)AB`, `x*`, `(?U)a+`,
		`\s*,\s*`, `()`, `(a)|b`, `[\x{fffd}]`,
	}
	diffTexts = []string{
		"", "a", "aaa", "baaab", "ab ab", "x xx x", "one two  three", "a\nb\n\nc", "café éé", "a,b , c,,",
		"\xff\xfea\xff", "abcd abcbcd", "AbaB", "xy yx", "12ab34", "\n", "é",
	}
	diffRepls = []string{``, `-`, `[$0]`, `$1`, `${1}x`, `$1x`, `$$`, `$`, `$n$w`, `${a}`, `${9}`, `$01`, `${n}${w}!`}
)

func TestMatchesAgreeWithGo(t *testing.T) {
	for _, p := range diffPatterns {
		re := regexp.MustCompile(p)
		for _, s := range diffTexts {
			checkAgainstGo(t, re, p, s, diffRepls)
		}
	}
}

// checkAgainstGo compares Sub, FindAll and Split with what Go's regexp
// gives for the same pattern and text, reading the text as a string and
// through a textReader.
func checkAgainstGo(t *testing.T, re *regexp.Regexp, p, s string, repls []string) {
	t.Helper()
	defer func(n int) { readerAbove = n }(readerAbove)
	for _, readerAbove = range []int{1 << 20, 0} {
		checkOnce(t, re, p, s, repls)
	}
}

func checkOnce(t *testing.T, re *regexp.Regexp, p, s string, repls []string) {
	t.Helper()
	var got [][]int
	c, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	err = c.each(bg, s, -1, func(loc []int) error {
		got = append(got, append([]int(nil), loc...))
		return nil
	})
	if want := re.FindAllStringSubmatchIndex(s, -1); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("matches of %q in %q = %v, %v; Go's %v", p, s, got, err, want)
	}
	for _, r := range repls {
		got, err := Sub(bg, p, r, s, 0)
		if want := re.ReplaceAllString(s, r); err != nil || got != want {
			t.Errorf("Sub(%q, %q, %q) = %q, %v; Go's %q", p, r, s, got, err, want)
		}
	}
	for _, n := range []int{0, 1, 2} {
		goN := -1
		if n > 0 {
			goN = n + 1
		}
		got, err := Split(bg, p, s, n)
		if want := re.Split(s, goN); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q, %q, %d) = %q, %v; Go's %q", p, s, n, got, err, want)
		}
	}
	if m, _ := Search(bg, p, s); (m == nil) != (re.FindStringIndex(s) == nil) || m != nil && m.Groups[0].Start != re.FindStringIndex(s)[0] {
		t.Errorf("Search(%q, %q) = %+v; Go's %v", p, s, m, re.FindStringIndex(s))
	}
}

// FuzzMatches: on any pattern and text, matching agrees with Go's. The
// seeds run as a plain test.
func FuzzMatches(f *testing.F) {
	for i, p := range diffPatterns {
		f.Add(p, diffTexts[i%len(diffTexts)], diffRepls[i%len(diffRepls)])
	}
	f.Fuzz(func(t *testing.T, p, s, r string) {
		re, err := regexp.Compile(p)
		if err != nil || len(s) > 1<<10 || len(p) > 64 {
			return
		}
		checkAgainstGo(t, re, p, s, []string{r})
	})
}

// TestSubGrowth: a substitution that would grow its input by more than
// MaxGrowth fails before building the result.
func TestSubGrowth(t *testing.T) {
	s := strings.Repeat("x", 1<<20)
	_, err := Sub(bg, `(?s).+`, strings.Repeat("$0", MaxGrowth/len(s)+2), s, 0)
	want := fmt.Sprintf("the result would be more than %d bytes longer than the input (%d bytes)", MaxGrowth, len(s))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Sub amplifying one match: %v, want %q", err, want)
	}
	// Through many matches, with the bound lowered.
	defer func(g int) { maxGrowth = g }(maxGrowth)
	maxGrowth = 1000
	if _, err := Sub(bg, ``, "yy", strings.Repeat("a", 600), 0); err == nil || !strings.Contains(err.Error(), "more than 1000 bytes longer") {
		t.Errorf("Sub amplifying many matches: %v", err)
	}
	if got, err := Sub(bg, ``, "y", strings.Repeat("a", 600), 0); err != nil || len(got) != 1201 {
		t.Errorf("Sub within the bound: %d bytes, %v", len(got), err)
	}
	if got, err := Sub(bg, `a`, "", strings.Repeat("a", 5000), 0); err != nil || got != "" {
		t.Errorf("a shrinking Sub: %q, %v", got, err)
	}
}

func TestMatchCount(t *testing.T) {
	defer func(m int) { maxMatches = m }(maxMatches)
	maxMatches = 100
	if _, err := FindAll(bg, ``, strings.Repeat("a", 100)); err == nil || !strings.Contains(err.Error(), "more than 100 matches") {
		t.Errorf("FindAll: %v", err)
	}
	if got, err := FindAll(bg, ``, strings.Repeat("a", 99)); err != nil || len(got) != 100 {
		t.Errorf("FindAll of exactly 100: %d, %v", len(got), err)
	}
	if _, err := Split(bg, `,`, strings.Repeat(",", 200), 0); err == nil || !strings.Contains(err.Error(), "more than 100 pieces") {
		t.Errorf("Split: %v", err)
	}
	if got, err := Split(bg, `,`, strings.Repeat(",", 200), 5); err != nil || len(got) != 6 {
		t.Errorf("Split with maxsplit: %d, %v", len(got), err)
	}
}

// TestSearchStopsWithContext: a search over a huge text ends when its
// context does.
func TestSearchStopsWithContext(t *testing.T) {
	huge := strings.Repeat("ab", 16<<20)
	done, cancel := context.WithCancel(bg)
	cancel()
	for name, fn := range map[string]func() error{
		"Search":  func() error { _, err := Search(done, `(a|b)*c`, huge); return err },
		"FindAll": func() error { _, err := FindAll(done, `b`, huge); return err },
		"Sub":     func() error { _, err := Sub(done, `a`, "x", huge, 0); return err },
		"Split":   func() error { _, err := Split(done, `c`, huge, 0); return err },
	} {
		if err := fn(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		}
	}
	// Cancelled while it runs.
	ctx, cancel := context.WithCancel(bg)
	errc := make(chan error, 1)
	started := time.Now()
	go func() { _, err := FindAll(ctx, `(a|b)*c`, huge+huge); errc <- err }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("FindAll cancelled mid-way: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("FindAll still running %v after its context ended", time.Since(started))
	}
}

// TestIndentGrowth: json.indent's estimate of its result is exact, and a
// result that grows too much is an error.
func TestIndentGrowth(t *testing.T) {
	for _, src := range []string{`{}`, `[]`, `[[],{}]`, `{"a":[1,2,{"b":null}],"c":"x,y:[z]\"\\"}`, ` [ 1 , 2 ] `, `"s"`, `[[[[1]]]]`, `{"k":{}}`} {
		for _, ind := range [][2]string{{"", "\t"}, {">", "  "}, {"", ""}} {
			var buf bytes.Buffer
			if err := json.Indent(&buf, []byte(src), ind[0], ind[1]); err != nil {
				t.Fatal(err)
			}
			want := int64(len(strings.TrimRight(buf.String(), " ")))
			if got := indentedLen(src, len(ind[0]), len(ind[1]), 1<<40); got != want {
				t.Errorf("indentedLen(%q, %q) = %d, json.Indent gives %d", src, ind, got, want)
			}
		}
	}
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	_, err := testJSON.Indent(deep, "", strings.Repeat(" ", 200))
	if err == nil || !strings.Contains(err.Error(), "json.indent: the result would be more than 67108864 bytes longer than the input (2000 bytes); use a shorter prefix or indent") {
		t.Errorf("JSONIndent of a deep list with a long indent: %v", err)
	}
	if _, err := testJSON.EncodeIndent([]any{[]any{"x"}}, "", strings.Repeat(" ", MaxGrowth)); err == nil || !strings.HasPrefix(err.Error(), "json.encode_indent: the result would be") {
		t.Errorf("JSONEncodeIndent with a huge indent: %v", err)
	}
	if got, err := testJSON.Indent(`[1,[2]]`, "", " "); err != nil || got != "[\n 1,\n [\n  2\n ]\n]" {
		t.Errorf("JSONIndent = %q, %v", got, err)
	}
}
