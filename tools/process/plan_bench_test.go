package process

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkPlan measures the look at the working directory that starts
// every confined run, on the Go source tree (about 13,000 entries).
func BenchmarkPlan(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree at %s", src)
	}
	req := ExecRequest{Args: []string{"true"}}
	for b.Loop() {
		if _, err := newPlan(src, ProfileWorkspace, SandboxConfig{}, req); err != nil {
			b.Fatal(err)
		}
	}
}
