package jsonl

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestReadLine: lines longer than the reader's buffer come whole, the
// last line without a newline too, then io.EOF.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	br := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\nlast"), 16)
	var got []string
	var buf []byte
	for {
		line, err := ReadLine(br, buf[:0])
		buf = line
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"a\n", long + "\n", "last"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}
}
