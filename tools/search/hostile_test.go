package search

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/internal/testwait"
)

// guard is how long a search over a small tree may take before a test
// calls it runaway: a failure guard, many times what it needs.
const guard = testwait.Step

// globAll lists what g finds for req, or returns its error.
func globAll(g Globber, req GlobRequest) ([]string, error) {
	var got []string
	err := g.Glob(context.Background(), req, func(p string) bool {
		got = append(got, p)
		return true
	})
	return got, err
}

// grepAll lists the files g finds for req, or returns its error.
func grepAll(g Grepper, req GrepRequest) ([]string, error) {
	var got []string
	err := g.Grep(context.Background(), req, func(r FileResult) bool {
		got = append(got, r.Path)
		return true
	})
	return got, err
}

// backends returns the native backend and those of rg and fd that are
// installed, for the tree at root.
func backends(t *testing.T, root string) (globbers map[string]Globber, greppers map[string]Grepper) {
	t.Helper()
	native := NewNative(root)
	globbers = map[string]Globber{"native": native}
	greppers = map[string]Grepper{"native": native}
	if _, err := exec.LookPath("rg"); err == nil {
		rg := requireRg(t)
		rg.root, rg.native = root, native
		globbers["ripgrep"], greppers["ripgrep"] = rg, rg
	} else {
		t.Log("ripgrep (rg) not found: only the native backend greps (apt-get install ripgrep)")
	}
	if fd, err := NewFd(root); err == nil {
		globbers["fd"] = fd
	} else {
		t.Logf("fd not found: only native and ripgrep list (%v)", err)
	}
	return globbers, greppers
}

// TestHostileGitignore puts patterns on which a backtracking matcher
// takes hours into a .gitignore next to a long file name and a deep
// directory: every backend must finish and find both files, which no
// pattern matches.
func TestHostileGitignore(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("a", 200) + "b"
	deep := strings.Repeat("a/", 40) + "f"
	writeFiles(t, root, map[string]string{
		".gitignore": "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a\n" + strings.Repeat("**/", 30) + "x\n" +
			"/" + strings.Repeat("*a", 20) + "/x\n",
		long: "needle\n",
		deep: "needle\n",
	})
	want := []string{deep, long}
	globbers, greppers := backends(t, root)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range globbers {
			yield(k)
		}
	}) {
		g := globbers[name]
		var got []string
		var err error
		finishes(t, guard, name+" Glob", func() { got, err = globAll(g, GlobRequest{Pattern: "**"}) })
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s Glob: got %q, %v; want %q", name, got, err, want)
		}
		gr, ok := greppers[name]
		if !ok {
			continue
		}
		finishes(t, guard, name+" Grep", func() { got, err = grepAll(gr, GrepRequest{Pattern: "needle"}) })
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s Grep: got %q, %v; want %q", name, got, err, want)
		}
	}
}
