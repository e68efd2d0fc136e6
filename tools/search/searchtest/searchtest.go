// Package searchtest is the conformance suite for search backends, in the
// style of testing/fstest: every Grepper and Globber in agentsh passes
// it, and a custom backend should too.
//
//	func TestMyGrepper(t *testing.T) {
//		searchtest.TestGrepper(t, func(root string) search.Grepper { return mybackend.New(root) })
//	}
//
// The suite builds small trees in t.TempDir() and checks the rules of
// package search: byte-wise path order, limits applied after sorting,
// .gitignore rules, hidden files, .git, binary files, symbolic links,
// context lines, counts, long lines, case folding, multiline patterns, the Type and
// Glob filters, Path, patterns that look like flags, invalid patterns and
// cancellation, the output modes and the Limit hint, and, for a backend that is both a Grepper and a Globber,
// that Grep and Glob see the same files. It needs no git and no network.
//
// Each check is a subtest named after what it checks (Order, Limits,
// Ignore, ...), so a failure says which rule is broken.
package searchtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
)

// A tree maps slash-separated paths to file contents. A key of the form
// "name -> target" makes a symbolic link to target instead; a key ending
// in "/" makes an empty directory.
type tree map[string]string

func writeTree(t *testing.T, root string, files tree) {
	t.Helper()
	for name, content := range files {
		link := ""
		if i := strings.Index(name, " -> "); i >= 0 {
			name, link = name[:i], name[i+len(" -> "):]
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if link != "" {
			err = os.Symlink(link, p)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// newTree writes files into a new directory and returns its path.
func newTree(t *testing.T, files tree) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	return root
}

func grepAll(t *testing.T, g search.Grepper, req search.GrepRequest) []search.FileResult {
	t.Helper()
	var out []search.FileResult
	err := g.Grep(context.Background(), req, func(r search.FileResult) bool {
		out = append(out, r)
		return true
	})
	if err != nil {
		t.Fatalf("Grep(%+v): %v", req, err)
	}
	return out
}

func globAll(t *testing.T, g search.Globber, req search.GlobRequest) []string {
	t.Helper()
	var out []string
	err := g.Glob(context.Background(), req, func(p string) bool {
		out = append(out, p)
		return true
	})
	if err != nil {
		t.Fatalf("Glob(%+v): %v", req, err)
	}
	return out
}

func paths(rs []search.FileResult) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}

// format renders results one line each: "path#count" for a file, then
// "  N:text" for a matching line and "  N-text" for a context line.
func format(rs []search.FileResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s#%d\n", r.Path, r.Count)
		for _, l := range r.Lines {
			sep := "-"
			if l.Match {
				sep = ":"
			}
			fmt.Fprintf(&b, "  %d%s%q\n", l.Number, sep, l.Text)
		}
	}
	return b.String()
}

func checkPaths(t *testing.T, what string, got, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.SortFunc(s, strings.Compare) // byte-wise
	return s
}

// orderTree holds names whose byte-wise order differs from a naive walk:
// "a-b" < "a.txt" < "a/b" ('-' < '.' < '/'), "A" < "a", "é" last, spaces.
var orderTree = tree{
	"a.txt":          "needle\n",
	"a/b":            "needle\n",
	"a/b.txt":        "needle\n",
	"a-b":            "needle\n",
	"a0":             "needle\n",
	"A":              "needle\n",
	"B/a":            "needle\n",
	"b":              "needle\n",
	"é":              "needle\n",
	"éa/x":           "needle\n",
	"with space.txt": "needle\n",
	"with space/x":   "needle\n",
	"z/y/x":          "needle\n",
	"a.b/c":          "needle\n",
	"ab":             "needle\n",
}

func orderWant() []string {
	var want []string
	for k := range orderTree {
		want = append(want, k)
	}
	return sorted(want)
}

// ignoreTree exercises .gitignore rules; ignoreWant is what a search of
// it sees (without hidden files).
var ignoreTree = tree{
	".gitignore": "# a comment\n" +
		"*.log\n" +
		"/build/\n" +
		"docs/*.md\n" +
		"!docs/keep.md\n" +
		"tmp/\n" +
		"\\#hash.txt\n" +
		"vendor/\n" +
		"!vendor/keep.txt\n" +
		"trailing.txt   \n" +
		"out/\n" +
		"**/gen/*.go\n" +
		"a/**/z.txt\n" +
		"\\!bang.txt\n" +
		"sp\\ ace.txt\n",
	"app.log":                      "needle\n",
	"keep.txt":                     "needle\n",
	"build/x.txt":                  "needle\n",
	"sub/build/x.txt":              "needle\n",
	"docs/a.md":                    "needle\n",
	"docs/keep.md":                 "needle\n",
	"docs/deep/b.md":               "needle\n",
	"tmp/t.txt":                    "needle\n",
	"#hash.txt":                    "needle\n",
	"vendor/keep.txt":              "needle\n",
	"vendor/v.txt":                 "needle\n",
	"trailing.txt":                 "needle\n",
	"out/o.txt":                    "needle\n",
	"sub/out":                      "needle\n",
	"x/gen/g.go":                   "needle\n",
	"x/gen/sub/g.go":               "needle\n",
	"gen/g.go":                     "needle\n",
	"a/z.txt":                      "needle\n",
	"a/b/c/z.txt":                  "needle\n",
	"b/a/z.txt":                    "needle\n",
	"!bang.txt":                    "needle\n",
	"sp ace.txt":                   "needle\n",
	"sub/.gitignore":               "!app.log\n*.tmp\n/only-here.txt\n",
	"sub/app.log":                  "needle\n",
	"sub/x.tmp":                    "needle\n",
	"x.tmp":                        "needle\n",
	"sub/only-here.txt":            "needle\n",
	"sub/deeper/only-here.txt":     "needle\n",
	"nested/.git/HEAD":             "needle\n",
	"nested/a.log":                 "needle\n",
	"nested/.gitignore":            "ignored-in-nested.txt\n",
	"nested/ignored-in-nested.txt": "needle\n",
}

var ignoreWant = []string{
	"b/a/z.txt", // "a/**/z.txt" is anchored: a/z.txt and a/b/c/z.txt are ignored
	"docs/deep/b.md",
	"docs/keep.md",
	"keep.txt",
	"nested/a.log", // a directory holding .git starts a new set of rules
	"sub/app.log",
	"sub/build/x.txt",
	"sub/deeper/only-here.txt",
	"sub/out",
	"x.tmp",
	"x/gen/sub/g.go",
}

// A check is one case of a suite, run as a subtest of its name.
type check struct {
	name string
	run  func(t *testing.T)
}

func runChecks(t *testing.T, checks []check) {
	for _, c := range checks {
		t.Run(c.name, c.run)
	}
}

// TestGrepper runs the grep conformance suite. newBackend returns a
// backend searching the tree at root; it is called once per case. A
// backend that is also a search.Globber is checked to list, with Glob, the
// files that Grep searches.
func TestGrepper(t *testing.T, newBackend func(root string) search.Grepper) {
	runChecks(t, (&grepTester{newBackend: newBackend}).checks())
}

// grepTester holds the grep suite: each check method is one subtest.
type grepTester struct {
	newBackend func(root string) search.Grepper
}

func (s *grepTester) checks() []check {
	return []check{
		{"Order", s.checkOrder},
		{"Limits", s.checkLimits},
		{"LimitLinesAcrossFiles", s.checkLimitLinesAcrossFiles},
		{"Ignore", s.checkIgnore},
		{"IgnoreAboveRoot", s.checkIgnoreAboveRoot},
		{"Hidden", s.checkHidden},
		{"Binary", s.checkBinary},
		{"Context", s.checkContext},
		{"Lines", s.checkLines},
		{"LongLines", s.checkLongLines},
		{"Count", s.checkCount},
		{"CaseFolding", s.checkCaseFolding},
		{"Regexp", s.checkRegexp},
		{"Multiline", s.checkMultiline},
		{"Type", s.checkType},
		{"Glob", s.checkGlob},
		{"Exclude", s.checkExclude},
		{"Path", s.checkPath},
		{"Symlinks", s.checkSymlinks},
		{"PatternsLikeFlags", s.checkPatternsLikeFlags},
		{"InvalidPattern", s.checkInvalidPattern},
		{"Cancel", s.checkCancel},
		{"Concurrent", s.checkConcurrent},
		{"GlobAgrees", s.checkGlobAgrees},
		{"Modes", s.checkModes},
		{"LimitHint", s.checkLimitHint},
	}
}

func (s *grepTester) checkOrder(t *testing.T) {
	g := s.newBackend(newTree(t, orderTree))
	checkPaths(t, "grep paths", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle"})), orderWant())
}

func (s *grepTester) checkLimits(t *testing.T) {
	g := s.newBackend(newTree(t, orderTree))
	want := orderWant()
	for n := 1; n <= len(want); n++ {
		var got []string
		stopped := false
		err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle"}, func(r search.FileResult) bool {
			if stopped {
				t.Errorf("limit %d: emit called after it returned false (%s)", n, r.Path)
			}
			got = append(got, r.Path)
			stopped = len(got) == n
			return !stopped
		})
		if err != nil {
			t.Fatalf("limit %d: %v", n, err)
		}
		checkPaths(t, fmt.Sprintf("first %d", n), got, want[:n])
	}
}

