package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
)

// benchTree generates a source-like tree once per process: 40
// directories of 50 files of 200 lines, with a .gitignore.
func benchTree(b *testing.B) string {
	benchTreeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "search-bench-*")
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		words := strings.Fields("func return err nil if for range package import type struct interface map string int byte context Context error Errorf New value key index buffer read write close open")
		for d := range 40 {
			for f := range 50 {
				var sb strings.Builder
				for l := range 200 {
					for range 3 + rng.IntN(8) {
						sb.WriteString(words[rng.IntN(len(words))])
						sb.WriteByte(' ')
					}
					if l%97 == 0 {
						sb.WriteString("needle")
					}
					sb.WriteByte('\n')
				}
				name := filepath.Join(dir, fmt.Sprintf("pkg%02d/sub%d", d, d%3), fmt.Sprintf("file%02d.go", f))
				os.MkdirAll(filepath.Dir(name), 0o755)
				os.WriteFile(name, []byte(sb.String()), 0o644)
			}
		}
		os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n/build/\n"), 0o644)
		benchTreeDir = dir
	})
	return benchTreeDir
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	code := m.Run()
	if benchTreeDir != "" {
		os.RemoveAll(benchTreeDir)
	}
	os.Exit(code)
}

func BenchmarkNativeGrep(b *testing.B) {
	root := benchTree(b)
	n := NewNative(root)
	cases := []struct {
		name  string
		req   GrepRequest
		limit int
	}{
		{"literal", GrepRequest{Pattern: "needle"}, 0},
		{"common", GrepRequest{Pattern: "return err"}, 0},
		{"regex", GrepRequest{Pattern: `func \w+ context`}, 0},
		{"ignorecase", GrepRequest{Pattern: "NEEDLE", IgnoreCase: true}, 0},
		{"context", GrepRequest{Pattern: "needle", Before: 2, After: 2}, 0},
		{"multiline", GrepRequest{Pattern: `needle\nfunc`, Multiline: true}, 0},
		{"limit100", GrepRequest{Pattern: "return"}, 100},
		// A literal whose first byte is the commonest of the tree and
		// whose rarest never occurs in it.
		{"commonfirst", GrepRequest{Pattern: `e Context\(&`}, 0},
		{"files", GrepRequest{Pattern: "return err", Mode: ModeFiles}, 0},
		{"count", GrepRequest{Pattern: "return err", Mode: ModeCount}, 0},
		{"files/regex", GrepRequest{Pattern: `func \w+ context`, Mode: ModeFiles}, 0},
		{"count/regex", GrepRequest{Pattern: `func \w+ context`, Mode: ModeCount}, 0},
		// limit counts files in these: the caller takes so many.
		{"files/limit1", GrepRequest{Pattern: "needle", Mode: ModeFiles, Limit: 1}, 1},
		{"files/limit10", GrepRequest{Pattern: "needle", Mode: ModeFiles, Limit: 10}, 10},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					lines, files := 0, 0
					err := n.Grep(context.Background(), c.req, func(r FileResult) bool {
						lines += len(r.Lines)
						files++
						if c.req.Limit > 0 {
							return files < c.limit
						}
						return c.limit == 0 || lines < c.limit
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func BenchmarkNativeGlob(b *testing.B) {
	root := benchTree(b)
	n := NewNative(root)
	for _, p := range []string{"**/*.go", "pkg1*/**/file0*.go", "*.go"} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := n.Glob(context.Background(), GlobRequest{Pattern: p}, func(string) bool { return true }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
