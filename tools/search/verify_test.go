package search

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func report(count int, lines ...Line) *FileResult {
	return &FileResult{Path: "f", Lines: lines, Count: count}
}

func m(n int, text string) Line { return Line{Number: n, Text: text, Match: true} }
func c(n int, text string) Line { return Line{Number: n, Text: text} }

type checkCase struct {
	name          string
	file          string
	fr            *FileResult
	before, after int
	want          reportCheck
}

func TestCheckReport(t *testing.T) {
	const file = "one\ntwo\nneedle\nfour\n\nsix"
	cases := []checkCase{
		{"match", file, report(1, m(3, "needle")), 0, 0, reportOK},
		{"first line", file, report(1, m(1, "one")), 0, 0, reportOK},
		{"last line without newline", file, report(1, m(6, "six")), 0, 0, reportOK},
		{"empty line", file, report(1, m(5, "")), 0, 0, reportOK},
		{"context", file, report(1, c(2, "two"), m(3, "needle"), c(4, "four")), 1, 1, reportOK},
		{"context cut by the end", file, report(1, c(5, ""), m(6, "six")), 1, 3, reportOK},
		{"context cut by the start", file, report(1, m(1, "one"), c(2, "two")), 2, 1, reportOK},
		{"merged context", file, report(2, m(1, "one"), c(2, "two"), m(3, "needle")), 1, 0, reportOK},
		{"two groups", file, report(2, m(1, "one"), m(6, "six")), 0, 0, reportOK},
		{"trailing newline ends", "a\nneedle\n", report(1, m(2, "needle")), 0, 2, reportOK},

		{"other text", file, report(1, m(3, "needlf")), 0, 0, reportMismatch},
		{"prefix only", file, report(1, m(3, "need")), 0, 0, reportMismatch},
		{"longer", file, report(1, m(3, "needle!")), 0, 0, reportMismatch},
		{"longer than the file", file, report(1, m(6, "sixty")), 0, 0, reportMismatch},
		{"beyond the end", file, report(1, m(7, "")), 0, 0, reportMismatch},
		{"empty line after the last newline", "a\n", report(1, m(2, "")), 0, 0, reportMismatch},
		{"context missing after", file, report(1, m(3, "needle")), 0, 1, reportMismatch},
		{"context missing before", file, report(1, m(3, "needle")), 1, 0, reportMismatch},
		{"context not asked for", file, report(1, m(3, "needle"), c(4, "four")), 0, 0, reportMismatch},
		{"context stops short of more lines", file, report(1, m(3, "needle"), c(4, "four")), 0, 2, reportMismatch},
		{"out of order", file, report(2, m(3, "needle"), m(1, "one")), 0, 0, reportMismatch},
		{"twice", file, report(2, m(3, "needle"), m(3, "needle")), 0, 0, reportMismatch},
		{"wrong count", file, report(2, m(3, "needle")), 0, 0, reportMismatch},
		{"no match", file, report(0, c(3, "needle")), 0, 0, reportMismatch},
		{"line zero", file, report(1, m(0, "")), 0, 0, reportMismatch},
		{"crlf", "a\r\nb\r\n", report(1, m(2, "b\r")), 0, 0, reportOK},
		{"crlf dropped", "a\r\nb\r\n", report(1, m(2, "b")), 0, 0, reportMismatch},

		{"binary", "needle\n\x00", report(1, m(1, "needle")), 0, 0, reportBinary},
		{"binary after the match", "needle\n" + strings.Repeat("x", 8000) + "\x00", report(1, m(1, "needle")), 0, 0, reportBinary},
		{"NUL after 8 KiB", "needle\n" + strings.Repeat("x", 8192) + "\x00\n", report(1, m(1, "needle")), 0, 0, reportOK},
	}
	// Lines across chunk boundaries, and one longer than a chunk.
	long := strings.Repeat("y", 3*verifyBuffer+17)
	big := strings.Repeat("x\n", verifyBuffer/2-3) + "needle\n" + long + "\nend\n"
	cases = append(cases,
		checkCase{"across chunks", big, report(2, m(verifyBuffer/2-2, "needle"), m(verifyBuffer/2-1, long), c(verifyBuffer/2, "end")), 0, 1, reportOK},
		checkCase{"across chunks, one byte off", big, report(2, m(verifyBuffer/2-2, "needle"), m(verifyBuffer/2-1, long[:len(long)-1]+"z"), c(verifyBuffer/2, "end")), 0, 1, reportMismatch},
	)
	for _, tc := range cases {
		for _, rd := range []struct {
			name string
			r    func(string) io.Reader
		}{
			{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
			{"byte by byte", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
		} {
			got, _, err := checkReport(rd.r(tc.file), nil, tc.fr, tc.before, tc.after)
			if err != nil || got != tc.want {
				t.Errorf("%s (%s): got %v, %v; want %v", tc.name, rd.name, got, err, tc.want)
			}
		}
	}
}

// TestCheckReportReadsLittle checks that a file is read only as far as
// the last line rg printed (and its first 8 KiB).
func TestCheckReportReadsLittle(t *testing.T) {
	file := "needle\n" + strings.Repeat("x\n", 1<<20)
	r := &countingReader{r: strings.NewReader(file)}
	got, _, err := checkReport(r, nil, report(1, m(1, "needle")), 0, 0)
	if err != nil || got != reportOK {
		t.Fatalf("got %v, %v", got, err)
	}
	if r.n > verifyBuffer {
		t.Errorf("read %d bytes of %d, want at most %d", r.n, len(file), verifyBuffer)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestJudgeStderr(t *testing.T) {
	cases := []struct {
		stderr string
		want   stderrVerdict
		msg    string
	}{
		{"", stderrClean, ""},
		{"./a: Permission denied (os error 13)\n", stderrClean, ""},
		{"./a: Permission denied (os error 13)\n./b: Operation not permitted (os error 1)\n", stderrClean, ""},
		{"[fd error]: ./a: Permission denied (os error 13)\n", stderrClean, ""},
		{"./d/d: File name too long (os error 36)\n", stderrMissed, ""},
		{"./a: Permission denied (os error 13)\n./b: No such file or directory (os error 2)\n", stderrMissed, ""},
		{"./we\nird: Permission denied (os error 13)\n", stderrClean, ""},
		{"./x (os error 13)\ny: File name too long (os error 36)\n", stderrMissed, ""},
		{"error: unexpected argument '--foo'\n\nUsage: rg\n", stderrOther, "error: unexpected argument '--foo'"},
		{"./a: Permission denied (os error 13)\nregex parse error\n", stderrOther, "regex parse error"},
		{"./a: (os error 13) and more\n", stderrOther, "./a: (os error 13) and more"},
		{"./a: (os error )\n", stderrOther, "./a: (os error )"},
	}
	for _, c := range cases {
		var b cappedBuffer
		b.WriteString(c.stderr)
		got, msg := judgeStderr(&b)
		if got != c.want || msg != c.msg {
			t.Errorf("judgeStderr(%q) = %v, %q; want %v, %q", c.stderr, got, msg, c.want, c.msg)
		}
	}
	// Messages beyond the cap are lost: the verdict cannot be clean.
	var b cappedBuffer
	msg := []byte("./a: Permission denied (os error 13)\n")
	for range stderrCap/len(msg) + 2 {
		b.Write(msg)
	}
	if b.Len() != stderrCap || !b.overflow {
		t.Fatalf("kept %d bytes (overflow %v), want %d", b.Len(), b.overflow, stderrCap)
	}
	if got, _ := judgeStderr(&b); got == stderrClean {
		t.Errorf("overflowing permission errors: clean, want not")
	}
}

func TestParseRgOutput(t *testing.T) {
	long := strings.Repeat("z", 300<<10) // longer than the reader's buffer
	out := "./a\x001:x\n./a\x002-y\x00z\n./new\nline\x003:x\n./" + long + "\x001:" + long + "\n"
	var got []FileResult
	if err := parseRgOutput(strings.NewReader(out), func(f *FileResult) { got = append(got, *f) }); err != nil {
		t.Fatal(err)
	}
	want := []FileResult{
		{Path: "a", Count: 1, Lines: []Line{m(1, "x"), c(2, "y\x00z")}},
		{Path: "new\nline", Count: 1, Lines: []Line{m(3, "x")}},
		{Path: long, Count: 1, Lines: []Line{m(1, string(lineText([]byte(long))))}}, // cut, see lineText
	}
	if len(got) != len(want) {
		t.Fatalf("got %d files, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := formatResult(got[i]), formatResult(want[i]); g != w {
			t.Errorf("file %d: got %.80q, want %.80q", i, g, w)
		}
	}
	for _, bad := range []string{
		"./a\x001:x",  // cut short
		"./a",         // cut short
		"./a\x00x\n",  // no line number
		"./a\x001x\n", // no separator
		"./a: binary file matches (found \"\\0\" byte around offset 6)\n", // not printed with -a
	} {
		err := parseRgOutput(bytes.NewReader([]byte(bad)), func(*FileResult) {})
		if err == nil {
			t.Errorf("parseRgOutput(%q): no error", bad)
		}
	}
}

func formatResult(r FileResult) string {
	var b strings.Builder
	b.WriteString(r.Path + "#" + strconv.Itoa(r.Count) + "\n")
	for _, l := range r.Lines {
		sep := "-"
		if l.Match {
			sep = ":"
		}
		b.WriteString("  " + strconv.Itoa(l.Number) + sep + l.Text + "\n")
	}
	return b.String()
}
