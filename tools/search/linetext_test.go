package search

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineText(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	limit := MaxLineBytes
	cases := []struct{ line, want string }{
		{"", ""},
		{a(limit), a(limit)},
		{a(limit + 1), a(limit)},
		{a(limit-2) + "éx", a(limit-2) + "é"},           // é ends at the limit
		{a(limit-1) + "éx", a(limit - 1)},               // é straddles the cut
		{a(limit-2) + "€x", a(limit - 2)},               // € too
		{a(limit-3) + "𝄞x", a(limit - 3)},               // and a 4-byte character
		{a(limit-3) + "€x", a(limit-3) + "€"},           // € ends at the limit
		{a(limit-1) + "\xe9\xffx", a(limit-1) + "\xe9"}, // invalid bytes are cut anywhere
		{a(limit-1) + "\xe2\x82x", a(limit-1) + "\xe2"}, // a character's start without its end too
	}
	for _, c := range cases {
		got := string(lineText([]byte(c.line)))
		if got != c.want {
			t.Errorf("lineText of %d bytes ending %q: got %d bytes ending %q, want %d ending %q",
				len(c.line), c.line[max(0, len(c.line)-8):], len(got), got[max(0, len(got)-8):], len(c.want), c.want[max(0, len(c.want)-8):])
		}
		// What it looks at: the first MaxLineBytes+UTFMax bytes.
		if len(c.line) > limit+utf8.UTFMax {
			if short := string(lineText([]byte(c.line[:limit+utf8.UTFMax]))); short != got {
				t.Errorf("lineText of a prefix differs")
			}
		}
	}
}

// TestParseRgOutputLongLine checks that a line of rg's output far longer
// than a result holds is read in bounded memory and reported cut.
func TestParseRgOutputLongLine(t *testing.T) {
	long := strings.Repeat("€", 4<<20) // 12 MiB
	out := "dir/f.txt\x007:" + long + "\ndir/f.txt\x008-short\n"
	var got []*FileResult
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := parseRgOutput(strings.NewReader(out), func(f *FileResult) { got = append(got, f) }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0].Count != 1 || len(got[0].Lines) != 2 {
		t.Fatalf("got %+v", got)
	}
	if l := got[0].Lines[0]; l.Number != 7 || l.Text != string(lineText([]byte(long))) {
		t.Errorf("line 7: %d bytes, want %d", len(l.Text), len(lineText([]byte(long))))
	}
	if l := got[0].Lines[1]; l.Number != 8 || l.Text != "short" || l.Match {
		t.Errorf("line 8: got %+v", l)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("parsing a 12 MiB line allocated %d bytes; want it bounded by what a result keeps", n)
	}
}
