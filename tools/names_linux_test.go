package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/tools"
)

// oddNames are file names that must print unambiguously, each with the
// form the tools print it in.
var oddNames = map[string]string{
	"plain.txt":                  "plain.txt",
	"with space.txt":             "with space.txt",
	`quo"te.txt`:                 `quo"te.txt`,
	`back\slash.txt`:             `back\slash.txt`,
	"café.txt":                   "café.txt",
	"new\nline.txt":              `"new\nline.txt"`,
	"tab\there.txt":              `"tab\there.txt"`,
	"bad\xffname.txt":            `"bad\377name.txt"`,
	`"leading.txt`:               `"\"leading.txt"`,
	"esc\x1b[2J.txt":             `"esc\033[2J.txt"`,
	"evil\nfake.go:1:INJECTED":   `"evil\nfake.go:1:INJECTED"`,
	"d\nir/inner.txt":            `"d\nir/inner.txt"`,
	"sep\u2028.txt":              `"sep\342\200\250.txt"`,
	"cr\r.txt":                   `"cr\r.txt"`,
	"dir with space/x\\n\ty.txt": `"dir with space/x\\n\ty.txt"`,
}

// oddTree writes every odd name with a content that names it (as
// printed: the content is one line of valid UTF-8).
func oddTree(t *testing.T, e *env) {
	t.Helper()
	for name, shown := range oddNames {
		e.write(map[string]string{name: "marker for " + shown + "\n"})
	}
}