func (s *grepTester) checkLimitLinesAcrossFiles(t *testing.T) {
	// A caller that limits lines stops in the middle of the sorted
	// list: what it saw must be a prefix of a full run.
	files := tree{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f%02d.txt", i%7, i)] = strings.Repeat("needle\n", i%3+1)
	}
	g := s.newBackend(newTree(t, files))
	full := format(grepAll(t, g, search.GrepRequest{Pattern: "needle"}))
	for _, n := range []int{1, 2, 5, 13, 40} {
		var got []search.FileResult
		lines := 0
		err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle"}, func(r search.FileResult) bool {
			got = append(got, r)
			lines += len(r.Lines)
			return lines < n
		})
		if err != nil {
			t.Fatal(err)
		}
		if f := format(got); !strings.HasPrefix(full, f) {
			t.Errorf("limit %d lines: not a prefix of the full result:\n%s", n, f)
		}
	}
}

func (s *grepTester) checkIgnore(t *testing.T) {
	g := s.newBackend(newTree(t, ignoreTree))
	checkPaths(t, "with .gitignore", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle"})), ignoreWant)
	var all []string
	for k := range ignoreTree {
		if !strings.HasPrefix(k, ".") && !strings.Contains(k, "/.") {
			all = append(all, k)
		}
	}
	checkPaths(t, "NoIgnore", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", NoIgnore: true})), sorted(all))
}

func (s *grepTester) checkIgnoreAboveRoot(t *testing.T) {
	outer := t.TempDir()
	writeTree(t, outer, tree{
		".gitignore":              "*.txt\ninner/\n",
		"inner/a.txt":             "needle\n",
		"inner/.ignore":           "b.txt\n",
		"inner/b.txt":             "needle\n",
		"inner/.rgignore":         "c.txt\n",
		"inner/c.txt":             "needle\n",
		"inner/.fdignore":         "d.txt\n",
		"inner/d.txt":             "needle\n",
		"inner/.git/info/exclude": "e.txt\n",
		"inner/e.txt":             "needle\n",
	})
	g := s.newBackend(filepath.Join(outer, "inner"))
	want := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"}
	checkPaths(t, "only .gitignore files below the root apply", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle"})), want)
}

func (s *grepTester) checkHidden(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		".hidden.txt":      "needle\n",
		".dir/x.txt":       "needle\n",
		"dir/.h/x.txt":     "needle\n",
		"vis.txt":          "needle\n",
		"dir/vis.txt":      "needle\n",
		".gitignore":       "ign.txt\n# needle\n",
		"ign.txt":          "needle\n",
		".git/config":      "needle\n",
		"sub/.git":         "needle\n", // a git file, as in a submodule
		"sub/s.txt":        "needle\n",
		".git2/x.txt":      "needle\n",
		"dir/.git/objects": "needle\n",
	}))
	checkPaths(t, "default", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle"})),
		[]string{"dir/vis.txt", "sub/s.txt", "vis.txt"})
	checkPaths(t, "Hidden", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Hidden: true})),
		[]string{".dir/x.txt", ".git2/x.txt", ".gitignore", ".hidden.txt", "dir/.h/x.txt", "dir/vis.txt", "sub/s.txt", "vis.txt"})
	checkPaths(t, "Hidden NoIgnore", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Hidden: true, NoIgnore: true})),
		[]string{".dir/x.txt", ".git2/x.txt", ".gitignore", ".hidden.txt", "dir/.h/x.txt", "dir/vis.txt", "ign.txt", "sub/s.txt", "vis.txt"})
}

func (s *grepTester) checkBinary(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("x", n) }
	g := s.newBackend(newTree(t, tree{
		"nul-first.dat": "\x00needle\n",
		"nul-8191.dat":  "needle\n" + pad(8191-7) + "\x00\nneedle\n",
		"nul-8192.dat":  "needle\n" + pad(8192-7) + "\x00\nneedle after\n",
		"text.txt":      "needle\n",
		"latin1.txt":    "caf\xe9 needle\n",
		"utf16.txt":     "\xff\xfen\x00e\x00e\x00d\x00l\x00e\x00\n\x00",
	}))
	got := grepAll(t, g, search.GrepRequest{Pattern: "needle"})
	want := "latin1.txt#1\n  1:\"caf\\xe9 needle\"\n" +
		"nul-8192.dat#2\n  1:\"needle\"\n  3:\"needle after\"\n" +
		"text.txt#1\n  1:\"needle\"\n"
	if f := format(got); f != want {
		t.Errorf("binary files:\n got %s\nwant %s", f, want)
	}
}

