package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGrepHoldsOnlyInFlight runs a content search whose every line
// matches, about 13 MiB of results, and whose caller keeps nothing:
// the live heap, measured every 100 files, must stay within what the
// files in flight can hold (see Native), far below the results.
func TestGrepHoldsOnlyInFlight(t *testing.T) {
	root := t.TempDir()
	line := "a line of text that the pattern matches, long enough to weigh " + strings.Repeat("x", 16) + "\n"
	content := strings.Repeat(line, 100)
	const files = 1200
	for i := range files {
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%30), fmt.Sprintf("f%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := NewNative(root)
	n.workers, n.ahead = 2, 4 // at most 7 jobs of 16 files in flight
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	seen, total, peak := 0, 0, uint64(0)
	err := n.Grep(context.Background(), GrepRequest{Pattern: "line of"}, func(r FileResult) bool {
		seen++
		for _, l := range r.Lines {
			total += len(l.Text) + 32
		}
		if seen%100 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != files {
		t.Fatalf("%d files emitted, want %d", seen, files)
	}
	// In flight: 7 jobs × 16 files × about 11 KiB of result, and the
	// workers' buffers.
	const bound = 4 << 20
	t.Logf("results %d bytes; live heap at most %d bytes above the start", total, peak)
	if peak > bound {
		t.Errorf("live heap grew by %d bytes during a search emitting %d bytes of results, want at most %d", peak, total, bound)
	}
}
