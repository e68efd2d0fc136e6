package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// naiveGrep is what a search of one file must return, by definition:
// the file whole in memory, each line matched on its own (or the whole
// file with Multiline, resuming after each match), context chosen line
// by line.
func naiveGrep(t *testing.T, req GrepRequest, data []byte) FileResult {
	t.Helper()
	m, err := compileMatcher(req)
	if err != nil {
		t.Fatal(err)
	}
	if isBinary(data) || len(data) == 0 {
		return FileResult{}
	}
	var starts []int // line starts
	for i := 0; i < len(data); {
		starts = append(starts, i)
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	line := func(k int) []byte {
		b := data[starts[k]:]
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			b = b[:j]
		}
		return b
	}
	lineOf := func(off int) int { // the line holding byte off
		k := 0
		for k+1 < len(starts) && starts[k+1] <= off {
			k++
		}
		return k
	}
	match := make([]bool, len(starts))
	if !req.Multiline {
		for k := range starts {
			match[k] = m.re.Match(line(k))
		}
	} else {
		n := len(data)
		for pos := 0; pos < n; {
			loc := m.re.FindIndex(data[pos:])
			if loc == nil {
				break
			}
			s, e := pos+loc[0], pos+loc[1]
			if s == n && data[n-1] == '\n' {
				break
			}
			for k := lineOf(s); k <= lineOf(max(s, e-1)); k++ {
				match[k] = true
			}
			pos = e
			if e == s {
				pos++
			}
		}
	}
	var fr FileResult
	for k := range starts {
		if match[k] {
			fr.Count++
		}
		want := false
		for d := -req.After; d <= req.Before; d++ {
			if j := k + d; j >= 0 && j < len(starts) && match[j] {
				want = true
			}
		}
		if want {
			fr.Lines = append(fr.Lines, Line{Number: k + 1, Text: string(lineText(line(k))), Match: match[k]})
		}
	}
	if fr.Count == 0 {
		return FileResult{}
	}
	fr.Path = "f"
	return fr
}

func quotedResult(fr FileResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s#%d\n", fr.Path, fr.Count)
	for _, l := range fr.Lines {
		sep := "-"
		if l.Match {
			sep = ":"
		}
		fmt.Fprintf(&b, "  %d%s%q\n", l.Number, sep, l.Text)
	}
	return b.String()
}

// searchBytes searches data with a searcher of the given sizes (zero:
// the defaults).
func searchBytes(t *testing.T, req GrepRequest, data []byte, size scanSizes) FileResult {
	t.Helper()
	plan, err := newGrepPlan(req)
	if err != nil {
		t.Fatal(err)
	}
	s := newNativeSearcher(context.Background(), plan)
	if size != (scanSizes{}) {
		s.size = size
	}
	return s.search("f", bytes.NewReader(data))
}

var (
	linePatterns = []string{
		"ab", "(?i)AB", "a.b", "^a", "b$", "a+b", `\bx`, "é", ".", "", "x*", "(?i)É",
		"[^a]", `a\r$`, `\x{FFFD}`, "€b", "^$", `\Aa`, `b\z`, "(a|b)(x|é)", "aaaaaaaaaa",
		`ab\b`, "a\nb",
	}
	multilinePatterns = []string{
		`a\nb`, `b$\n^a`, `(?s)a.*?b`, `\n`, "^", "$", `a\z`, `\Aa`, "x*", "(?s).", `b\n\n`,
		"ab", `(?s)x.*x`, `^\n`, `[^a]\n`, `€\n?`, `ab\n`, `(?s)ab.a`, `aa+\n`, `x\b`,
	}
	// the pieces random files are made of
	parts = []string{"a", "b", "ab", "x", " ", "\n", "\n", "\r\n", "é", "€", "\xff", "\xe2\x82", "aaaaaaaaaaaaaaaaaaaa"}
)

func randomFile(rng *rand.Rand) []byte {
	var b []byte
	n := rng.IntN(60)
	for range n {
		p := parts[rng.IntN(len(parts))]
		if rng.IntN(20) == 0 {
			p = strings.Repeat(p, 10+rng.IntN(200))
		}
		b = append(b, p...)
	}
	return b
}

// TestStreamingMatchesDefinition checks the piecewise, streaming search
// against naiveGrep on random files, with the real sizes and with tiny
// ones, which put piece, window and stream boundaries everywhere and
// make most lines too long for a piece.
func TestStreamingMatchesDefinition(t *testing.T) {
	seed := uint64(9)
	if s := os.Getenv("SEARCH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 9))
	sizes := []scanSizes{{}, {1, 1, 1}, {2, 3, 4}, {3, 7, 5}, {5, 2, 8}, {8, 13, 3}, {40, 40, 16}, {200, 5, 64}}
	cases := 3000
	if testing.Short() || raceEnabled {
		cases = 400
	}
	for i := range cases {
		data := randomFile(rng)
		req := GrepRequest{Before: rng.IntN(4), After: rng.IntN(4)}
		if rng.IntN(3) == 0 {
			req.Multiline = true
			req.Pattern = multilinePatterns[rng.IntN(len(multilinePatterns))]
		} else {
			req.Pattern = linePatterns[rng.IntN(len(linePatterns))]
		}
		if rng.IntN(4) == 0 {
			req.Before, req.After = 0, 0
		}
		want := quotedResult(naiveGrep(t, req, data))
		for _, size := range sizes {
			if got := quotedResult(searchBytes(t, req, data, size)); got != want {
				t.Fatalf("case %d, sizes %+v, %+v over %q:\n got %s\nwant %s", i, size, req, data, got, want)
			}
		}
	}
}