func (s *grepTester) checkContext(t *testing.T) {
	lines := []string{"m1", "x2", "x3", "x4", "m5", "m6", "x7", "x8", "x9", "m10"}
	g := s.newBackend(newTree(t, tree{
		"f.txt":    strings.Join(lines, "\n") + "\n",
		"one.txt":  "m\n",
		"crlf.txt": "a\r\nm\r\nb\r\n",
	}))
	cases := []struct {
		before, after int
		want          string
	}{
		{0, 0, "f.txt#4\n  1:\"m1\"\n  5:\"m5\"\n  6:\"m6\"\n  10:\"m10\"\n"},
		{1, 0, "f.txt#4\n  1:\"m1\"\n  4-\"x4\"\n  5:\"m5\"\n  6:\"m6\"\n  9-\"x9\"\n  10:\"m10\"\n"},
		{0, 1, "f.txt#4\n  1:\"m1\"\n  2-\"x2\"\n  5:\"m5\"\n  6:\"m6\"\n  7-\"x7\"\n  10:\"m10\"\n"},
		{2, 1, "f.txt#4\n  1:\"m1\"\n  2-\"x2\"\n  3-\"x3\"\n  4-\"x4\"\n  5:\"m5\"\n  6:\"m6\"\n  7-\"x7\"\n  8-\"x8\"\n  9-\"x9\"\n  10:\"m10\"\n"},
		{5, 5, "f.txt#4\n  1:\"m1\"\n  2-\"x2\"\n  3-\"x3\"\n  4-\"x4\"\n  5:\"m5\"\n  6:\"m6\"\n  7-\"x7\"\n  8-\"x8\"\n  9-\"x9\"\n  10:\"m10\"\n"},
		{0, 3, "f.txt#4\n  1:\"m1\"\n  2-\"x2\"\n  3-\"x3\"\n  4-\"x4\"\n  5:\"m5\"\n  6:\"m6\"\n  7-\"x7\"\n  8-\"x8\"\n  9-\"x9\"\n  10:\"m10\"\n"},
	}
	for _, c := range cases {
		got := grepAll(t, g, search.GrepRequest{Pattern: "^m", Path: "f.txt", Before: c.before, After: c.after})
		if f := format(got); f != c.want {
			t.Errorf("Before %d After %d:\n got %s\nwant %s", c.before, c.after, f, c.want)
		}
	}
	got := grepAll(t, g, search.GrepRequest{Pattern: "^m", Path: "one.txt", Before: 3, After: 3})
	if f, want := format(got), "one.txt#1\n  1:\"m\"\n"; f != want {
		t.Errorf("context at both edges of a one-line file:\n got %s\nwant %s", f, want)
	}
	got = grepAll(t, g, search.GrepRequest{Pattern: "m", Path: "crlf.txt", Before: 1, After: 1})
	if f, want := format(got), "crlf.txt#1\n  1-\"a\\r\"\n  2:\"m\\r\"\n  3-\"b\\r\"\n"; f != want {
		t.Errorf("CRLF lines keep their \\r:\n got %s\nwant %s", f, want)
	}
}

func (s *grepTester) checkLines(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"crlf.txt":  "foo\r\nbar\r\n",
		"nonl.txt":  "first\nlast",
		"empty.txt": "",
		"blank.txt": "a\n\nb\n",
		"nl.txt":    "\n",
	}))
	cases := []struct {
		req  search.GrepRequest
		want string
	}{
		{search.GrepRequest{Pattern: "foo", Path: "crlf.txt"}, "crlf.txt#1\n  1:\"foo\\r\"\n"},
		{search.GrepRequest{Pattern: "foo$", Path: "crlf.txt"}, ""},
		{search.GrepRequest{Pattern: `foo\r$`, Path: "crlf.txt"}, "crlf.txt#1\n  1:\"foo\\r\"\n"},
		{search.GrepRequest{Pattern: "last$", Path: "nonl.txt"}, "nonl.txt#1\n  2:\"last\"\n"},
		{search.GrepRequest{Pattern: `\Alast\z`, Path: "nonl.txt"}, "nonl.txt#1\n  2:\"last\"\n"},
		{search.GrepRequest{Pattern: "^$"}, "blank.txt#1\n  2:\"\"\n" + "nl.txt#1\n  1:\"\"\n"},
		{search.GrepRequest{Pattern: "", Path: "blank.txt"}, "blank.txt#3\n  1:\"a\"\n  2:\"\"\n  3:\"b\"\n"},
		{search.GrepRequest{Pattern: "x*", Path: "nonl.txt"}, "nonl.txt#2\n  1:\"first\"\n  2:\"last\"\n"},
		{search.GrepRequest{Pattern: `a\nb`, Path: "blank.txt"}, ""},
		{search.GrepRequest{Pattern: `a\s`, Path: "blank.txt"}, ""},
		{search.GrepRequest{Pattern: `[^x]`, Path: "blank.txt"}, "blank.txt#2\n  1:\"a\"\n  3:\"b\"\n"},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, c.req)); f != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.req, f, c.want)
		}
	}
}

