package search

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	// Cases from gitignore(5) and git's t3070-wildmatch, checked with
	// WM_PATHNAME (pathname) and without.
	cases := []struct {
		pattern, text  string
		pathname, want bool
	}{
		{"foo", "foo", true, true},
		{"foo", "bar", true, false},
		{"", "", true, true},
		{"???", "foo", true, true},
		{"??", "foo", true, false},
		{"*", "foo", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", true, false},
		{"*foo*", "foo", true, true},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{`foo\*`, "foo*", true, true},
		{`foo\*bar`, "foobar", true, false},
		{`f\\oo`, `f\oo`, true, true},
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", true, false},
		{"**[!te]", "ten", true, true},
		{"**[!ten]", "ten", true, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", true, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "a]b", true, true},
		{"a[]-]b", "aab", true, false},
		{"a[]a-]b", "aab", true, true},
		{"]", "]", true, true},
		{"foo*bar", "foo/baz/bar", true, false},
		{"foo**bar", "foo/baz/bar", true, false},
		{"foo**bar", "foobazbar", true, true},
		{"foo/**/bar", "foo/baz/bar", true, true},
		{"foo/**/**/bar", "foo/baz/bar", true, true},
		{"foo/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/bar", "foo/bar", true, true},
		{"foo/**/**/bar", "foo/bar", true, true},
		{"foo?bar", "foo/bar", true, false},
		{"foo[/]bar", "foo/bar", true, false},
		{"foo[^a-z]bar", "foo/bar", true, false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", true, false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
		{"**/foo", "foo", true, true},
		{"**/foo", "XXX/foo", true, true},
		{"**/foo", "bar/baz/foo", true, true},
		{"*/foo", "bar/baz/foo", true, false},
		{"**/bar*", "foo/bar/baz", true, false},
		{"**/bar/*", "deep/foo/bar/baz", true, true},
		{"**/bar/*", "deep/foo/bar/baz/", true, false},
		{"**/bar/**", "deep/foo/bar/baz/", true, true},
		{"**/bar/*", "deep/foo/bar", true, false},
		{"**/bar/**", "deep/foo/bar/", true, true},
		{"**/bar**", "foo/bar/baz", true, false},
		{"*/bar/**", "deep/foo/bar/baz/x", true, false},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/x/y/b", true, true},
		{"a/**", "a/x/y", true, true},
		{"a/**", "a", true, false},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
		{"[[:digit:][:upper:][:space:]]", "a", true, false},
		{"[[:digit:][:upper:][:space:]]", "A", true, true},
		{"[[:digit:][:upper:][:space:]]", " ", true, true},
		{"[[:digit:][:punct:][:space:]]", ".", true, true},
		{"[[:xdigit:]]", "f", true, true},
		{"[[:nope:]]", "a", true, false},
		{"[a-c[:digit:]x-z]", "5", true, true},
		{"[a-c[:digit:]x-z]", "y", true, true},
		{"[a-c[:digit:]x-z]", "q", true, false},
		{"[", "[", true, false},
		{"[!", "[!", true, false},
		{"a[", "a[", true, false},
		{`\`, `\`, true, false},
		{"*/*", "a/b", true, true},
		{"*", "a/b", true, false},
		{"*", "a/b", false, true},
		{"?", "/", false, true},
		{"a*b", "a/x/b", false, true},
		{"[/]", "/", false, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", true, false},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", true, false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
	}
	for _, c := range cases {
		if got := wildmatch(c.pattern, c.text, c.pathname); got != c.want {
			t.Errorf("wildmatch(%q, %q, pathname=%v) = %v, want %v", c.pattern, c.text, c.pathname, got, c.want)
		}
	}
}

func TestCompareEntries(t *testing.T) {
	entries := []dirEntry{
		{"a", kindDir}, {"a-b", kindFile}, {"a.txt", kindFile}, {"a0", kindFile},
		{"A", kindFile}, {"é", kindFile}, {"b", kindDir}, {"b.c", kindFile}, {"ab", kindFile},
	}
	slices.SortFunc(entries, compareEntries)
	var got []string
	for _, e := range entries {
		n := e.name
		if e.kind == kindDir {
			n += "/"
		}
		got = append(got, n)
	}
	want := sortedStrings(got)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (byte order with a directory as name/)", got, want)
	}
}

func sortedStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestParseGitignore(t *testing.T) {
	data := "\xef\xbb\xbf# comment\n\n*.log\r\n!keep.log\n/anchored\nmid/dle\ndir/\n  lead\ntrail   \nesc\\ \nesc2\\  \ntab\t\n\\#hash\n\\!bang\n!\n/\n"
	var got []string
	for _, p := range parseGitignore([]byte(data)) {
		got = append(got, fmt.Sprintf("%q neg=%v dir=%v base=%v", p.pattern, p.negate, p.dirOnly, p.base))
	}
	want := []string{
		`"*.log" neg=false dir=false base=true`,
		`"keep.log" neg=true dir=false base=true`,
		`"anchored" neg=false dir=false base=false`,
		`"mid/dle" neg=false dir=false base=false`,
		`"dir" neg=false dir=true base=true`,
		`"  lead" neg=false dir=false base=true`,
		`"trail" neg=false dir=false base=true`,
		`"esc\\ " neg=false dir=false base=true`,
		`"esc2\\ " neg=false dir=false base=true`,
		"\"tab\\t\" neg=false dir=false base=true",
		`"\\#hash" neg=false dir=false base=true`,
		`"\\!bang" neg=false dir=false base=true`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseGitignore:\n got %q\nwant %q", got, want)
	}
}

// gitCase is a tree and the .gitignore files in it.
type gitCase struct {
	name  string
	files map[string]string // path → content; .gitignore files included
}

var gitCases = []gitCase{
	{"basics", map[string]string{
		".gitignore": "*.log\n!keep.log\n/root-only\ndir/\nsub/*.txt\n# comment\n\n",
		"a.log":      "", "keep.log": "", "x/a.log": "", "x/keep.log": "",
		"root-only": "", "x/root-only": "",
		"dir/f": "", "x/dir/f": "", "x/dir2/f": "", "dirfile": "",
		"sub/a.txt": "", "sub/b.md": "", "sub/deep/a.txt": "", "x/sub/a.txt": "",
	}},
	{"negation inside ignored dir", map[string]string{
		".gitignore":     "build/\n!build/keep.txt\nout/*\n!out/keep.txt\n",
		"build/keep.txt": "", "build/x.txt": "",
		"out/keep.txt": "", "out/x.txt": "", "out/sub/keep.txt": "",
	}},
	{"nested overrides", map[string]string{
		".gitignore":     "*.tmp\nsecret*\n!secret.pub\n",
		"a/.gitignore":   "!*.tmp\n/local\n",
		"a/b/.gitignore": "*.tmp\n!x.tmp\n",
		"x.tmp":          "", "a/x.tmp": "", "a/b/x.tmp": "", "a/b/y.tmp": "", "a/b/c/z.tmp": "",
		"secret": "", "secret.pub": "", "a/secret.key": "", "a/local": "", "a/b/local": "", "local": "",
	}},
	{"double star", map[string]string{
		".gitignore": "**/logs\n**/cache/*.bin\nfoo/**\na/**/b\n**/x/**/y\nq**r\n***z\n/m**/*\nn**/o\n",
		"m.log":      "", "mx/y": "", "n/o": "", "nn/p/o": "", "no": "",
		"logs/1": "", "p/logs/2": "", "logs.txt": "",
		"cache/a.bin": "", "p/cache/b.bin": "", "p/cache/q/c.bin": "",
		"foo/a": "", "foo/b/c": "", "fo": "", "fooo/x": "",
		"a/b": "", "a/m/n/b": "", "a/bb": "", "z/a/b": "",
		"x/y": "", "x/m/y": "", "k/x/y": "",
		"qr": "", "q1r": "", "q/r": "", "qdir/r": "",
		"zz": "", "az": "", "d/az": "",
	}},
	{"escapes and spaces", map[string]string{
		".gitignore": "\\#hash\n\\!bang\nsp\\ ace\ntrail   \nesc\\  \ntab\t\nstar\\*\nq\\?\n",
		"#hash":      "", "!bang": "", "sp ace": "", "trail": "", "trail ": "", "esc ": "", "esc": "",
		"tab\t": "", "tab": "", "star*": "", "starx": "", "q?": "", "qx": "",
	}},
	{"sets", map[string]string{
		".gitignore": "*.py[cod]\n[!a]x\nb[^0-9]\n[[:digit:]]*.n\nk[]]\nr[a-c]z\n*.sw?\n",
		"m.pyc":      "", "m.pyd": "", "m.py": "", "m.pyx": "",
		"ax": "", "bx": "", "cx": "", "b1": "", "bq": "", "1.n": "", "x.n": "",
		"k]": "", "kk": "", "rbz": "", "rdz": "", "f.swp": "", "f.sw": "",
	}},
	{"directories only", map[string]string{
		".gitignore": "d/\n*.dir/\n/top/\nx/y/\n",
		"d/f":        "", "p/d/f": "", "e/d": "", "a.dir/f": "", "a.dir2": "", "top/f": "", "p/top/f": "",
		"x/y/f": "", "p/x/y/f": "", "x/yy/f": "",
	}},
	{"crlf, bom", map[string]string{
		".gitignore": "\xef\xbb\xbfbom\r\ncrlf\r\n",
		"bom":        "", "crlf": "", "crlf\r": "", "other": "",
	}},
	{"star slash", map[string]string{
		".gitignore": "*/\n!keep/\n",
		"f":          "", "d/f": "", "keep/f": "", "keep/d/f": "",
	}},
	{"anchored in subdir", map[string]string{
		"s/.gitignore": "/a\nb/c\n**/d\ne/\n",
		"a":            "", "s/a": "", "s/t/a": "", "s/b/c": "", "s/t/b/c": "", "b/c": "",
		"s/d": "", "s/t/d": "", "d": "", "s/e/f": "", "s/t/e/f": "",
	}},
	{"hidden", map[string]string{
		".gitignore": ".env\n!.env.example\n.cache/\n",
		".env":       "", ".env.example": "", ".cache/x": "", ".config/y": "", "a/.env": "",
	}},
	{"unusual names", map[string]string{
		".gitignore": "*\\\\*\n[*]\n",
		"a\\b":       "", "ab": "", "*": "", "x*": "", "é": "", "éé/x": "", "with space/x y": "",
	}},
}

// gitListing runs git ls-files -o --exclude-standard in a fresh
// repository at root: the files git would add, in git's order.
func gitListing(t *testing.T, root string) []string {
	t.Helper()
	home := t.TempDir()
	run := func(args ...string) []byte {
		cmd := exec.Command("git", append([]string{"-c", "core.excludesFile=/dev/null", "-c", "core.quotePath=false"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return out
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		run("init", "-q")
		// An empty info/exclude: only .gitignore files count.
		os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), nil, 0o644)
	}
	out := run("ls-files", "-z", "-o", "--exclude-standard")
	var files []string
	for p := range bytes.SplitSeq(out, []byte{0}) {
		if len(p) > 0 {
			files = append(files, string(p))
		}
	}
	return files
}

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found; the ignore rules are compared with git's: apt-get install git")
	}
}

// ourListing lists root the way every backend sees it, with hidden files
// (git lists them).
func ourListing(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := NewNative(root).Glob(context.Background(), GlobRequest{Pattern: "**", Hidden: true}, func(p string) bool {
		got = append(got, p)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIgnoreRulesMatchGit(t *testing.T) {
	requireGit(t)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, c.files)
			want := gitListing(t, root)
			got := ourListing(t, root)
			if !slices.Equal(got, want) {
				t.Errorf("listing differs from git ls-files -o --exclude-standard:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// Pattern fragments for random .gitignore files: all of them, and those
// ripgrep reads as git does.
var (
	allFrags  = []string{"a", "b", "*", "**", "?", "[ab]", "[!a]", ".txt", ".log", "x", "é", "\\*", " ", "-", "a**", "**b", "\\ ", "[[:alpha:]]", "\\"}
	safeFrags = []string{"a", "b", "*", ".txt", ".log", "x", "-", "[ab]", "[!a]", "\\*"}
)

// randomTrees makes n random trees with random .gitignore files built
// from frags. A seed (SEARCH_TEST_SEED) always makes the same trees;
// SEARCH_TEST_N overrides n.
func randomTrees(n int, salt uint64, frags []string) []map[string]string {
	if s := os.Getenv("SEARCH_TEST_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	seed := uint64(1)
	if s := os.Getenv("SEARCH_TEST_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	names := []string{"a", "b", "ab", "a.txt", "b.log", "c.md", ".h", "x y", "a-b", "A", "[a]", "d.d"}
	safe := len(frags) != len(allFrags)
	if !safe {
		names = append(names, "é")
	}
	rng := rand.New(rand.NewPCG(seed, salt))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	randPattern := func() string {
		var b strings.Builder
		if rng.IntN(5) == 0 {
			b.WriteString("!")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		parts := 1 + rng.IntN(3)
		for i := range parts {
			if i > 0 {
				b.WriteString("/")
			}
			if safe && rng.IntN(4) == 0 {
				b.WriteString("**") // only as a whole component
				continue
			}
			for range 1 + rng.IntN(2) {
				f := pick(frags)
				for safe && f == "**" {
					f = pick(frags)
				}
				b.WriteString(f)
			}
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		return b.String()
	}
	var trees []map[string]string
	for range n {
		// Everything is drawn in a fixed order, never from map order.
		files := map[string]string{}
		var paths []string
		for range 12 + rng.IntN(12) {
			var parts []string
			for range 1 + rng.IntN(3) {
				parts = append(parts, pick(names))
			}
			p := strings.Join(parts, "/")
			clash := false
			for _, q := range paths {
				if q == p || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
					clash = true
				}
			}
			if !clash {
				paths = append(paths, p)
				files[p] = ""
			}
		}
		dirSet := map[string]bool{"": true}
		for _, p := range paths {
			for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
				dirSet[d] = true
			}
		}
		for _, d := range slices.Sorted(maps.Keys(dirSet)) {
			if rng.IntN(3) != 0 && d != "" {
				continue
			}
			var lines []string
			for range 1 + rng.IntN(4) {
				lines = append(lines, randPattern())
			}
			name := filepath.Join(d, ".gitignore")
			if _, isFile := files[name]; !isFile && !dirSet[name] {
				files[name] = strings.Join(lines, "\n") + "\n"
			}
		}
		trees = append(trees, files)
	}
	return trees
}

func describeIgnores(files map[string]string) string {
	var ign []string
	for p, c := range files {
		if strings.HasSuffix(p, ".gitignore") {
			ign = append(ign, fmt.Sprintf("%s: %q", p, c))
		}
	}
	slices.Sort(ign)
	return strings.Join(ign, "\n")
}

// TestIgnoreRulesMatchGitRandom compares random trees and .gitignore
// files with git.
func TestIgnoreRulesMatchGitRandom(t *testing.T) {
	requireGit(t)
	n := 40
	if testing.Short() {
		n = 12
	}
	for i, files := range randomTrees(n, 2, allFrags) {
		root := t.TempDir()
		writeFiles(t, root, files)
		want := gitListing(t, root)
		got := ourListing(t, root)
		if !slices.Equal(got, want) {
			t.Errorf("case %d: listing differs from git:\n got %q\nwant %q\nignore files:\n%s", i, got, want, describeIgnores(files))
		}
	}
}
