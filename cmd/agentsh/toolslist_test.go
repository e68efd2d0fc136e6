package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// The tool list wraps descriptions to the width, at spaces, with
// continuation lines under the description column.
func TestWriteToolList(t *testing.T) {
	names := []string{"bash", "read_file", "x"}
	descs := []string{
		"Runs a bash command in the working directory and returns its combined output.",
		"Reads a file.",
		"",
	}
	var b bytes.Buffer
	writeToolList(&b, names, descs, 50)
	want := "" +
		"bash       Runs a bash command in the working\n" +
		"           directory and returns its combined\n" +
		"           output.\n" +
		"read_file  Reads a file.\n" +
		"x\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if runewidth.StringWidth(l) > 50 {
			t.Errorf("line %q is wider than 50", l)
		}
	}

	// A terminal too narrow for the names keeps a usable description
	// column; a word longer than the column stands on a line of its own.
	b.Reset()
	writeToolList(&b, []string{"t"}, []string{"a " + strings.Repeat("w", 40) + " b"}, 10)
	want = "t  a\n   " + strings.Repeat("w", 40) + "\n   b\n"
	if b.String() != want {
		t.Errorf("narrow: got %q, want %q", b.String(), want)
	}

	// Wide characters count by the columns they take.
	b.Reset()
	writeToolList(&b, []string{"t"}, []string{"日本語 日本語 日本語 日本語 日本語 日本語"}, 3+minDescWidth)
	if want := "t  日本語 日本語 日本語 日本語\n   日本語 日本語\n"; b.String() != want {
		t.Errorf("wide: got %q, want %q", b.String(), want)
	}
}

// The width is $COLUMNS when set, else 80 for output that is no terminal.
func TestOutputWidth(t *testing.T) {
	t.Setenv("COLUMNS", "")
	if got := outputWidth(&bytes.Buffer{}); got != 80 {
		t.Errorf("a buffer: width %d, want 80", got)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := outputWidth(f); got != 80 {
		t.Errorf("a file: width %d, want 80", got)
	}
	t.Setenv("COLUMNS", "132")
	if got := outputWidth(f); got != 132 {
		t.Errorf("COLUMNS=132: width %d", got)
	}
	t.Setenv("COLUMNS", "wide")
	if got := outputWidth(f); got != 80 {
		t.Errorf("COLUMNS=wide: width %d, want 80", got)
	}
}