func (s *grepTester) checkLongLines(t *testing.T) {
	// A reported line holds at most search.MaxLineBytes bytes of the
	// line, fewer if the cut would split a UTF-8 character; matching
	// still sees the whole line.
	max := search.MaxLineBytes
	a := func(n int) string { return strings.Repeat("a", n) }
	huge := a(3<<20) + "tail" // longer than any buffer of a backend
	g := s.newBackend(newTree(t, tree{
		"exact.txt":  a(max-6) + "needle\nshort needle\n",
		"over.txt":   a(max) + "needle\n",
		"rune.txt":   a(max-1) + "é needle\n", // é is bytes max-1 and max
		"rune2.txt":  a(max-2) + "€ needle\n", // € is bytes max-2 to max
		"ctx.txt":    "needle\n" + a(max+10) + "\n" + a(max+20) + "\n" + "needle\n",
		"huge.txt":   "first\n" + huge + "\nneedle\n" + huge + "\n",
		"nonl.txt":   "needle\n" + a(max+5),
		"multi.txt":  "x\n" + a(max+5) + "\nneedle\n",
		"crlf.txt":   a(max) + "\r\n",
		"badutf.txt": a(max-1) + "\xe9\xff needle\n",
	}))
	cases := []struct {
		req  search.GrepRequest
		want string
	}{
		{search.GrepRequest{Pattern: "needle", Path: "exact.txt"}, fmt.Sprintf("exact.txt#2\n  1:%q\n  2:\"short needle\"\n", a(max-6)+"needle")},
		{search.GrepRequest{Pattern: "needle", Path: "over.txt"}, fmt.Sprintf("over.txt#1\n  1:%q\n", a(max))},
		{search.GrepRequest{Pattern: "needle$", Path: "over.txt"}, fmt.Sprintf("over.txt#1\n  1:%q\n", a(max))},
		{search.GrepRequest{Pattern: "^a+$", Path: "over.txt"}, ""},
		{search.GrepRequest{Pattern: "ne.dle", Path: "over.txt"}, fmt.Sprintf("over.txt#1\n  1:%q\n", a(max))},
		{search.GrepRequest{Pattern: "needle", Path: "rune.txt"}, fmt.Sprintf("rune.txt#1\n  1:%q\n", a(max-1))},
		{search.GrepRequest{Pattern: "needle", Path: "rune2.txt"}, fmt.Sprintf("rune2.txt#1\n  1:%q\n", a(max-2))},
		{search.GrepRequest{Pattern: "needle", Path: "badutf.txt"}, fmt.Sprintf("badutf.txt#1\n  1:%q\n", a(max-1)+"\xe9")},
		{search.GrepRequest{Pattern: "needle", Path: "ctx.txt", Before: 1, After: 1},
			fmt.Sprintf("ctx.txt#2\n  1:\"needle\"\n  2-%q\n  3-%q\n  4:\"needle\"\n", a(max), a(max))},
		{search.GrepRequest{Pattern: "tail$", Path: "huge.txt"}, fmt.Sprintf("huge.txt#2\n  2:%q\n  4:%q\n", a(max), a(max))},
		{search.GrepRequest{Pattern: "ne+dle", Path: "huge.txt", Before: 1, After: 1},
			fmt.Sprintf("huge.txt#1\n  2-%q\n  3:\"needle\"\n  4-%q\n", a(max), a(max))},
		{search.GrepRequest{Pattern: "needle", Path: "nonl.txt", After: 1}, fmt.Sprintf("nonl.txt#1\n  1:\"needle\"\n  2-%q\n", a(max))},
		{search.GrepRequest{Pattern: `x\na+\nneedle`, Path: "multi.txt", Multiline: true}, fmt.Sprintf("multi.txt#3\n  1:\"x\"\n  2:%q\n  3:\"needle\"\n", a(max))},
		{search.GrepRequest{Pattern: `a\r$`, Path: "crlf.txt"}, fmt.Sprintf("crlf.txt#1\n  1:%q\n", a(max))},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, c.req)); f != c.want {
			t.Errorf("%q in %s (Before %d, After %d, Multiline %v):\n got %.300s\nwant %.300s", c.req.Pattern, c.req.Path, c.req.Before, c.req.After, c.req.Multiline, f, c.want)
		}
	}
	// The same through a directory search, which the ripgrep backend
	// hands to rg.
	got := grepAll(t, g, search.GrepRequest{Pattern: "needle"})
	for _, r := range got {
		for _, l := range r.Lines {
			if len(l.Text) > max {
				t.Errorf("%s:%d: a line of %d bytes, want at most %d", r.Path, l.Number, len(l.Text), max)
			}
		}
	}
	if want := []string{"badutf.txt", "ctx.txt", "exact.txt", "huge.txt", "multi.txt", "nonl.txt", "over.txt", "rune.txt", "rune2.txt"}; !slices.Equal(paths(got), want) {
		t.Errorf("directory search: got %q, want %q", paths(got), want)
	}
	for _, r := range got {
		one := grepAll(t, g, search.GrepRequest{Pattern: "needle", Path: r.Path})
		if len(one) != 1 || format(one) != format([]search.FileResult{r}) {
			t.Errorf("%s: a directory search and a search of the file differ:\n%.300s\n%.300s", r.Path, format([]search.FileResult{r}), format(one))
		}
	}
}

func (s *grepTester) checkCount(t *testing.T) {
	g := s.newBackend(newTree(t, tree{"f.txt": "a needle\nb\nneedle needle\nc\nneedle\n"}))
	got := grepAll(t, g, search.GrepRequest{Pattern: "needle", After: 1})
	if len(got) != 1 || got[0].Count != 3 {
		t.Errorf("Count: got %s, want 3 matching lines", format(got))
	}
}

func (s *grepTester) checkCaseFolding(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"f.txt": "needle\nNeedle\nNEEDLE\nneed le\n",
		"k.txt": "k\nK\n\u212a\nx\n",
		"s.txt": "straße\nSTRASSE\n\u017ftrasse\n",
	}))
	cases := []struct {
		req  search.GrepRequest
		want string
	}{
		{search.GrepRequest{Pattern: "needle", Path: "f.txt"}, "f.txt#1\n  1:\"needle\"\n"},
		{search.GrepRequest{Pattern: "needle", Path: "f.txt", IgnoreCase: true}, "f.txt#3\n  1:\"needle\"\n  2:\"Needle\"\n  3:\"NEEDLE\"\n"},
		{search.GrepRequest{Pattern: "(?i)NEEDLE", Path: "f.txt"}, "f.txt#3\n  1:\"needle\"\n  2:\"Needle\"\n  3:\"NEEDLE\"\n"},
		{search.GrepRequest{Pattern: "(?-i)Needle", Path: "f.txt", IgnoreCase: true}, "f.txt#1\n  2:\"Needle\"\n"},
		{search.GrepRequest{Pattern: "k", Path: "k.txt", IgnoreCase: true}, "k.txt#3\n  1:\"k\"\n  2:\"K\"\n  3:\"\u212a\"\n"},
		{search.GrepRequest{Pattern: "[a-k]", Path: "k.txt", IgnoreCase: true}, "k.txt#3\n  1:\"k\"\n  2:\"K\"\n  3:\"\u212a\"\n"},
		{search.GrepRequest{Pattern: "strasse", Path: "s.txt", IgnoreCase: true}, "s.txt#2\n  2:\"STRASSE\"\n  3:\"\u017ftrasse\"\n"},
		{search.GrepRequest{Pattern: "STRAßE", Path: "s.txt", IgnoreCase: true}, "s.txt#1\n  1:\"straße\"\n"},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, c.req)); f != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.req, f, c.want)
		}
	}
}

