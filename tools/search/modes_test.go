package search

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// modeResult is what a search in mode must return given the content
// result of the same request.
func modeResult(content FileResult, mode Mode) FileResult {
	switch {
	case content.Count == 0:
		return FileResult{}
	case mode == ModeFiles:
		return FileResult{Path: content.Path, Count: 1}
	case mode == ModeCount:
		return FileResult{Path: content.Path, Count: content.Count}
	}
	return content
}

// TestModesMatchDefinition checks ModeFiles and ModeCount against the
// content result naiveGrep defines, on random files, with the real sizes
// and with tiny ones (see TestStreamingMatchesDefinition), with and
// without context lines, which the modes must ignore.
func TestModesMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	sizes := []scanSizes{{}, {1, 1, 1}, {2, 3, 4}, {5, 2, 8}, {40, 40, 16}}
	cases := 1500
	if testing.Short() || raceEnabled {
		cases = 300
	}
	for i := range cases {
		data := randomFile(rng)
		req := GrepRequest{Before: rng.IntN(3), After: rng.IntN(3)}
		if rng.IntN(3) == 0 {
			req.Multiline = true
			req.Pattern = multilinePatterns[rng.IntN(len(multilinePatterns))]
		} else {
			req.Pattern = linePatterns[rng.IntN(len(linePatterns))]
		}
		content := naiveGrep(t, req, data)
		for _, mode := range []Mode{ModeFiles, ModeCount} {
			req.Mode = mode
			want := quotedResult(modeResult(content, mode))
			for _, size := range sizes {
				if got := quotedResult(searchBytes(t, req, data, size)); got != want {
					t.Fatalf("case %d, mode %d, sizes %+v, %+v over %q:\n got %s\nwant %s", i, mode, size, req, data, got, want)
				}
			}
		}
	}
}

// readCounter counts the bytes read from a file.
type readCounter struct {
	r    io.ReaderAt
	read int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// TestModeFilesStopsAtFirstMatch searches a file of 16 MiB whose first
// line matches: ModeFiles reads its first window only, ModeCount and
// ModeContent all of it, and a long line is not read again for its text
// in ModeFiles and ModeCount.
func TestModeFilesStopsAtFirstMatch(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("needle first\n")
	b.WriteString(strings.Repeat("x", 3*slack) + " needle in a long line\n")
	for b.Len() < 16<<20 {
		b.WriteString("filler line without the word, needle\n")
	}
	data := b.Bytes()
	wantCount := 2 + strings.Count(string(data), "filler")
	for _, c := range []struct {
		req      GrepRequest
		count    int
		maxRead  int64
		minRead  int64
		numLines int
	}{
		{GrepRequest{Pattern: "needle", Mode: ModeFiles}, 1, 2 * slack, 0, 0},
		{GrepRequest{Pattern: `needle \w+`, Mode: ModeFiles}, 1, 2 * slack, 0, 0},
		{GrepRequest{Pattern: `(?i)NEEDLE`, Mode: ModeFiles}, 1, 2 * slack, 0, 0},
		{GrepRequest{Pattern: `needle first\nx`, Mode: ModeFiles, Multiline: true}, 1, 3 << 20, 0, 0},
		{GrepRequest{Pattern: "needle", Mode: ModeCount}, wantCount, int64(len(data)) + slack, int64(len(data)), 0},
		{GrepRequest{Pattern: "needle", Mode: ModeContent}, wantCount, int64(len(data)) + 2*MaxLineBytes, int64(len(data)), wantCount},
	} {
		plan, err := newGrepPlan(c.req)
		if err != nil {
			t.Fatal(err)
		}
		f := &readCounter{r: bytes.NewReader(data)}
		got := newNativeSearcher(context.Background(), plan).search("f", f)
		if got.Count != c.count || len(got.Lines) != c.numLines || got.Path != "f" {
			t.Errorf("%+v: got Count %d and %d lines, want Count %d and %d lines", c.req, got.Count, len(got.Lines), c.count, c.numLines)
		}
		if f.read > c.maxRead || f.read < c.minRead {
			t.Errorf("%+v: read %d bytes of %d, want %d to %d", c.req, f.read, len(data), c.minRead, c.maxRead)
		}
	}
}

// TestModeCountAllocatesNothingPerLine counts 50,000 matching lines
// with a searcher that has searched once already: counting builds no
// lines, so it allocates nothing (content allocates their text).
func TestModeCountAllocatesNothingPerLine(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool, and so Go's regexp, allocate")
	}
	const n = 50000
	data := []byte(strings.Repeat("a needle here\nno match\n", n))
	for _, req := range []GrepRequest{
		{Pattern: "needle", Mode: ModeCount},
		{Pattern: `needle \w+`, Mode: ModeCount},
		{Pattern: `n[e]+dle`, Mode: ModeCount},
		{Pattern: "needle", Mode: ModeCount, Before: 1, After: 1},
		{Pattern: "needle", Mode: ModeFiles},
	} {
		plan, err := newGrepPlan(req)
		if err != nil {
			t.Fatal(err)
		}
		s := newNativeSearcher(context.Background(), plan)
		r := bytes.NewReader(data)
		var got FileResult
		allocs := testing.AllocsPerRun(3, func() {
			r.Reset(data)
			got = s.search("f", r)
		})
		want := n
		if req.Mode == ModeFiles {
			want = 1
		}
		if got.Count != want || got.Lines != nil {
			t.Errorf("%+v: got Count %d and %d lines, want Count %d and none", req, got.Count, len(got.Lines), want)
		}
		if allocs > 2 {
			t.Errorf("%+v: %v allocations a search, want at most 2", req, allocs)
		}
	}
}

// TestUnknownModeRefused checks that a mode out of range is an error
// that names it.
func TestUnknownModeRefused(t *testing.T) {
	for _, mode := range []Mode{-1, ModeCount + 1} {
		err := NewNative(t.TempDir()).Grep(context.Background(), GrepRequest{Pattern: "x", Mode: mode}, func(FileResult) bool {
			t.Fatal("emit called")
			return false
		})
		if err == nil || !strings.Contains(err.Error(), "unknown grep mode") {
			t.Errorf("mode %d: got %v, want an unknown mode error", mode, err)
		}
	}
}
