package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools/search"
)

// grepOutputFiles are results to format: paths that need quoting, lines
// with gaps (for "--"), a long line that is cut, and counts.
func grepOutputFiles() []search.FileResult {
	var fs []search.FileResult
	for i, p := range []string{"a.go", "new\nline.go", `"q.txt`, "b/\xffc.txt", "d.md"} {
		f := search.FileResult{Path: p}
		for n := 1; n <= 12; n++ {
			if n%4 == 3 {
				continue
			}
			text := fmt.Sprintf("line %d of %d", n, i)
			if n == 5 && i == 2 {
				text = strings.Repeat("é", maxLineChars+7)
			}
			f.Lines = append(f.Lines, search.Line{Number: n, Text: text, Match: n%2 == 0})
			if n%2 == 0 {
				f.Count++
			}
		}
		fs = append(fs, f)
	}
	return fs
}

// format runs grepOutput over fs, held or streamed, and returns what a
// person is shown.
func format(fs []search.FileResult, mode string, offset, limit, max int, grouped, stream bool) (string, error) {
	var w *strings.Builder
	o := newGrepOutput(mode, offset, limit, grouped, true, nil)
	if stream {
		w = new(strings.Builder)
		o = newGrepOutput(mode, offset, limit, grouped, true, w)
	}
	o.max = max
	for _, f := range fs {
		if !o.file(f, func() bool { return false }) {
			break
		}
	}
	out, err := o.finish("pat")
	if err != nil {
		return "", err
	}
	if stream {
		if _, ok := out.(core.StreamedOutput); !ok {
			return "", fmt.Errorf("streamed output is %T, want core.StreamedOutput", out)
		}
		return w.String(), nil
	}
	var r core.Result
	if err := r.SetOutput(out); err != nil {
		return "", err
	}
	s := r.Display()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s, nil
}

// Held and streamed, grep's formatting shows the same bytes, whatever the
// mode, page and output cap; the cap bounds what is shown and ends it
// with the trailer.
func TestGrepOutputCap(t *testing.T) {
	fs := grepOutputFiles()
	for _, mode := range []string{"files_with_matches", "count", "content"} {
		for _, grouped := range []bool{false, true} {
			for _, page := range [][2]int{{0, 500}, {0, 3}, {4, 5}, {100, 500}} {
				for _, max := range []int{1, 40, 100, 300, 5000, maxOutputBytes} {
					name := fmt.Sprintf("%s grouped %v offset %d head_limit %d cap %d", mode, grouped, page[0], page[1], max)
					held, err := format(fs, mode, page[0], page[1], max, grouped, false)
					if err != nil {
						t.Fatalf("%s: held: %v", name, err)
					}
					streamed, err := format(fs, mode, page[0], page[1], max, grouped, true)
					if err != nil {
						t.Fatalf("%s: streamed: %v", name, err)
					}
					if streamed != held {
						t.Errorf("%s: streamed\n%q\nwant the held\n%q", name, streamed, held)
					}
					lines := strings.Split(strings.TrimSuffix(held, "\n"), "\n")
					body := 0
					for _, l := range lines {
						if !strings.HasPrefix(l, "[more results") {
							body += len(l) + 1
						}
					}
					if more := strings.HasPrefix(lines[len(lines)-1], "[more results"); max <= 40 && page[0] == 0 && !more {
						t.Errorf("%s: the output\n%s\ndoes not say there are more results", name, held)
					}
					if len(lines) > 2 && body > max {
						t.Errorf("%s: %d bytes shown, over the cap", name, body)
					}
				}
			}
		}
	}
}

// jsonText gives what a JSON round trip gives, for any bytes.
func TestJSONTextIsTheJSONRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "caf\xe9", "\xff\xfe", "\xc3", "\xe2\x82", "ok \xef\xbf\xbd kept", "日本\x80語", "\x00\u2028\ud7ff", "a\xf4\x90\x80\x80b", "\xed\xa0\x80"} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if got := jsonText(s); got != want {
			t.Errorf("jsonText(%q) = %q, want %q", s, got, want)
		}
	}
}
