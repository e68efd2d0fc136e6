package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The output checks compare what agentsh printed with what rg (or fd)
// finds on the same tree, so that a backend cannot be fast by being
// wrong. rg is run for the reference with --null, so paths with ":" in
// them cannot be misread, and its records are re-sorted byte-wise by
// path: agentsh's order (tools/search: "byte-wise order of the
// slash-separated path"), which is not rg's --sort path ("x" sorts as
// "x", not "x/": rg puts dir x/ before x.go, agentsh after). The lines of
// one file keep rg's order, line order.
//
// Where the two are not comparable, the reference is adjusted and the
// report says so:
//   - agentsh applies .gitignore files whether or not the tree is a git
//     repository; the reference rg gets --no-require-git (the timed rg
//     does not: it is the command as people type it).
//   - agentsh cuts a line longer than 2000 characters ("… [line cut: N
//     more characters]"); such a line is checked as a prefix of rg's.
//   - agentsh stops at head_limit, or at 64 MiB of output, and says so on
//     a last line ("[more results; continue with offset N]"); what it
//     printed is then checked as the first lines of rg's, and rg must
//     have more.
//   - Binary files: agentsh skips a file with a NUL byte in its first
//     8 KiB; rg stops reading a file at its first NUL byte anywhere. On a
//     tree where that differs the check fails and names the line.

// record is one line of a reference: its path, and the rest of the line
// as agentsh prints it after the path and ":" ("" in files mode).
type record struct{ path, rest string }

func (r record) String() string {
	if r.rest == "" {
		return r.path
	}
	return r.path + ":" + r.rest
}

// refs computes reference outputs once per tree and request.
type refs struct {
	rg    string
	mu    sync.Mutex
	cache map[string][]record
}

// grepModes maps agentsh's output_mode to rg's flag.
var grepModes = map[string]string{"content": "-n", "files_with_matches": "-l", "count": "-c"}

// grep returns rg's answer to pattern in mode over dir, in agentsh's order.
func (r *refs) grep(ctx context.Context, dir, pattern, mode string) ([]record, error) {
	key := "grep\x00" + dir + "\x00" + pattern + "\x00" + mode
	return r.cached(key, func() ([]record, error) {
		out, err := capture(ctx, stage{path: r.rg, dir: dir, okCodes: []int{1},
			args: []string{"--no-config", "--sort", "path", "--no-require-git", "--null", grepModes[mode], "-e", pattern}})
		if err != nil {
			return nil, err
		}
		return parseRgNull(out, mode == "files_with_matches")
	})
}

// glob returns the regular files below dir whose names end in ext,
// sorted byte-wise (as LC_ALL=C sort does). The list is rg's (--files
// --no-require-git), not fd's: fd 8 has no --no-require-git, and outside a
// git repository it lists what .gitignore files exclude, which agentsh
// does not.
func (r *refs) glob(ctx context.Context, dir, ext string) ([]record, error) {
	key := "glob\x00" + dir + "\x00" + ext
	return r.cached(key, func() ([]record, error) {
		out, err := capture(ctx, stage{path: r.rg, dir: dir, args: []string{"--no-config", "--files", "--no-require-git", "--null"}})
		if err != nil {
			return nil, err
		}
		var recs []record
		for p := range strings.SplitSeq(string(out), "\x00") {
			if strings.HasSuffix(p, "."+ext) {
				recs = append(recs, record{path: p})
			}
		}
		slices.SortFunc(recs, func(a, b record) int { return strings.Compare(a.path, b.path) })
		return recs, nil
	})
}

func (r *refs) cached(key string, compute func() ([]record, error)) ([]record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if recs, ok := r.cache[key]; ok {
		return recs, nil
	}
	recs, err := compute()
	if err != nil {
		return nil, fmt.Errorf("reference output: %w", err)
	}
	if r.cache == nil {
		r.cache = map[string][]record{}
	}
	r.cache[key] = recs
	return recs, nil
}

// capture runs one command and returns its standard output.
func capture(ctx context.Context, s stage) ([]byte, error) {
	var b bytes.Buffer
	_, err := pipeline{s}.run(ctx, &b)
	return b.Bytes(), err
}

