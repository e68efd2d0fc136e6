package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/tools"
)

// BenchmarkReadFile measures read_file through the pipeline on ordinary
// files: a small one at the top, the same one four directories down, and
// a 1 MiB one.
func BenchmarkReadFile(b *testing.B) {
	var small, big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&small, "line %d of a small file\n", i)
	}
	for big.Len() < 1<<20 {
		fmt.Fprintf(&big, "line %d of a bigger file, long enough to matter\n", big.Len())
	}
	e := newEnv(b, tools.ExtensionConfig{})
	e.write(map[string]string{"small.txt": small.String(), "a/b/c/d/small.txt": small.String(), "big.txt": big.String()})
	for _, name := range []string{"small.txt", "a/b/c/d/small.txt", "big.txt"} {
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			args := map[string]any{"path": name, "limit": 100000}
			for b.Loop() {
				e.ok("read_file", args)
			}
		})
	}
}
