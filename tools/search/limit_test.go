package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// TestLimitReadsFewFiles searches a tree in which every file matches,
// under a Limit the caller keeps: the files opened are those emitted
// plus at most the jobs queued ahead of emit (see jobSizer), which
// without the Limit would be whole jobs of jobSize files; and the files
// emitted are the first of the full result.
func TestLimitReadsFewFiles(t *testing.T) {
	root := t.TempDir()
	var all []string
	for i := range 300 {
		rel := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		all = append(all, rel)
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("a needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)
	for _, workers := range []int{1, 2, 4} {
		n := NewNative(root)
		n.workers, n.ahead = workers, 2*workers
		for _, limit := range []int{1, 2, 5, 17, 40} {
			for _, mode := range []Mode{ModeFiles, ModeContent} {
				before := stats.FilesOpened.Load()
				var got []string
				err := n.Grep(context.Background(), GrepRequest{Pattern: "needle", Mode: mode, Limit: limit}, func(r FileResult) bool {
					got = append(got, r.Path)
					return len(got) < limit
				})
				if err != nil {
					t.Fatal(err)
				}
				opened := int(stats.FilesOpened.Load() - before)
				if !slices.Equal(got, all[:limit]) {
					t.Errorf("%d workers, Limit %d: got %q, want the first %d files", workers, limit, got, limit)
				}
				// Every file matches, so no job holds more than the
				// first: the Limit split over the workers.
				most := newJobSizer(limit, workers).next()
				if bound := limit + most - 1 + n.ahead*most; opened > bound {
					t.Errorf("%d workers, Limit %d, mode %d: opened %d files, want at most %d", workers, limit, mode, opened, bound)
				}
			}
		}
	}
}

// TestJobSizer checks the sizes of jobs with and without a Limit, as
// files go through emit.
func TestJobSizer(t *testing.T) {
	for _, c := range []struct {
		limit, workers  int
		passed, matched int // so far
		want            int
	}{
		{0, 2, 0, 0, jobSize},
		{-1, 2, 0, 0, jobSize},
		{1, 2, 0, 0, 1},
		{2, 2, 0, 0, 1},
		{3, 2, 0, 0, 2},
		{10, 2, 0, 0, 5},
		{10, 1, 0, 0, 10},
		{32, 2, 0, 0, jobSize},
		{500, 2, 0, 0, jobSize},
		{1 << 62, 16, 1 << 40, 1, jobSize},
		{10, 2, 4, 4, 3},       // all match: 6 more files
		{10, 2, 20, 5, 10},     // one in four: 20 more files
		{1, 2, 3, 0, 2},        // none yet: as if one in 3
		{1, 2, 40, 0, jobSize}, // none in 40
		{100, 2, 1000, 0, jobSize},
		{10, 2, 30, 10, 2}, // done: one match more, at the rate
	} {
		z := newJobSizer(c.limit, c.workers)
		z.done(c.passed, c.matched)
		if got := z.next(); got != c.want {
			t.Errorf("Limit %d, %d workers, %d of %d files matched: a job of %d files, want %d", c.limit, c.workers, c.matched, c.passed, got, c.want)
		}
	}
}
