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

// BenchmarkWriteFile measures write_file of a small file in an empty
// directory and in one of 10,000 files (a write looks through its
// directory for stale temporary files).
func BenchmarkWriteFile(b *testing.B) {
	e := newEnv(b, tools.ExtensionConfig{})
	many := map[string]string{}
	for i := range 10000 {
		many[fmt.Sprintf("many/f%05d", i)] = ""
	}
	e.write(many)
	for _, dir := range []string{"empty", "many"} {
		b.Run(dir, func(b *testing.B) {
			args := map[string]any{"path": dir + "/out.txt", "content": "hello\n"}
			for b.Loop() {
				e.ok("write_file", args)
			}
		})
	}
}
