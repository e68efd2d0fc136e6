package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

func requireRg(t testing.TB) *Ripgrep {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep (rg) not found; apt-get install ripgrep")
	}
	rg, err := NewRipgrep(".")
	if err != nil {
		t.Fatal(err)
	}
	return rg
}

// rgListing greps every file of root (each holds "x") with the ripgrep
// backend and reports whether it handed the search to the native one.
func rgListing(t *testing.T, root string, req GrepRequest) (files []string, fellBack bool) {
	t.Helper()
	rg := requireRg(t)
	rg.root = root
	rg.native = NewNative(root)
	before := stats.RipgrepFallbacks.Load()
	err := rg.Grep(context.Background(), req, func(r FileResult) bool {
		files = append(files, r.Path)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, stats.RipgrepFallbacks.Load() != before
}

func fillX(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		if c == "" {
			c = "x\n"
		}
		out[p] = c
	}
	return out
}

// TestRipgrepRulesAgainstGit checks that the ripgrep backend's choice of
// files is git's, and that rg, not the native backend, searched them.
func TestRipgrepRulesAgainstGit(t *testing.T) {
	requireGit(t)
	requireRg(t)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, fillX(c.files))
			want := gitListing(t, root)
			// .gitignore files hold "x" only if they say so; git lists
			// them, grep does not.
			var wantGrep []string
			for _, p := range want {
				if data, _ := os.ReadFile(filepath.Join(root, p)); strings.Contains(string(data), "x") {
					wantGrep = append(wantGrep, p)
				}
			}
			got, fellBack := rgListing(t, root, GrepRequest{Pattern: "x", Hidden: true})
			if !slices.Equal(got, wantGrep) {
				t.Errorf("fell back %v; files differ from git's:\n got %q\nwant %q", fellBack, got, wantGrep)
			}
			if fellBack {
				t.Errorf("handed the tree to the native backend")
			}
		})
	}
}

// TestRipgrepRulesRandom compares the ripgrep backend with the native one
// on random trees and .gitignore files.
func TestRipgrepRulesRandom(t *testing.T) {
	requireRg(t)
	n := 24
	if testing.Short() {
		n = 8
	}
	fellBack := 0
	trees := append(randomTrees(n, 5, safeFrags), randomTrees(n/2, 6, allFrags)...)
	for i, files := range trees {
		root := t.TempDir()
		writeFiles(t, root, fillX(files))
		for _, hidden := range []bool{false, true} {
			req := GrepRequest{Pattern: "x", Hidden: hidden}
			want := collect(t, NewNative(root), req)
			got, fb := rgListing(t, root, req)
			if fb {
				fellBack++
			}
			var gotS strings.Builder
			for _, p := range got {
				gotS.WriteString(p + "\n")
			}
			var wantS strings.Builder
			for _, l := range strings.Split(want, "\n") {
				if p, _, ok := strings.Cut(l, "#"); ok && !strings.HasPrefix(l, " ") {
					wantS.WriteString(p + "\n")
				}
			}
			if gotS.String() != wantS.String() {
				t.Errorf("case %d (Hidden %v, fell back %v):\nripgrep %q\nnative  %q\n%s", i, hidden, fb, gotS.String(), wantS.String(), describeIgnores(files))
			}
		}
	}
	t.Logf("%d of %d searches handed to the native backend", fellBack, 2*len(trees))
	if fellBack > len(trees) {
		t.Errorf("%d of %d searches handed to the native backend: rg is hardly tested", fellBack, 2*len(trees))
	}
}

