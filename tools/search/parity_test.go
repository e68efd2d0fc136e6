package search_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools/search"
)

// goSrc returns $(go env GOROOT)/src, the corpus of the parity tests.
func goSrc(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func formatGrep(t *testing.T, g search.Grepper, req search.GrepRequest) (string, int) {
	t.Helper()
	var b strings.Builder
	files := 0
	err := g.Grep(context.Background(), req, func(r search.FileResult) bool {
		files++
		fmt.Fprintf(&b, "%s#%d\n", r.Path, r.Count)
		for _, l := range r.Lines {
			sep := '-'
			if l.Match {
				sep = ':'
			}
			fmt.Fprintf(&b, "%d%c%s\n", l.Number, sep, l.Text)
		}
		return true
	})
	if err != nil {
		t.Fatalf("%T %+v: %v", g, req, err)
	}
	return b.String(), files
}

func formatGlob(t *testing.T, g search.Globber, req search.GlobRequest) (string, int) {
	t.Helper()
	var b strings.Builder
	n := 0
	err := g.Glob(context.Background(), req, func(p string) bool {
		n++
		b.WriteString(p + "\n")
		return true
	})
	if err != nil {
		t.Fatalf("%T %+v: %v", g, req, err)
	}
	return b.String(), n
}

// firstDiff describes where two outputs part.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(al), len(bl))
}

// TestParityGoSource compares the backends byte for byte over the Go
// source tree: src/net, src/go and src/math (src/go alone with -short;
// all of src, and src/net, with SEARCH_PARITY_FULL=1).
func TestParityGoSource(t *testing.T) {
	src := goSrc(t)
	native := search.NewNative(src)
	rg := newRipgrep(t, src)
	scope := []string{"net", "go", "math"}
	switch {
	case os.Getenv("SEARCH_PARITY_FULL") != "":
		scope = []string{"", "net"}
	case testing.Short():
		scope = []string{"go"}
	}
	greps := []search.GrepRequest{
		{Pattern: "func"},
		{Pattern: "return err"},
		{Pattern: `errors\.New\(`},
		{Pattern: "TODO", Before: 1, After: 2},
		{Pattern: `func \w+\(ctx context\.Context`},
		{Pattern: `^package \w+$`},
		{Pattern: `\berr\b`, Type: "go"},
		{Pattern: `[A-Z][a-z]+Error\b`},
		{Pattern: `0x[0-9a-fA-F]{8}\b`},
		{Pattern: "copyright", IgnoreCase: true},
		{Pattern: `(?i)unicode\.`},
		{Pattern: `ZZZ_no_such_thing_QQQ`},
		{Pattern: `xyzzy`, IgnoreCase: true},
		{Pattern: `panic\(`, Before: 2, After: 2},
		{Pattern: `\}\n\nfunc `, Multiline: true},
		{Pattern: `func main\(\) \{\n\s+\w+`, Multiline: true, After: 1},
		{Pattern: `(?s)/\*.*?\*/`, Multiline: true, Glob: "*.s"},
		{Pattern: `t\.Fatal`, Glob: "*_test.go"},
		{Pattern: "package", Glob: "**/testdata/**"},
		{Pattern: `.`, Glob: "!*.go", Type: "md"},
		{Pattern: `[^\x00-\x7F]`, Type: "go"},
		{Pattern: `é|ü|ß`, IgnoreCase: true},
		{Pattern: "needle|haystack", Hidden: true, NoIgnore: true},
		{Pattern: `^\s*$`, Glob: "*.s", After: 1},
		{Pattern: `\bvar\B`},
	}
	found := make([]int, len(greps))
	for _, base := range scope {
		for i, req := range greps {
			req.Path = base
			t.Run(fmt.Sprintf("grep %q in %q", req.Pattern, base), func(t *testing.T) {
				want, n := formatGrep(t, native, req)
				got, _ := formatGrep(t, rg, req)
				if got != want {
					t.Errorf("ripgrep and native differ (%s)", firstDiff(got, want))
				}
				found[i] += n
			})
		}
	}
	for i, req := range greps {
		if !testing.Short() && found[i] == 0 && !strings.Contains(req.Pattern, "ZZZ") && !strings.Contains(req.Pattern, "xyzzy") {
			t.Errorf("grep %+v: no results anywhere: the comparison says nothing", req)
		}
	}

	fd := newFd(t, src)
	globs := []search.GlobRequest{
		{Pattern: "**/*.go"},
		{Pattern: "**/*_test.go"},
		{Pattern: "*.go"},
		{Pattern: "**/testdata/**"},
		{Pattern: "**/*.{s,md}"},
		{Pattern: "**", Hidden: true},
		{Pattern: "**", NoIgnore: true, Hidden: true},
		{Pattern: "http/**/*.go"},
	}
	globFound := make([]int, len(globs))
	for _, base := range scope {
		for i, req := range globs {
			req.Path = base
			t.Run(fmt.Sprintf("glob %q in %q", req.Pattern, base), func(t *testing.T) {
				want, n := formatGlob(t, native, req)
				for _, g := range []search.Globber{rg, fd} {
					got, _ := formatGlob(t, g, req)
					if got != want {
						t.Errorf("%T and native differ (%s)", g, firstDiff(got, want))
					}
				}
				globFound[i] += n
			})
		}
	}
	for i, req := range globs {
		if !testing.Short() && globFound[i] == 0 {
			t.Errorf("glob %+v: no results anywhere: the comparison says nothing", req)
		}
	}
}
