package search

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goRootSrc returns $(go env GOROOT)/src, or skips.
func goRootSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip(err)
	}
	return src
}

// BenchmarkNativeGrepGoSource greps $(go env GOROOT)/src, a real tree of
// about 11,000 files, in each mode and with the pattern classes whose
// search differs: a literal with a common first byte, one with a rare
// first byte, a case-folded literal, a regexp with a required literal,
// and one with none.
func BenchmarkNativeGrepGoSource(b *testing.B) {
	src := goRootSrc(b)
	n := NewNative(src)
	cases := []struct {
		name string
		req  GrepRequest
	}{
		{"func/content", GrepRequest{Pattern: "func"}},
		{"func/files", GrepRequest{Pattern: "func", Mode: ModeFiles}},
		{"func/count", GrepRequest{Pattern: "func", Mode: ModeCount}},
		{"func/files/limit100", GrepRequest{Pattern: "func", Mode: ModeFiles, Limit: 100}},
		{"commonfirst", GrepRequest{Pattern: `atomic\.AddInt64\(&`}},
		{"rarefirst", GrepRequest{Pattern: `ZZZ_no_such_thing_QQQ`}},
		// Nothing matches: a Limit's small jobs cost what they cost.
		{"none/files", GrepRequest{Pattern: `ZZZ_no_such_thing_QQQ`, Mode: ModeFiles}},
		{"none/files/limit1", GrepRequest{Pattern: `ZZZ_no_such_thing_QQQ`, Mode: ModeFiles, Limit: 1}},
		{"func/files/limit1", GrepRequest{Pattern: "func", Mode: ModeFiles, Limit: 1}},
		{"func/files/limit10", GrepRequest{Pattern: "func", Mode: ModeFiles, Limit: 10}},
		{"ignorecase", GrepRequest{Pattern: `unicode\.`, IgnoreCase: true}},
		{"required", GrepRequest{Pattern: `func \w+\(ctx context\.Context`}},
		{"noliteral", GrepRequest{Pattern: `[A-Z][a-z]+Error\b`}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					files := 0
					err := n.Grep(context.Background(), c.req, func(FileResult) bool {
						files++
						return c.req.Limit == 0 || files < c.req.Limit
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkLiteralIndex finds literals in Go source held in memory: a
// literal's search without the walk and the reads.
func BenchmarkLiteralIndex(b *testing.B) {
	src := goRootSrc(b)
	var text []byte
	for _, dir := range []string{"net/http", "runtime"} {
		names, _ := filepath.Glob(filepath.Join(src, dir, "*.go"))
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			text = append(text, data...)
		}
	}
	cases := []struct {
		name string
		lit  *literal
	}{
		{"commonfirst", newLiteral("atomic.AddInt64(&", false)},
		{"rarefirst", newLiteral("ZZZ_no_such_thing_QQQ", false)},
		{"short", newLiteral("(&", false)},
		{"spaces", newLiteral("        x", false)},
		{"fold", newLiteral("unicode.", true)},
		{"foldcommon", newLiteral("return nil, errors", true)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for h := text; ; {
					i := c.lit.index(h)
					if i < 0 {
						break
					}
					h = h[i+1:]
				}
			}
		})
	}
}
