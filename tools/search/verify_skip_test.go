package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSkipLines compares skipLines with finding newlines one by one, on
// lines of every length around its block size.
func TestSkipLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(strings.Repeat("x", []int{0, 1, 30, skipBlock - 1, skipBlock, skipBlock + 1, 3 * skipBlock}[rng.IntN(7)]))
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("y", rng.IntN(3)))
		data := []byte(b.String())
		total := bytes.Count(data, []byte{'\n'})
		for n := 1; n <= total+1; n++ {
			wantOff, wantCount := -1, total
			if n <= total {
				wantOff, wantCount = 0, 0
				for k := 0; k < n; k++ {
					wantOff += bytes.IndexByte(data[wantOff:], '\n') + 1
				}
			}
			if off, count := skipLines(data, n); off != wantOff || count != wantCount {
				t.Fatalf("skipLines(%d lines, %d) = %d, %d; want %d, %d", total, n, off, count, wantOff, wantCount)
			}
		}
	}
}

// TestCheckReportSkipping checks reports of a few lines far apart in
// files read in pieces of every size: the right lines pass, any other
// text or number does not.
func TestCheckReportSkipping(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 200 {
		var lines []string
		for range 1 + rng.IntN(600) {
			lines = append(lines, strings.Repeat(string(rune('a'+rng.IntN(3))), rng.IntN(90)))
		}
		data := strings.Join(lines, "\n")
		if rng.IntN(2) == 0 {
			data += "\n"
		}
		var fr FileResult
		for n, l := range lines {
			if l != "" && rng.IntN(40) == 0 {
				fr.Lines = append(fr.Lines, Line{Number: n + 1, Text: l, Match: true})
			}
		}
		if len(fr.Lines) == 0 {
			continue
		}
		fr.Count = len(fr.Lines)
		read := func() reportCheck {
			var rd = iotest.HalfReader(strings.NewReader(data))
			if i%2 == 0 {
				rd = strings.NewReader(data)
			}
			v, _, err := checkReport(rd, make([]byte, 0, 64+rng.IntN(300)), &fr, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		if v := read(); v != reportOK {
			t.Fatalf("case %d: the file's own lines: %v, want reportOK", i, v)
		}
		k := rng.IntN(len(fr.Lines))
		orig := fr.Lines[k]
		fr.Lines[k].Text += "z"
		if v := read(); v != reportMismatch {
			t.Fatalf("case %d: line %d changed: %v, want reportMismatch", i, orig.Number, v)
		}
		fr.Lines[k] = orig
		if k == len(fr.Lines)-1 || fr.Lines[k+1].Number > orig.Number+1 {
			fr.Lines[k].Number++
			if orig.Text != lineAt(lines, orig.Number+1) {
				if v := read(); v != reportMismatch {
					t.Fatalf("case %d: line %d reported as %d: %v, want reportMismatch", i, orig.Number, orig.Number+1, v)
				}
			}
			fr.Lines[k] = orig
		}
	}
}

func lineAt(lines []string, n int) string {
	if n > len(lines) {
		return fmt.Sprint("no line ", n)
	}
	return lines[n-1]
}