// lines splits tool output into its lines.
func lines(out string) []string {
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// jsonTrip sends s through JSON as a model's reply would carry it.
func jsonTrip(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// glob prints every odd name once, on one line each, as documented; each
// printed line, carried through JSON and passed back as a path, reads
// that file with every file tool.
func TestOddNamesGlobRoundTrip(t *testing.T) {
	for _, pair := range backendsAvailable(t) {
		t.Run(pair[1], func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{})
			if err := e.ext.SetGlobBackend(pair[1]); err != nil {
				t.Fatal(err)
			}
			oddTree(e.t.(*testing.T), e)
			out := e.ok("glob", map[string]any{"pattern": "**/*"})
			if !utf8.ValidString(out) {
				t.Fatalf("glob output is not valid UTF-8: %q", out)
			}
			var want []string
			for _, shown := range oddNames {
				want = append(want, shown)
			}
			got := lines(out)
			sort.Strings(want)
			if strings.Join(sortedCopy(got), "\n") != strings.Join(want, "\n") {
				t.Fatalf("glob printed:\n%s\nwant these lines (any order here):\n%s", out, strings.Join(want, "\n"))
			}
			byShown := map[string]string{}
			for raw, shown := range oddNames {
				byShown[shown] = raw
			}
			for _, line := range got {
				p := jsonTrip(t, line)
				raw := byShown[line]
				if got := e.ok("read_file", map[string]any{"path": p}); got != "     1\tmarker for "+line+"\n" {
					t.Errorf("read_file %s: %q", line, got)
				}
				e.ok("edit_file", map[string]any{"path": p, "old_string": "marker", "new_string": "edited"})
				if got := e.read(raw); got != "edited for "+line+"\n" {
					t.Errorf("edit_file %s: the file holds %q", line, got)
				}
				e.ok("write_file", map[string]any{"path": p, "content": "marker for " + line + "\n"})
				if got := e.read(raw); got != "marker for "+line+"\n" {
					t.Errorf("write_file %s: the file holds %q", line, got)
				}
				if got := e.ok("glob", map[string]any{"pattern": "*", "path": jsonTrip(t, quoteDir(raw))}); !strings.Contains(got, line) {
					t.Errorf("glob with path %s: %q", quoteDir(raw), got)
				}
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// quoteDir is the directory of raw, written as the tools would print it
// (a test-side copy of the rule: only the names used here).
func quoteDir(raw string) string {
	d := filepath.Dir(raw)
	switch d {
	case ".":
		return ""
	case "d\nir":
		return `"d\nir"`
	}
	return d
}

// grep output cannot be confused: every line starts with a path that is
// either bare (up to the first ":") or a quoted string, and names a real
// file; a name holding "\nfake.go:1:" injects no line.
func TestOddNamesGrepOutput(t *testing.T) {
	done := map[string]bool{}
	for _, pair := range backendsAvailable(t) {
		if done[pair[0]] {
			continue
		}
		done[pair[0]] = true
		t.Run(pair[0], func(t *testing.T) {
			e := newEnv(t, tools.ExtensionConfig{})
			if err := e.ext.SetGrepBackend(pair[0]); err != nil {
				t.Fatal(err)
			}
			oddTree(e.t.(*testing.T), e)
			for _, mode := range []string{"content", "files_with_matches", "count"} {
				out := e.ok("grep", map[string]any{"pattern": "marker", "output_mode": mode})
				if !utf8.ValidString(out) {
					t.Fatalf("%s: not valid UTF-8: %q", mode, out)
				}
				got := lines(out)
				if len(got) != len(oddNames) {
					t.Errorf("%s: %d lines for %d files:\n%s", mode, len(got), len(oddNames), out)
				}
				for _, line := range got {
					shown, rest := splitShownPath(t, line)
					known := false
					for _, s := range oddNames {
						known = known || s == shown
					}
					if !known {
						t.Errorf("%s: line %q starts with %q, which is no file", mode, line, shown)
						continue
					}
					want := map[string]string{"content": ":1:marker for " + shown, "files_with_matches": "", "count": ":1"}[mode]
					if rest != want {
						t.Errorf("%s: line %q: after the path %q, want %q", mode, line, rest, want)
					}
				}
				if strings.Contains(out, "\nfake.go:1:") {
					t.Errorf("%s: a name injected a line: %q", mode, out)
				}
			}
		})
	}
}

// splitShownPath splits a grep line into the path as printed and the rest.
func splitShownPath(t *testing.T, line string) (string, string) {
	t.Helper()
	if !strings.HasPrefix(line, `"`) {
		i := strings.IndexByte(line, ':')
		if i < 0 {
			return line, ""
		}
		return line[:i], line[i:]
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			return line[:i+1], line[i+1:]
		}
	}
	t.Fatalf("unterminated quoted path in %q", line)
	return "", ""
}

// list_dir prints odd names the same way and takes them back.
func TestOddNamesListDir(t *testing.T) {
	e := newEnv(t, tools.ExtensionConfig{})
	oddTree(t, e)
	if err := os.Symlink("plain.txt", filepath.Join(e.dir, "link\nname")); err != nil {
		t.Fatal(err)
	}
	out := e.ok("list_dir", map[string]any{"depth": 2})
	for raw, shown := range oddNames {
		if !strings.Contains("\n"+out, "\n"+shown+"\n") {
			t.Errorf("list_dir does not show %q as %s:\n%s", raw, shown, out)
		}
	}
	for _, want := range []string{`"d\nir"/`, `"link\nname"@`, "dir with space/"} {
		if !strings.Contains("\n"+out, "\n"+want+"\n") {
			t.Errorf("list_dir does not show %s:\n%s", want, out)
		}
	}
	if n := len(lines(out)); n != len(oddNames)+3 {
		t.Errorf("list_dir printed %d lines, want %d:\n%s", n, len(oddNames)+3, out)
	}
	if got := e.ok("list_dir", map[string]any{"path": `"d\nir"`}); got != "inner.txt\n" {
		t.Errorf("list_dir of a quoted directory: %q", got)
	}
	// A quoted path that is not well formed is an error, not a name.
	e.fails("read_file", map[string]any{"path": `"new\nline.txt`}, core.KindInvalidArguments, "not a valid quoted path", "does not end")
	e.fails("read_file", map[string]any{"path": `"leading.txt`}, core.KindInvalidArguments, "not a valid quoted path")
	e.fails("read_file", map[string]any{"path": `"a\qb"`}, core.KindInvalidArguments, `unknown escape \q`)
	e.fails("read_file", map[string]any{"path": `"nul\000"`}, core.KindInvalidArguments, "NUL byte")
	// Messages print the path the same way.
	e.fails("read_file", map[string]any{"path": `"no\nsuch"`}, core.KindFailed, `"no\nsuch" does not exist`)
	if got := e.ok("write_file", map[string]any{"path": `"new\tfile"`, "content": ""}); got != `wrote 0 bytes to "new\tfile"` {
		t.Errorf("write_file message: %q", got)
	}
}