func (s *grepTester) checkRegexp(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"f.txt": "foo_bar\nfoo-bar\ncafé\nfooé\n\u00e9t\u00e9\nabc123\n",
		"l.txt": "caf\xe9\nna\xefve\nplain\n",
	}))
	cases := []struct {
		req  search.GrepRequest
		want string
	}{
		// \w, \b and \d are ASCII (RE2).
		{search.GrepRequest{Pattern: `^\w+$`, Path: "f.txt"}, "f.txt#2\n  1:\"foo_bar\"\n  6:\"abc123\"\n"},
		{search.GrepRequest{Pattern: `foo\b`, Path: "f.txt"}, "f.txt#2\n  2:\"foo-bar\"\n  4:\"fooé\"\n"},
		{search.GrepRequest{Pattern: `\d{3}`, Path: "f.txt"}, "f.txt#1\n  6:\"abc123\"\n"},
		{search.GrepRequest{Pattern: `^\pL+$`, Path: "f.txt"}, "f.txt#3\n  3:\"café\"\n  4:\"fooé\"\n  5:\"été\"\n"},
		{search.GrepRequest{Pattern: `^caf.$`, Path: "f.txt"}, "f.txt#1\n  3:\"café\"\n"},
		// On bytes that are not UTF-8, "." matches one byte.
		{search.GrepRequest{Pattern: `^caf.$`, Path: "l.txt"}, "l.txt#1\n  1:\"caf\\xe9\"\n"},
		{search.GrepRequest{Pattern: `^na[^x]ve$`, Path: "l.txt"}, "l.txt#1\n  2:\"na\\xefve\"\n"},
		{search.GrepRequest{Pattern: `\x{FFFD}`, Path: "l.txt"}, "l.txt#2\n  1:\"caf\\xe9\"\n  2:\"na\\xefve\"\n"},
		{search.GrepRequest{Pattern: `^.{4}$`, Path: "f.txt"}, "f.txt#2\n  3:\"café\"\n  4:\"fooé\"\n"},
		{search.GrepRequest{Pattern: `(?U)o+`, Path: "f.txt"}, "f.txt#3\n  1:\"foo_bar\"\n  2:\"foo-bar\"\n  4:\"fooé\"\n"},
		{search.GrepRequest{Pattern: `a|z`, Path: "f.txt"}, "f.txt#5\n  1:\"foo_bar\"\n  2:\"foo-bar\"\n  3:\"café\"\n  6:\"abc123\"\n  4:\"fooé\"\n"[:0] + "f.txt#4\n  1:\"foo_bar\"\n  2:\"foo-bar\"\n  3:\"café\"\n  6:\"abc123\"\n"},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, c.req)); f != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.req, f, c.want)
		}
	}
}

func (s *grepTester) checkMultiline(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"f.txt":  "zero\nfoo\nbar\nbaz\nfoo\n",
		"g.txt":  "ab\nc\n",
		"h.txt":  "a\nb\n",
		"h2.txt": "a\nb",
	}))
	cases := []struct {
		req  search.GrepRequest
		want string
	}{
		{search.GrepRequest{Pattern: `foo\nbar`, Multiline: true, Path: "f.txt"}, "f.txt#2\n  2:\"foo\"\n  3:\"bar\"\n"},
		{search.GrepRequest{Pattern: `foo\nbar`, Path: "f.txt"}, ""},
		{search.GrepRequest{Pattern: `^ba`, Multiline: true, Path: "f.txt"}, "f.txt#2\n  3:\"bar\"\n  4:\"baz\"\n"},
		{search.GrepRequest{Pattern: `o$`, Multiline: true, Path: "f.txt"}, "f.txt#3\n  1:\"zero\"\n  2:\"foo\"\n  5:\"foo\"\n"},
		{search.GrepRequest{Pattern: `\Afoo`, Multiline: true, Path: "f.txt"}, ""},
		{search.GrepRequest{Pattern: `\Azero`, Multiline: true, Path: "f.txt"}, "f.txt#1\n  1:\"zero\"\n"},
		{search.GrepRequest{Pattern: `bar.baz`, Multiline: true, Path: "f.txt"}, ""},
		{search.GrepRequest{Pattern: `(?s)bar.baz`, Multiline: true, Path: "f.txt"}, "f.txt#2\n  3:\"bar\"\n  4:\"baz\"\n"},
		{search.GrepRequest{Pattern: `FOO\nBAR`, Multiline: true, IgnoreCase: true, Path: "f.txt", After: 1}, "f.txt#2\n  2:\"foo\"\n  3:\"bar\"\n  4-\"baz\"\n"},
		{search.GrepRequest{Pattern: `r\nb`, Multiline: true, Path: "f.txt", Before: 1, After: 1}, "f.txt#2\n  2-\"foo\"\n  3:\"bar\"\n  4:\"baz\"\n  5-\"foo\"\n"},
		// The search resumes where the last match ended, which is then
		// the start of the text, as in ripgrep.
		{search.GrepRequest{Pattern: "a|^b\\nc", Multiline: true, Path: "g.txt"}, "g.txt#2\n  1:\"ab\"\n  2:\"c\"\n"},
		{search.GrepRequest{Pattern: `\n`, Multiline: true, Path: "h.txt"}, "h.txt#2\n  1:\"a\"\n  2:\"b\"\n"},
		{search.GrepRequest{Pattern: `\n`, Multiline: true, Path: "h2.txt"}, "h2.txt#1\n  1:\"a\"\n"},
		{search.GrepRequest{Pattern: `a\n`, Multiline: true, Path: "h.txt"}, "h.txt#1\n  1:\"a\"\n"},
		{search.GrepRequest{Pattern: `\z`, Multiline: true, Path: "h.txt"}, ""},
		{search.GrepRequest{Pattern: `\z`, Multiline: true, Path: "h2.txt"}, "h2.txt#1\n  2:\"b\"\n"},
		{search.GrepRequest{Pattern: `^$`, Multiline: true, Path: "h.txt"}, ""},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, c.req)); f != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.req, f, c.want)
		}
	}
}

func (s *grepTester) checkType(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"a.go":       "needle\n",
		"b.py":       "needle\n",
		"sub/c.go":   "needle\n",
		"d.go.txt":   "needle\n",
		".hidden.go": "needle\n",
		"ign.go":     "needle\n",
		".gitignore": "ign.go\n",
		"Makefile":   "needle\n",
		"x.mk":       "needle\n",
	}))
	checkPaths(t, "Type go", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Type: "go"})), []string{"a.go", "sub/c.go"})
	checkPaths(t, "Type make", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Type: "make"})), []string{"Makefile", "x.mk"})
	checkPaths(t, "Type go Hidden", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Type: "go", Hidden: true})), []string{".hidden.go", "a.go", "sub/c.go"})
	err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Type: "no-such-type"}, func(search.FileResult) bool { return true })
	if err == nil {
		t.Errorf("an unknown type: got no error")
	}
}

