package stdlib

import (
	"regexp"
	"strings"
	"testing"
)

var benchText = strings.Repeat("the quick brown fox jumps over the lazy dog. ", 1<<10)

// BenchmarkFindAll and BenchmarkSub compare re.findall and re.sub with
// Go's regexp on the same 45 KiB text, with many matches.
func BenchmarkFindAll(b *testing.B) {
	b.Run("stdlib", func(b *testing.B) {
		for b.Loop() {
			if _, err := FindAll(bg, `\w+`, benchText); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go", func(b *testing.B) {
		re := regexp.MustCompile(`\w+`)
		for b.Loop() {
			re.FindAllStringSubmatchIndex(benchText, -1)
		}
	})
}

func BenchmarkSub(b *testing.B) {
	b.Run("stdlib", func(b *testing.B) {
		for b.Loop() {
			if _, err := Sub(bg, `o(\w)`, "0$1", benchText, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go", func(b *testing.B) {
		re := regexp.MustCompile(`o(\w)`)
		for b.Loop() {
			re.ReplaceAllString(benchText, "0$1")
		}
	})
}
