//go:build unix

package search

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// oddNames are file names that a line-oriented reading of rg's or fd's
// output gets wrong: newlines (one imitating rg's note on binary files),
// bytes that are not UTF-8, separators rg uses, names like flags.
var oddNames = []string{
	"new\nline.txt",
	"a: binary file matches (found \"\\0\" byte around offset 5)\nb.txt",
	"dir\nname/inside.txt",
	"tab\there.txt",
	"cr\r.txt",
	"bad\xff\xfe.txt",
	"colon:1:x.txt",
	"dash-2-y.txt",
	"-e",
	"--pre=x",
	"space .txt",
	"quote\"'.txt",
	"back\\slash.txt",
	"ünïcode.txt",
	"trailing\n",
	"\nleading.txt",
}

func oddTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"plain.txt": "needle\nother\n"}
	for i, n := range oddNames {
		files[n] = strings.Repeat("x\n", i%3) + "needle " + n + "\nother\n"
	}
	writeTestFiles(t, root, files)
	return root
}

// TestOddNamesRipgrep checks that the ripgrep backend returns exactly the
// native backend's results on odd names, reading rg's output itself
// rather than handing the search over.
func TestOddNamesRipgrep(t *testing.T) {
	requireRg(t)
	root := oddTree(t)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []GrepRequest{
		{Pattern: "needle"},
		{Pattern: "needle", Before: 1, After: 1},
		{Pattern: `needle.*\nother`, Multiline: true},
		{Pattern: "needle", Glob: "*.txt"},
	} {
		want, err := grepResult(NewNative(root), req)
		if err != nil {
			t.Fatal(err)
		}
		if req.Pattern == "needle" && req.Glob == "" {
			n := 0
			NewNative(root).Grep(context.Background(), req, func(FileResult) bool { n++; return true })
			if n != len(oddNames)+1 {
				t.Fatalf("native found %d files, want %d:\n%q", n, len(oddNames)+1, want)
			}
		}
		before := stats.RipgrepFallbacks.Load()
		got, err := grepResult(rg, req)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%+v:\nripgrep:\n%q\nnative:\n%q", req, got, want)
		}
		if stats.RipgrepFallbacks.Load() != before {
			t.Errorf("%+v: handed to the native backend", req)
		}
	}
}

// TestOddNamesGlob checks the glob backends on odd names.
func TestOddNamesGlob(t *testing.T) {
	root := oddTree(t)
	globbers := map[string]Globber{"native": NewNative(root)}
	if rg, err := NewRipgrep(root); err == nil {
		globbers["ripgrep"] = rg
	}
	if fd, err := NewFd(root); err == nil {
		globbers["fd"] = fd
	} else {
		t.Log("fd not found (looked for fd and fdfind), its backend is not tried; apt-get install fd-find")
	}
	for _, req := range []GlobRequest{{Pattern: "**"}, {Pattern: "**/*.txt"}, {Pattern: "*\n*"}} {
		want, err := globResult(globbers["native"], req)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(want, "\n") - strings.Count(strings.Join(oddNames, ""), "\n"); req.Pattern == "**" && n != len(oddNames)+1 {
			t.Fatalf("native found %d files, want %d:\n%q", n, len(oddNames)+1, want)
		}
		for name, g := range globbers {
			got, err := globResult(g, req)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got != want {
				t.Errorf("%s %+v:\n got %q\nwant %q", name, req, got, want)
			}
		}
	}
}
