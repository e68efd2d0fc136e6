package main

import (
	"strings"
	"testing"
)

func recs(lines ...string) []record {
	var out []record
	for _, l := range lines {
		p, rest, _ := strings.Cut(l, ":")
		out = append(out, record{path: p, rest: rest})
	}
	return out
}

func TestCompareOutput(t *testing.T) {
	long := strings.Repeat("x", 2500)
	ref := recs("a.go:1:func a", "a.go:9:func b", "b/c.go:3:func c")
	for _, tc := range []struct {
		name, out string
		want      []record
		err       string // "" for a match
	}{
		{"equal", "a.go:1:func a\na.go:9:func b\nb/c.go:3:func c\n", ref, ""},
		{"head limit", "a.go:1:func a\na.go:9:func b\n[more results; continue with offset 2]\n", ref, ""},
		{"no matches", "no matches for zzz\n", nil, ""},
		{"empty glob", "no files match *.zz\n", nil, ""},
		{"glob limit", "a.go\n[showing the first 1 of 2 matches; narrow the pattern or raise limit]\n", recs("a.go", "b.go"), ""},
		{"line cut", "a.go:1:" + long[:2000] + "… [line cut: 500 more characters]\n", recs("a.go:1:" + long), ""},
		{"a line missing", "a.go:1:func a\nb/c.go:3:func c\n", ref, "got 2 lines, want 3; first difference at line 2"},
		{"a line too many", "a.go:1:func a\na.go:9:func b\nb/c.go:3:func c\nd.go:1:func d\n", ref, "got 4 lines, want 3"},
		{"wrong text", "a.go:1:func a\na.go:9:func B\nb/c.go:3:func c\n", ref, `line 2: got "a.go:9:func B", want "a.go:9:func b"`},
		{"wrong order", "a.go:9:func b\na.go:1:func a\nb/c.go:3:func c\n", ref, "at line 1"},
		{"more claimed, none left", "a.go:1:func a\na.go:9:func b\nb/c.go:3:func c\n[more results; continue with offset 3]\n", ref, "says there are more results"},
		{"cut line that is not a prefix", "a.go:1:y… [line cut: 3 more characters]\n", recs("a.go:1:xyzw"), "at line 1"},
		{"matches where there are none", "a.go:1:func a\n", nil, "got 1 lines, want 0"},
		{"none where there are", "no matches for func\n", ref, "got 0 lines, want 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			note, err := compareOutput([]byte(tc.out), tc.want)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("got %v, want a match", err)
			case tc.err == "" && !strings.Contains(note, "equal"):
				t.Errorf("note %q does not say what was compared", note)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("got %v, want an error containing %q", err, tc.err)
			}
		})
	}
}

// TestParseRgNull: rg's records come back in agentsh's order, byte-wise
// by path (rg --sort path puts dir x/ before x.go; agentsh after), the
// lines of one file in rg's order, and a ":" in a path is not misread.
func TestParseRgNull(t *testing.T) {
	out := "x/a.go\x003:func a\nx/a.go\x001:func z\nx.go\x002:func b\nc:d.go\x004:func c\n"
	got, err := parseRgNull([]byte(out), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []record{{"c:d.go", "4:func c"}, {"x.go", "2:func b"}, {"x/a.go", "3:func a"}, {"x/a.go", "1:func z"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: got %v, want %v", i, got[i], want[i])
		}
	}
	files, err := parseRgNull([]byte("x/a.go\x00x.go\x00"), true)
	if err != nil || len(files) != 2 || files[0].path != "x.go" || files[1].path != "x/a.go" {
		t.Errorf("files mode: got %v, %v; want [x.go x/a.go]", files, err)
	}
	if _, err := parseRgNull([]byte("no nul here\n"), false); err == nil {
		t.Error("output without --null's NUL was accepted; want an error")
	}
}