// parseRgNull reads rg's --null output: "path\0rest\n" records, or with
// filesOnly "path\0" records, and sorts them stably by path.
func parseRgNull(out []byte, filesOnly bool) ([]record, error) {
	text := string(out)
	var recs []record
	for len(text) > 0 {
		i := strings.IndexByte(text, 0)
		if i < 0 {
			return nil, fmt.Errorf("rg --null printed %q with no NUL after the path", cut(text, 120))
		}
		path := text[:i]
		text = text[i+1:]
		if filesOnly {
			recs = append(recs, record{path: strings.TrimPrefix(path, "\n")})
			continue
		}
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			j = len(text)
		}
		recs = append(recs, record{path: path, rest: text[:j]})
		text = text[min(j+1, len(text)):]
	}
	slices.SortStableFunc(recs, func(a, b record) int { return strings.Compare(a.path, b.path) })
	return recs, nil
}

var (
	trailerRE = regexp.MustCompile(`^\[(more results; continue with offset \d+|showing the first \d+ of \d+ matches.*)\]$`)
	noMatchRE = regexp.MustCompile(`^(no matches for |no files match ).*$`)
	lineCutRE = regexp.MustCompile(`… \[line cut: \d+ more characters\]$`)
)

// agentshLines splits agentsh's output into its result lines and reports
// whether it ended with a "more results" line. "no matches for X" is no
// lines.
func agentshLines(out []byte) (lines []string, more bool) {
	text := strings.TrimSuffix(string(out), "\n")
	if text == "" || noMatchRE.MatchString(text) && !strings.Contains(text, "\n") {
		return nil, false
	}
	lines = strings.Split(text, "\n")
	if trailerRE.MatchString(lines[len(lines)-1]) {
		return lines[:len(lines)-1], true
	}
	return lines, false
}

// compareOutput checks agentsh's output against the reference; the note
// says what was compared.
func compareOutput(out []byte, want []record) (string, error) {
	got, more := agentshLines(out)
	if !more && len(got) != len(want) {
		at := min(len(got), len(want))
		if i := firstDiff(got, want); i >= 0 {
			at = i
		}
		return "", fmt.Errorf("output differs from the reference: got %d lines, want %d; first difference at line %d: %s", len(got), len(want), at+1, showPair(got, want, at))
	}
	if more && len(got) >= len(want) {
		return "", fmt.Errorf("output says there are more results after %d lines, but the reference has %d", len(got), len(want))
	}
	if i := firstDiff(got, want); i >= 0 {
		return "", fmt.Errorf("output differs from the reference at line %d: %s", i+1, showPair(got, want, i))
	}
	if more {
		return fmt.Sprintf("%d lines equal the first of the reference's %d", len(got), len(want)), nil
	}
	return fmt.Sprintf("%d lines equal the reference", len(got)), nil
}

// firstDiff is the index of the first line of got that is not the
// reference's line there, or -1.
func firstDiff(got []string, want []record) int {
	for i := range min(len(got), len(want)) {
		if !sameLine(got[i], want[i]) {
			return i
		}
	}
	return -1
}

// sameLine reports whether agentsh's line g is the reference record w,
// allowing for agentsh's cut of long lines.
func sameLine(g string, w record) bool {
	if g == w.String() {
		return true
	}
	loc := lineCutRE.FindStringIndex(g)
	return loc != nil && strings.HasPrefix(w.String(), g[:loc[0]])
}

func showPair(got []string, want []record, i int) string {
	g, w := "(nothing)", "(nothing)"
	if i < len(got) {
		g = fmt.Sprintf("%q", cut(got[i], 200))
	}
	if i < len(want) {
		w = fmt.Sprintf("%q", cut(want[i].String(), 200))
	}
	return fmt.Sprintf("got %s, want %s", g, w)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// verifyAgainst returns a variant's check: its output must be the
// reference that ref computes.
func verifyAgainst(ref func() ([]record, error)) func(string) (string, error) {
	return func(outPath string) (string, error) {
		want, err := ref()
		if err != nil {
			return "", err
		}
		out, err := os.ReadFile(outPath)
		if err != nil {
			return "", err
		}
		return compareOutput(out, want)
	}
}