func (s *grepTester) checkGlob(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"a.txt":           "needle\n",
		"a.md":            "needle\n",
		"sub/b.txt":       "needle\n",
		"sub/deep/c.txt":  "needle\n",
		"sub/deep/d.go":   "needle\n",
		"other/deep/e.go": "needle\n",
		"vendor/v.txt":    "needle\n",
		"sub/vendor/w.go": "needle\n",
		".h.txt":          "needle\n",
		"ign.txt":         "needle\n",
		".gitignore":      "ign.txt\n",
	}))
	cases := []struct {
		glob string
		want []string
	}{
		{"*.txt", []string{"a.txt", "sub/b.txt", "sub/deep/c.txt", "vendor/v.txt"}},
		{"sub/*.txt", []string{"sub/b.txt"}},
		{"/a.*", []string{"a.md", "a.txt"}},
		{"sub/**", []string{"sub/b.txt", "sub/deep/c.txt", "sub/deep/d.go", "sub/vendor/w.go"}},
		{"**/deep/*.go", []string{"other/deep/e.go", "sub/deep/d.go"}},
		{"*.{go,md}", []string{"a.md", "other/deep/e.go", "sub/deep/d.go", "sub/vendor/w.go"}},
		{"!*.txt", []string{"a.md", "other/deep/e.go", "sub/deep/d.go", "sub/vendor/w.go"}},
		{"!vendor", []string{"a.md", "a.txt", "other/deep/e.go", "sub/b.txt", "sub/deep/c.txt", "sub/deep/d.go"}},
		{"!sub/", []string{"a.md", "a.txt", "other/deep/e.go", "vendor/v.txt"}},
		{"deep", nil},
	}
	for _, c := range cases {
		checkPaths(t, "Glob "+c.glob, paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Glob: c.glob})), c.want)
	}
	checkPaths(t, "Glob and Type", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Glob: "sub/**", Type: "go"})), []string{"sub/deep/d.go", "sub/vendor/w.go"})
	err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Glob: "[a-"}, func(search.FileResult) bool { return true })
	if err == nil {
		t.Errorf("an invalid glob: got no error")
	}
}

// checkExclude: excluded files are never searched, whether the search
// names their directory, the file itself, or matches them with Glob, and
// the rest comes out as without Exclude.
func (s *grepTester) checkExclude(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"a.txt":            "needle\n",
		"certs/server.pem": "needle\n",
		"certs/ca.crt":     "needle\n",
		"deep/x/key.pem":   "needle\n",
		".ssh/id_ed25519":  "needle\n",
		"keys/id_ed25519":  "needle\n",
		"src/main.go":      "needle\n",
	}))
	secrets := []string{"*.pem", "id_ed25519", ".ssh/"}
	cases := []struct {
		req  search.GrepRequest
		want []string
	}{
		{search.GrepRequest{Pattern: "needle", Hidden: true, Exclude: secrets}, []string{"a.txt", "certs/ca.crt", "src/main.go"}},
		{search.GrepRequest{Pattern: "needle", Path: "certs", Exclude: secrets}, []string{"certs/ca.crt"}},
		{search.GrepRequest{Pattern: "needle", Path: "certs/server.pem", Exclude: secrets}, nil},
		{search.GrepRequest{Pattern: "needle", Glob: "*.pem", Exclude: secrets}, nil},
		{search.GrepRequest{Pattern: "needle", Hidden: true, Path: ".ssh", Exclude: secrets}, nil},
		{search.GrepRequest{Pattern: "needle", Exclude: []string{"src/"}}, []string{"a.txt", "certs/ca.crt", "certs/server.pem", "deep/x/key.pem", "keys/id_ed25519"}},
	}
	for _, c := range cases {
		checkPaths(t, fmt.Sprintf("Exclude %q, path %q, glob %q", c.req.Exclude, c.req.Path, c.req.Glob), paths(grepAll(t, g, c.req)), c.want)
	}
	err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Exclude: []string{"[a-"}}, func(search.FileResult) bool { return true })
	if err == nil {
		t.Errorf("an invalid exclude pattern: got no error")
	}
}

func (s *grepTester) checkPath(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		".gitignore":        "*.log\nignored-dir/\n",
		"sub/a.txt":         "needle\n",
		"sub/a.log":         "needle\n",
		"sub/.gitignore":    "b.txt\n",
		"sub/b.txt":         "needle\n",
		"sub/deep/b.txt":    "needle\n",
		"sub/deep/c.txt":    "needle\n",
		"subway/x.txt":      "needle\n",
		"top.txt":           "needle\n",
		"top.log":           "needle\n",
		".config/x.txt":     "needle\n",
		".config/.y.txt":    "needle\n",
		"ignored-dir/i.txt": "needle\n",
		"ignored-dir/j.log": "needle\n",
	}))
	cases := []struct {
		path string
		want []string
	}{
		{"sub", []string{"sub/a.txt", "sub/deep/c.txt"}},
		{"sub/", []string{"sub/a.txt", "sub/deep/c.txt"}},
		{"./sub/deep", []string{"sub/deep/c.txt"}},
		{"sub/a.txt", []string{"sub/a.txt"}},
		{"top.log", []string{"top.log"}}, // named explicitly: searched though ignored
		{".config", []string{".config/x.txt"}},
		{"ignored-dir", []string{"ignored-dir/i.txt"}},
		{".", []string{"sub/a.txt", "sub/deep/c.txt", "subway/x.txt", "top.txt"}},
	}
	for _, c := range cases {
		checkPaths(t, "Path "+c.path, paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Path: c.path})), c.want)
	}
	checkPaths(t, "a file Path with a Type that excludes it", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Path: "top.txt", Type: "go"})), nil)
	for _, bad := range []string{"nope", "sub/nope.txt", "../x", "/etc", "sub/../../x"} {
		err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Path: bad}, func(r search.FileResult) bool {
			t.Errorf("Path %q: emitted %s", bad, r.Path)
			return true
		})
		if err == nil {
			t.Errorf("Path %q: got no error", bad)
		}
	}
}

func (s *grepTester) checkSymlinks(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"real/a.txt":           "needle\n",
		"real.txt":             "needle\n",
		"link.txt -> real.txt": "",
		"linkdir -> real":      "",
		"dangling -> nowhere":  "",
		"out -> /etc":          "",
	}))
	checkPaths(t, "links are not followed", paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Hidden: true, NoIgnore: true})), []string{"real.txt", "real/a.txt"})
	for _, p := range []string{"linkdir", "link.txt", "linkdir/a.txt", "out"} {
		err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Path: p}, func(r search.FileResult) bool {
			t.Errorf("Path %q: emitted %s", p, r.Path)
			return true
		})
		if err == nil {
			t.Errorf("Path %q through a symbolic link: got no error", p)
		}
	}
}

