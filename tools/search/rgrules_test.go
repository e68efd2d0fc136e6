package search

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// TestRipgrepRulesSince252 checks the trees whose answers changed in git
// 2.52: the ripgrep backend answers them itself with current git's
// answers (its walk applies this package's rules; rg reads none).
func TestRipgrepRulesSince252(t *testing.T) {
	requireRg(t)
	for _, c := range gitCases {
		fixed := gitSince252[c.name]
		if fixed == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, fillX(c.files))
			got, fellBack := rgListing(t, root, GrepRequest{Pattern: "x"})
			if fellBack {
				t.Errorf("handed a .gitignore with \"**\" next to other characters to the native backend")
			}
			want, err := grepAll(NewNative(root), GrepRequest{Pattern: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("results differ from native:\n got %q\nwant %q", got, want)
			}
			for p, listed := range fixed {
				if slices.Contains(got, p) != listed {
					t.Errorf("%q: found %v, want %v (git >= 2.52)", p, !listed, listed)
				}
			}
		})
	}
}

// TestRipgrepGitignoreSize checks a .gitignore above git's size limit,
// which git ignores and rg would read: the ripgrep backend ignores it too.
func TestRipgrepGitignoreSize(t *testing.T) {
	requireRg(t)
	for _, size := range []int64{1000, maxGitignoreSize + 1} {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{".gitignore": "*.log\n", "a.log": "x\n", "b.txt": "x\n"})
		// The rest is a hole: NUL bytes that take no disk space.
		if err := os.Truncate(filepath.Join(root, ".gitignore"), size); err != nil {
			t.Fatal(err)
		}
		got, fellBack := rgListing(t, root, GrepRequest{Pattern: "x"})
		want := []string{"b.txt"}
		if size > maxGitignoreSize {
			want = []string{"a.log", "b.txt"}
		}
		if !slices.Equal(got, want) || fellBack {
			t.Errorf("a .gitignore of %d bytes: got %q (fell back %v), want %q from rg", size, got, fellBack, want)
		}
	}
}

// TestRipgrepHandsOverHostileGitignore is the rg side of the hostile
// patterns: the backend's own walk applies them too.
func TestRipgrepHandsOverHostileGitignore(t *testing.T) {
	requireRg(t)
	root := t.TempDir()
	files := map[string]string{".gitignore": strings.Repeat("**/", 30) + "x\n"}
	for i := range 3 {
		files[fmt.Sprintf("%s%d/f", strings.Repeat("d/", 35), i)] = "x\n"
	}
	writeFiles(t, root, files)
	rg := requireRg(t)
	rg.root, rg.native = root, NewNative(root)
	before := stats.RipgrepFallbacks.Load()
	var got []string
	var err error
	finishes(t, guard, "ripgrep Grep", func() { got, err = grepAll(rg, GrepRequest{Pattern: "x"}) })
	fellBack := stats.RipgrepFallbacks.Load() != before
	if err != nil || fellBack || len(got) != 3 {
		t.Errorf("got %q, %v (fell back %v), want the 3 deep files from rg", got, err, fellBack)
	}
}
