package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// bigSource is a walk source whose root holds many files and nothing else.
type bigSource struct{ entries []dirEntry }

func newBigSource(n int) *bigSource {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &bigSource{entries: make([]dirEntry, n)}
	for i := range s.entries {
		s.entries[i] = dirEntry{name: fmt.Sprintf("f%09d.txt", rng.IntN(1<<30)), kind: kindFile}
	}
	return s
}

func (s *bigSource) openDir(_ *dirHandle, _, rel string) (*dirHandle, error) {
	return &dirHandle{rel: rel}, nil
}
func (s *bigSource) readDir(*dirHandle) ([]dirEntry, error) { return slices.Clone(s.entries), nil }
func (s *bigSource) hasGit(*dirHandle, []dirEntry) bool     { return false }
func (s *bigSource) readGitignore(*dirHandle) []byte        { return nil }

// TestWalkStopsInLargeDirectory walks a directory of a million entries
// and stops it: while the entries are sorted, and after the first file.
// The walk used to check only between directories, so it visited all.
func TestWalkStopsInLargeDirectory(t *testing.T) {
	n := 1 << 20
	if raceEnabled {
		n = 1 << 17
	}
	src := newBigSource(n)
	top, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer top.Close()

	// Stopped as soon as asked after the walk has begun: in the sort.
	calls, files := 0, 0
	w := &walker{src: src, top: top, noIgnore: true,
		stopped: func() bool { calls++; return calls > 1 },
		file:    func(*dirHandle, string, string) bool { files++; return true },
	}
	if err := w.walk(""); err != nil {
		t.Fatal(err)
	}
	if files != 0 || calls != 2 {
		t.Errorf("stopped during the sort: %d files visited, stopped asked %d times; want 0 files, 2 asks", files, calls)
	}

	// Stopped after the first file.
	stop := false
	files = 0
	w.stopped = func() bool { return stop }
	w.file = func(*dirHandle, string, string) bool { files++; stop = true; return true }
	if err := w.walk(""); err != nil {
		t.Fatal(err)
	}
	if files != 1 {
		t.Errorf("stopped after the first file: %d files visited, want 1", files)
	}
}

func TestSortEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "a.txt", "a-b", "a0", "A", "é", "b", "ab", "a.b"}
	for _, n := range []int{0, 1, 7, sortRun - 1, sortRun, sortRun + 1, 3*sortRun + 17, 20000} {
		entries := make([]dirEntry, n)
		for i := range entries {
			k := entryKind(rng.IntN(2))
			entries[i] = dirEntry{name: fmt.Sprintf("%s%d", names[rng.IntN(len(names))], rng.IntN(n+1)), kind: k}
		}
		want := slices.Clone(entries)
		slices.SortStableFunc(want, compareEntries)
		asks := 0
		if !sortEntries(entries, func() bool { asks++; return false }) {
			t.Fatalf("%d entries: not sorted", n)
		}
		for i := range entries {
			if compareEntries(entries[i], want[i]) != 0 {
				t.Fatalf("%d entries: at %d got %q, want %q", n, i, entries[i].name, want[i].name)
			}
		}
		// Between two checks, at most a run is sorted or 2 runs' worth of entries are merged.
		if n > sortRun && asks < 2*(n/sortRun)-1 {
			t.Errorf("%d entries: stopped asked %d times, want at least %d", n, asks, 2*(n/sortRun)-1)
		}
	}
	// 32 runs, then 5 merge passes of 32 asks each.
	entries := newBigSource(32 * sortRun).entries
	for _, after := range []int{1, 40, 170} { // in the runs, in the first merge, in the last
		asks := 0
		if sortEntries(slices.Clone(entries), func() bool { asks++; return asks > after }) {
			t.Errorf("stopped after %d asks: sorted all the same", after)
		}
		if asks != after+1 {
			t.Errorf("stopped after %d asks: asked %d times", after, asks)
		}
	}
}

// TestDiskReadDirStops checks that reading a directory from the disk
// stops between reads.
func TestDiskReadDirStops(t *testing.T) {
	root := t.TempDir()
	for i := range 10 {
		os.WriteFile(fmt.Sprintf("%s/f%d", root, i), nil, 0o644)
	}
	top, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer top.Close()
	src := newDiskSource(top, root)
	d, err := src.openDir(nil, ".", "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.sys.close()
	src.stopped = func() bool { return true }
	if entries, err := src.readDir(d); err != errStop || len(entries) != 0 {
		t.Errorf("stopped: got %d entries and %v, want none and errStop", len(entries), err)
	}
}