func (s *grepTester) checkPatternsLikeFlags(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"f.txt":     "--pre=cmd\n-e\n--files\nplain\n",
		"--pre=cmd": "--pre=cmd\n",
		"-e":        "-e\n",
		"-d/g.txt":  "--pre=cmd\n",
	}))
	cases := []struct {
		pattern string
		want    string
	}{
		{"--pre=cmd", "--pre=cmd#1\n  1:\"--pre=cmd\"\n" + "-d/g.txt#1\n  1:\"--pre=cmd\"\n" + "f.txt#1\n  1:\"--pre=cmd\"\n"},
		{"-e", "-e#1\n  1:\"-e\"\n" + "f.txt#1\n  2:\"-e\"\n"},
		{"--files", "f.txt#1\n  3:\"--files\"\n"},
	}
	for _, c := range cases {
		if f := format(grepAll(t, g, search.GrepRequest{Pattern: c.pattern})); f != c.want {
			t.Errorf("pattern %q:\n got %s\nwant %s", c.pattern, f, c.want)
		}
	}
	checkPaths(t, "Path -e", paths(grepAll(t, g, search.GrepRequest{Pattern: "e", Path: "-e"})), []string{"-e"})
	checkPaths(t, "Path -d", paths(grepAll(t, g, search.GrepRequest{Pattern: "e", Path: "-d"})), []string{"-d/g.txt"})
	checkPaths(t, "Glob --pre=cmd", paths(grepAll(t, g, search.GrepRequest{Pattern: "e", Glob: "--pre=cmd"})), []string{"--pre=cmd"})
}

func (s *grepTester) checkInvalidPattern(t *testing.T) {
	g := s.newBackend(newTree(t, tree{"f.txt": "needle\n"}))
	// Syntax RE2 rejects, some of which other engines accept.
	for _, p := range []string{"(", "a{1001}", `(?<=a)b`, `a++`, `\p{NoSuchClass}`, `(?P<n>a)\k<n>`, `\1`, `[z-a]`} {
		called := false
		err := g.Grep(context.Background(), search.GrepRequest{Pattern: p}, func(search.FileResult) bool {
			called = true
			return true
		})
		if err == nil || called {
			t.Errorf("pattern %q: got error %v, emitted %v; want an error and nothing emitted", p, err, called)
		}
	}
	err := g.Grep(context.Background(), search.GrepRequest{Pattern: "a", Before: -1}, func(search.FileResult) bool { return true })
	if err == nil {
		t.Errorf("negative context: got no error")
	}
}

func (s *grepTester) checkCancel(t *testing.T) {
	files := tree{}
	for i := range 50 {
		files[fmt.Sprintf("f%02d.txt", i)] = "needle\n"
	}
	g := s.newBackend(newTree(t, files))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.Grep(ctx, search.GrepRequest{Pattern: "needle"}, func(search.FileResult) bool {
		t.Errorf("emitted under a cancelled context")
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: got %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err = g.Grep(ctx, search.GrepRequest{Pattern: "needle"}, func(search.FileResult) bool {
		n++
		cancel()
		return true
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled while emitting: got %v after %d results, want context.Canceled after 1", err, n)
	}
}

func (s *grepTester) checkConcurrent(t *testing.T) {
	g := s.newBackend(newTree(t, ignoreTree))
	want := format(grepAll(t, g, search.GrepRequest{Pattern: "needle", Before: 1}))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got []search.FileResult
			err := g.Grep(context.Background(), search.GrepRequest{Pattern: "needle", Before: 1}, func(r search.FileResult) bool {
				got = append(got, r)
				return true
			})
			if err != nil {
				t.Error(err)
			} else if f := format(got); f != want {
				t.Errorf("concurrent search:\n got %s\nwant %s", f, want)
			}
		}()
	}
	wg.Wait()
}

// TestGlobber runs the glob conformance suite. newBackend returns a
// backend listing the tree at root; it is called once per case.
func TestGlobber(t *testing.T, newBackend func(root string) search.Globber) {
	runChecks(t, (&globTester{newBackend: newBackend}).checks())
}

// globTester holds the glob suite: each check method is one subtest.
type globTester struct {
	newBackend func(root string) search.Globber
}

func (s *globTester) checks() []check {
	return []check{
		{"Order", s.checkOrder},
		{"Limits", s.checkLimits},
		{"Patterns", s.checkPatterns},
		{"Ignore", s.checkIgnore},
		{"IgnoreAboveRoot", s.checkIgnoreAboveRoot},
		{"HiddenAndGit", s.checkHiddenAndGit},
		{"Symlinks", s.checkSymlinks},
		{"Cancel", s.checkCancel},
	}
}

func (s *globTester) checkOrder(t *testing.T) {
	g := s.newBackend(newTree(t, orderTree))
	checkPaths(t, "glob **", globAll(t, g, search.GlobRequest{Pattern: "**"}), orderWant())
}

func (s *globTester) checkLimits(t *testing.T) {
	g := s.newBackend(newTree(t, orderTree))
	want := orderWant()
	for n := 1; n <= len(want); n++ {
		var got []string
		stopped := false
		err := g.Glob(context.Background(), search.GlobRequest{Pattern: "**"}, func(p string) bool {
			if stopped {
				t.Errorf("limit %d: emit called after it returned false (%s)", n, p)
			}
			got = append(got, p)
			stopped = len(got) == n
			return !stopped
		})
		if err != nil {
			t.Fatalf("limit %d: %v", n, err)
		}
		checkPaths(t, fmt.Sprintf("first %d", n), got, want[:n])
	}
}

func (s *globTester) checkPatterns(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"a.go":        "",
		"b.md":        "",
		"sub/c.go":    "",
		"sub/d/e.go":  "",
		"sub/d/f.txt": "",
		"x/sub/g.go":  "",
		"bin.dat":     "\x00\x01",
		"empty/":      "",
		"[br].txt":    "",
		"-e":          "",
		"--pre=cmd":   "",
		"-d/x.go":     "",
	}))
	cases := []struct {
		pattern, path string
		want          []string
	}{
		{"**/*.go", "", []string{"-d/x.go", "a.go", "sub/c.go", "sub/d/e.go", "x/sub/g.go"}},
		{"*.go", "", []string{"a.go"}},
		{"*", "", []string{"--pre=cmd", "-e", "[br].txt", "a.go", "b.md", "bin.dat"}},
		{"*.go", "-d", []string{"-d/x.go"}},
		{"**/x.go", "", []string{"-d/x.go"}},
		{"**", "sub", []string{"sub/c.go", "sub/d/e.go", "sub/d/f.txt"}},
		{"*.go", "sub", []string{"sub/c.go"}},
		{"d/*", "sub", []string{"sub/d/e.go", "sub/d/f.txt"}},
		{"*/*.go", "", []string{"-d/x.go", "sub/c.go"}},
		{"sub/**/*.go", "", []string{"sub/c.go", "sub/d/e.go"}},
		{"**/sub/*.go", "", []string{"sub/c.go", "x/sub/g.go"}},
		{"*.{go,md}", "", []string{"a.go", "b.md"}},
		{"**/*.{txt,dat}", "", []string{"[br].txt", "bin.dat", "sub/d/f.txt"}},
		{`\[br\].txt`, "", []string{"[br].txt"}},
		{"-e", "", []string{"-e"}},
		{"--pre=cmd", "", []string{"--pre=cmd"}},
		{"./a.go", "", []string{"a.go"}},
		{"*.go", "sub/c.go", []string{"sub/c.go"}},
		{"*.md", "sub/c.go", nil},
		{"empty/**", "", nil},
	}
	for _, c := range cases {
		checkPaths(t, fmt.Sprintf("Glob %q in %q", c.pattern, c.path), globAll(t, g, search.GlobRequest{Pattern: c.pattern, Path: c.path}), c.want)
	}
	for _, bad := range []string{"[", "", "/abs/*.go", "{a,b"} {
		err := g.Glob(context.Background(), search.GlobRequest{Pattern: bad}, func(p string) bool {
			t.Errorf("pattern %q: emitted %s", bad, p)
			return true
		})
		if err == nil {
			t.Errorf("pattern %q: got no error", bad)
		}
	}
	for _, bad := range []string{"nope", "../x", "/etc"} {
		err := g.Glob(context.Background(), search.GlobRequest{Pattern: "**", Path: bad}, func(p string) bool {
			t.Errorf("Path %q: emitted %s", bad, p)
			return true
		})
		if err == nil {
			t.Errorf("Path %q: got no error", bad)
		}
	}
}