// TestRipgrepOddRules checks trees whose rules rg would read otherwise
// than git if it walked them: rg searches the files the shared walk
// chose, so the ripgrep backend answers them itself, as native does.
func TestRipgrepOddRules(t *testing.T) {
	requireRg(t)
	cases := []struct {
		name  string
		files map[string]string
	}{
		{"plain", map[string]string{".gitignore": "*.log\n/build/\n", "a": "", "b/c.log": ""}},
		{"rgignore", map[string]string{".rgignore": "a\n", "a": ""}},
		{"rgignore deep", map[string]string{"d/e/.rgignore": "a\n", "d/e/a": ""}},
		{"rgignore in an ignored dir", map[string]string{".gitignore": "d/\n", "d/.rgignore": "a\n", "d/a": "", "b": ""}},
		{"braces", map[string]string{".gitignore": "*.{a,b}\n", "x.a": "", "x.{a,b}": ""}},
		{"trailing tab", map[string]string{".gitignore": "a\t\n", "a": "", "a\t": ""}},
		{"sets on ASCII names", map[string]string{".gitignore": "*.py[cod]\n*.sw?\n", "a.pyc": "", "b.py": ""}},
		{"sets on other names", map[string]string{".gitignore": "caf?\n", "café": "", "cafe": ""}},
		{"odd double star", map[string]string{".gitignore": "a**b\n", "axb": "", "a/b": ""}},
		{"gitignore symlink", map[string]string{"real": "a\n", "a": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, fillX(c.files))
			if c.name == "gitignore symlink" {
				if err := os.Symlink("real", filepath.Join(root, ".gitignore")); err != nil {
					t.Fatal(err)
				}
			}
			got, fellBack := rgListing(t, root, GrepRequest{Pattern: "x"})
			if fellBack {
				t.Errorf("handed the tree to the native backend")
			}
			var want []string
			err := NewNative(root).Grep(context.Background(), GrepRequest{Pattern: "x"}, func(r FileResult) bool {
				want = append(want, r.Path)
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("results differ from native:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestRipgrepPathRules checks a Path below the root: the rules of its
// parents apply, and stop at a repository.
func TestRipgrepPathRules(t *testing.T) {
	requireRg(t)
	cases := []struct {
		name     string
		files    map[string]string
		path     string
		fallBack bool
	}{
		{"parents", map[string]string{".gitignore": "*.log\n/sub/deep/x\nsub/[ab].txt\n", "sub/.gitignore": "!keep.log\n",
			"sub/a.log": "", "sub/keep.log": "", "sub/deep/x": "", "sub/deep/y": "", "sub/a.txt": "", "sub/c.txt": ""}, "sub", false},
		{"deeper start", map[string]string{".gitignore": "*.log\n", "a/.gitignore": "/b/c/skip\n!b/c/*.log\n",
			"a/b/c/skip": "", "a/b/c/x.log": "", "a/b/c/y": ""}, "a/b/c", false},
		{"start is a repository", map[string]string{".gitignore": "*.log\n", "sub/.git/HEAD": "", "sub/a.log": "", "sub/b": ""}, "sub", false},
		{"repository below the start", map[string]string{".gitignore": "*.log\n", "sub/r/.git/HEAD": "", "sub/r/a.log": "", "sub/b.log": ""}, "sub", false},
		{"odd names", map[string]string{".gitignore": "*.log\n", "s[u]b*/.gitignore": "x\n", "s[u]b*/x": "", "s[u]b*/y": "", "s[u]b*/y.log": ""}, "s[u]b*", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, fillX(c.files))
			req := GrepRequest{Pattern: "x", Path: c.path}
			got, fellBack := rgListing(t, root, req)
			if fellBack != c.fallBack {
				t.Errorf("fell back: got %v, want %v", fellBack, c.fallBack)
			}
			want := collect(t, NewNative(root), req)
			rg := requireRg(t)
			rg.root, rg.native = root, NewNative(root)
			if g := collect(t, rg, req); g != want {
				t.Errorf("results differ from native (%q):\nripgrep:\n%s\nnative:\n%s", got, g, want)
			}
		})
	}
}

func TestRustPattern(t *testing.T) {
	cases := []struct {
		req      GrepRequest
		want     string
		superset bool
	}{
		{GrepRequest{Pattern: "abc"}, "abc", false},
		{GrepRequest{Pattern: "a.c"}, `(?:a(?:[\x{0}-\x{9}\x{B}-\x{D7FF}\x{E000}-\x{10FFFF}]|(?-u:[\x80-\xFF]))c)`, true},
		{GrepRequest{Pattern: "(?i)k"}, `[\x{4B}\x{6B}\x{212A}]`, false},
		{GrepRequest{Pattern: "k", IgnoreCase: true}, `[\x{4B}\x{6B}\x{212A}]`, false},
		{GrepRequest{Pattern: `\bx\B`}, `(?:(?-u:\b)x(?-u:\B))`, true},
		{GrepRequest{Pattern: `\bx\b`}, `(?:(?-u:\b)x(?-u:\b))`, false},
		{GrepRequest{Pattern: `^a$`}, `(?:(?m:^)a(?m:$))`, false},
		{GrepRequest{Pattern: `^a$`, Multiline: true}, `(?:(?m:^)a(?m:$))`, false},
		{GrepRequest{Pattern: `\Aa\z`, Multiline: true}, `(?:\Aa\z)`, false},
		{GrepRequest{Pattern: `\Aa\z`}, `(?:(?m:^)a(?m:$))`, false},
		{GrepRequest{Pattern: `a\nb`}, `(?:\z.)`, false},
		{GrepRequest{Pattern: `a\nb|cd`}, `(?:(?:\z.)|cd)`, false},
		{GrepRequest{Pattern: `$\b^x`, Multiline: true}, `(?:(?m:^)(?-u:\b)(?m:$)x)`, false},
		{GrepRequest{Pattern: `$(?:\b|y)x`, Multiline: true}, `(?:(?:)(?:(?:)|y)x)`, true},
		{GrepRequest{Pattern: `a\nb`, Multiline: true}, `a\x{A}b`, false},
		{GrepRequest{Pattern: `\d+?`}, `(?:[\x{30}-\x{39}])+?`, false},
		{GrepRequest{Pattern: `(x){2,3}`}, `(?:(?:x)){2,3}`, false},
		{GrepRequest{Pattern: `[^\n]`}, `(?:[\x{0}-\x{9}\x{B}-\x{D7FF}\x{E000}-\x{10FFFF}]|(?-u:[\x80-\xFF]))`, true},
		{GrepRequest{Pattern: `\s`}, `[\x{9}\x{C}-\x{D}\x{20}]`, false},
		{GrepRequest{Pattern: `--pre=cmd`}, `\x{2D}\x{2D}pre\x{3D}cmd`, false},
	}
	for _, c := range cases {
		got, superset, err := rustPattern(c.req)
		if err != nil || got != c.want || superset != c.superset {
			t.Errorf("rustPattern(%+v) = %q, %v, %v; want %q, %v", c.req, got, superset, err, c.want, c.superset)
		}
		// The Go form of the same tree must compile and mean the same.
		if _, err := compileMatcher(c.req); err != nil {
			t.Errorf("compileMatcher(%+v): %v", c.req, err)
		}
	}
}

// TestRipgrepRandomPatterns compares the ripgrep backend with the native
// one on random patterns over lines of ASCII, other Unicode and bytes
// that are not UTF-8.
func TestRipgrepRandomPatterns(t *testing.T) {
	requireRg(t)
	seed := uint64(3)
	if s := os.Getenv("SEARCH_TEST_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	pieces := []string{"a", "b", "k", "é", "É", "ß", "\u212a", "\xe9", "\xff", " ", "_", "1", "-", "\r", "\t", "aa", "ab"}
	var lines []string
	for range 400 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	root := t.TempDir()
	for i := range 4 {
		writeFiles(t, root, map[string]string{fmt.Sprintf("f%d.txt", i): strings.Join(lines[i*100:(i+1)*100], "\n") + "\n"})
	}
	atoms := []string{"a", "b", "k", "é", ".", `\w`, `\W`, `\b`, `\B`, `\d`, `\s`, `\S`, "[^a]", "[a-k]", `\pL`, `\PL`, "^", "$",
		`\x{FFFD}`, "(?i:ß)", "(?i:k)", "[[:alpha:]]", `\A`, `\z`, `\n`, `(?s:.)`, "ab", "(?i:AB)"}
	ops := []string{"", "*", "+", "?", "{2}", "*?"}
	n := 80
	if testing.Short() {
		n = 30
	}
	if s := os.Getenv("SEARCH_TEST_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	for i := range n {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			a := atoms[rng.IntN(len(atoms))]
			if rng.IntN(4) == 0 {
				a = "(?:" + a + "|" + atoms[rng.IntN(len(atoms))] + ")"
			}
			b.WriteString(a)
			if op := ops[rng.IntN(len(ops))]; op != "" && !strings.ContainsAny(a[len(a)-1:], "^$") && a != `\b` && a != `\B` && a != `\A` && a != `\z` {
				b.WriteString(op)
			}
		}
		pattern := b.String()
		if _, err := regexp.Compile(pattern); err != nil {
			continue
		}
		req := GrepRequest{Pattern: pattern, IgnoreCase: rng.IntN(4) == 0, Multiline: rng.IntN(3) == 0, Before: rng.IntN(2), After: rng.IntN(2)}
		want := collect(t, NewNative(root), req)
		rg := requireRg(t)
		rg.root, rg.native = root, NewNative(root)
		got := collect(t, rg, req)
		if got != want {
			t.Errorf("case %d %+v:\nripgrep:\n%s\nnative:\n%s", i, req, got, want)
		}
		// And the same in a mode that reads less.
		req.Mode = []Mode{ModeFiles, ModeCount}[rng.IntN(2)]
		if got, want := collect(t, rg, req), collectReduced(t, NewNative(root), req); got != want {
			t.Errorf("case %d %+v:\nripgrep:\n%s\nnative:\n%s", i, req, got, want)
		}
	}
}

func collect(t *testing.T, g Grepper, req GrepRequest) string {
	t.Helper()
	var b strings.Builder
	err := g.Grep(context.Background(), req, func(r FileResult) bool {
		fmt.Fprintf(&b, "%s#%d\n", r.Path, r.Count)
		for _, l := range r.Lines {
			fmt.Fprintf(&b, "  %d %v %q\n", l.Number, l.Match, l.Text)
		}
		return true
	})
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return b.String()
}

// TestRipgrepBinary compares the backends on files with NUL bytes at
// offsets on both sides of 8 KiB and of rg's 64 KiB buffer.
func TestRipgrepBinary(t *testing.T) {
	requireRg(t)
	files := map[string]string{}
	for _, at := range []int{0, 100, 8191, 8192, 9000, 65535, 65536, 70000} {
		for _, where := range []string{"before", "after", "both"} {
			var b strings.Builder
			if where != "after" {
				b.WriteString("match before\n")
			}
			for b.Len() < at {
				b.WriteString(strings.Repeat("x", min(60, at-b.Len()-1)) + "\n")
			}
			b.WriteString("\x00 nul line\n")
			if where != "before" {
				b.WriteString("context\nmatch after\n")
			}
			files[fmt.Sprintf("nul-%d-%s.txt", at, where)] = b.String()
		}
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	rg := requireRg(t)
	rg.root, rg.native = root, NewNative(root)
	for _, req := range []GrepRequest{
		{Pattern: "match"},
		{Pattern: "match", Before: 1},
		{Pattern: "match", After: 1},
		{Pattern: `match (before|after)`, Multiline: true},
		{Pattern: "nul line"},
	} {
		want := collect(t, NewNative(root), req)
		if got := collect(t, rg, req); got != want {
			t.Errorf("%+v:\nripgrep:\n%s\nnative:\n%s", req, got, want)
		}
		if !strings.Contains(want, "nul-8192-both") || strings.Contains(want, "nul-8191") {
			t.Errorf("%+v: the native result breaks the 8 KiB rule:\n%s", req, want)
		}
	}
}