func (s *globTester) checkIgnore(t *testing.T) {
	g := s.newBackend(newTree(t, ignoreTree))
	checkPaths(t, "with .gitignore", globAll(t, g, search.GlobRequest{Pattern: "**"}), ignoreWant)
	var all []string
	for k := range ignoreTree {
		if !strings.HasPrefix(k, ".") && !strings.Contains(k, "/.") {
			all = append(all, k)
		}
	}
	checkPaths(t, "NoIgnore", globAll(t, g, search.GlobRequest{Pattern: "**", NoIgnore: true}), sorted(all))
	var withHidden []string
	for _, p := range ignoreWant {
		withHidden = append(withHidden, p)
	}
	withHidden = append(withHidden, ".gitignore", "nested/.gitignore", "sub/.gitignore")
	checkPaths(t, "Hidden", globAll(t, g, search.GlobRequest{Pattern: "**", Hidden: true}), sorted(withHidden))
	checkPaths(t, "Path below ignore rules", globAll(t, g, search.GlobRequest{Pattern: "**", Path: "sub"}),
		[]string{"sub/app.log", "sub/build/x.txt", "sub/deeper/only-here.txt", "sub/out"})
}

func (s *globTester) checkIgnoreAboveRoot(t *testing.T) {
	outer := t.TempDir()
	writeTree(t, outer, tree{
		".gitignore":      "*.txt\ninner/\n",
		"inner/a.txt":     "",
		"inner/.ignore":   "b.txt\n",
		"inner/b.txt":     "",
		"inner/.fdignore": "c.txt\n",
		"inner/c.txt":     "",
		"inner/.rgignore": "d.txt\n",
		"inner/d.txt":     "",
	})
	g := s.newBackend(filepath.Join(outer, "inner"))
	checkPaths(t, "only .gitignore files below the root apply", globAll(t, g, search.GlobRequest{Pattern: "**"}), []string{"a.txt", "b.txt", "c.txt", "d.txt"})
}

func (s *globTester) checkHiddenAndGit(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		".hidden.txt": "",
		".dir/x.txt":  "",
		"vis.txt":     "",
		".git/config": "",
		"sub/.git":    "",
		"sub/s.txt":   "",
		"d/.git/x":    "",
		"d/y":         "",
	}))
	checkPaths(t, "default", globAll(t, g, search.GlobRequest{Pattern: "**"}), []string{"d/y", "sub/s.txt", "vis.txt"})
	checkPaths(t, "Hidden NoIgnore", globAll(t, g, search.GlobRequest{Pattern: "**", Hidden: true, NoIgnore: true}),
		[]string{".dir/x.txt", ".hidden.txt", "d/y", "sub/s.txt", "vis.txt"})
	checkPaths(t, "a hidden Path", globAll(t, g, search.GlobRequest{Pattern: "*", Path: ".dir"}), []string{".dir/x.txt"})
}

func (s *globTester) checkSymlinks(t *testing.T) {
	g := s.newBackend(newTree(t, tree{
		"real/a.txt":           "",
		"real.txt":             "",
		"link.txt -> real.txt": "",
		"linkdir -> real":      "",
		"dangling -> nowhere":  "",
	}))
	checkPaths(t, "links are not listed", globAll(t, g, search.GlobRequest{Pattern: "**", Hidden: true, NoIgnore: true}), []string{"real.txt", "real/a.txt"})
	err := g.Glob(context.Background(), search.GlobRequest{Pattern: "**", Path: "linkdir"}, func(p string) bool {
		t.Errorf("Path through a link: emitted %s", p)
		return true
	})
	if err == nil {
		t.Errorf("Path through a symbolic link: got no error")
	}
}

func (s *globTester) checkCancel(t *testing.T) {
	files := tree{}
	for i := range 50 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%5, i)] = ""
	}
	g := s.newBackend(newTree(t, files))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.Glob(ctx, search.GlobRequest{Pattern: "**"}, func(string) bool {
		t.Errorf("emitted under a cancelled context")
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: got %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	n := 0
	err = g.Glob(ctx, search.GlobRequest{Pattern: "**"}, func(string) bool {
		n++
		cancel()
		return true
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled while emitting: got %v after %d paths, want context.Canceled after 1", err, n)
	}
}

// checkGlobAgrees: ignore rules and hidden files are defined once, so a
// backend that also lists files (a search.Globber) lists, with the same
// options, the files that Grep searches. Every file of these trees holds
// the pattern.
func (s *grepTester) checkGlobAgrees(t *testing.T) {
	for name, files := range map[string]tree{"order": orderTree, "ignore": ignoreTree} {
		g := s.newBackend(newTree(t, files))
		gl, ok := g.(search.Globber)
		if !ok {
			t.Skipf("%T is not a search.Globber", g)
		}
		for _, hidden := range []bool{false, true} {
			grepped := paths(grepAll(t, g, search.GrepRequest{Pattern: "needle", Hidden: hidden}))
			listed := globAll(t, gl, search.GlobRequest{Pattern: "**", Hidden: hidden})
			listed = slices.DeleteFunc(listed, func(p string) bool { return !strings.Contains(files[p], "needle") })
			checkPaths(t, fmt.Sprintf("%s tree, Hidden %v: files globbed", name, hidden), listed, grepped)
		}
	}
}
