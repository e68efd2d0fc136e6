package search

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// collectReduced is collect for the native backend's ModeContent result
// of req, reduced to what req.Mode reads: the reference for the other
// backends' modes.
func collectReduced(t *testing.T, g Grepper, req GrepRequest) string {
	t.Helper()
	mode := req.Mode
	req.Mode, req.Limit = ModeContent, 0
	var b strings.Builder
	err := g.Grep(context.Background(), req, func(r FileResult) bool {
		r = reduce(mode, r)
		fmt.Fprintf(&b, "%s#%d\n", r.Path, r.Count)
		for _, l := range r.Lines {
			fmt.Fprintf(&b, "  %d %v %q\n", l.Number, l.Match, l.Text)
		}
		return true
	})
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return b.String()
}

// firstFiles keeps the first n files of a collect listing.
func firstFiles(listing string, n int) string {
	var b strings.Builder
	files := 0
	for l := range strings.SplitAfterSeq(listing, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			if files == n {
				break
			}
			files++
		}
		b.WriteString(l)
	}
	return b.String()
}

// collectTaking is collect by a caller that takes req.Limit files.
func collectTaking(t *testing.T, g Grepper, req GrepRequest) string {
	t.Helper()
	var b strings.Builder
	files := 0
	err := g.Grep(context.Background(), req, func(r FileResult) bool {
		fmt.Fprintf(&b, "%s#%d\n", r.Path, r.Count)
		for _, l := range r.Lines {
			fmt.Fprintf(&b, "  %d %v %q\n", l.Number, l.Match, l.Text)
		}
		files++
		return req.Limit == 0 || files < req.Limit
	})
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return b.String()
}

// modesTree is a tree whose names sort differently by name and by path
// ("x" before "x.go" by name, after it by path), with names rg could
// read as something else ("-", "-e"), ignored, hidden and binary files,
// and enough files for many runs of files per search.
func modesTree(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		".gitignore":     "*.log\nbuild/\n",
		"x.go":           "package x\nfunc needle() {}\n",
		"x/a.go":         "needle\nfunc a\n",
		"x/y.go":         "no\n",
		"x-y/b.go":       "zero\nneedle one\nfunc b\nneedle two\n",
		"x!/c.txt":       "NEEDLE upper\n",
		"xa":             "needle xa\n",
		"a b/c":          "the needle\r\nfunc c\r\n",
		"-":              "needle dash\n",
		"-e":             "needle dash e\n",
		"ignored.log":    "needle\n",
		"build/z.go":     "needle\n",
		".hidden/h.go":   "needle hidden\n",
		"bin.dat":        "needle\n\x00\n",
		"é/ü.go":         "needle ü\nfunc ü\n",
		"long/line.txt":  strings.Repeat("a", MaxLineBytes+10) + "needle\nneedle\n",
		"ctx/many.txt":   strings.Repeat("needle\nfill\nfill\n", 30),
		"late/first.txt": strings.Repeat("fill\n", 500) + "needle late\n",
		// Files around a subdirectory: rg gets them by path.
		"mix/a.txt": "needle\n", "mix/b/c.txt": "needle\n", "mix/d.txt": "needle\n",
		// Mostly ignored: by path. Some ignored or hidden: whole, and
		// rg's reports on those are dropped.
		"ign/1.log": "needle\n", "ign/2.log": "needle\n", "ign/3.log": "needle\n", "ign/k.txt": "needle\n",
		"half/a.txt": "needle\n", "half/b.txt": "needle\n", "half/c.log": "needle\n", "half/.d": "needle\n",
	}
	for d := range 4 {
		for f := range 4 {
			files[fmt.Sprintf("pkg%d/f%d.go", d, f)] = strings.Repeat(fmt.Sprintf("func f%d() {}\n", f), f) + fmt.Sprintf("needle %d %d\n", d, f)
		}
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	return root
}

// TestRipgrepModesMatchNative compares the ripgrep backend, in every mode
// and with and without a limit, with the native backend's results
// reduced to that mode, with runs of a few files so that results cross
// many of them.
func TestRipgrepModesMatchNative(t *testing.T) {
	requireRg(t)
	root := modesTree(t)
	native := NewNative(root)
	reqs := []GrepRequest{
		{Pattern: "needle"},
		{Pattern: "needle", Before: 1, After: 2},
		{Pattern: "needle", IgnoreCase: true},
		{Pattern: `ne.dle`},     // a superset pattern for rg
		{Pattern: `\bneedle\B`}, // another
		{Pattern: `needle\nfunc`, Multiline: true},
		{Pattern: `ne.dle\nf`, Multiline: true}, // a superset over whole files
		{Pattern: "func", Type: "go"},
		{Pattern: "needle", Glob: "*.go"},
		{Pattern: "needle", Path: "x"},
		{Pattern: "needle", Hidden: true},
		{Pattern: "needle", NoIgnore: true},
		{Pattern: "found nowhere"},
	}
	for _, sizes := range [][2]int{{2, 8}, {rgBatchFirst, rgBatchMax}} {
		rg := requireRg(t)
		rg.root, rg.native = root, native
		rg.batchFirst, rg.batchMax = sizes[0], sizes[1]
		for _, req := range reqs {
			for _, mode := range []Mode{ModeContent, ModeFiles, ModeCount} {
				req.Mode = mode
				before := stats.RipgrepFallbacks.Load()
				want := collectReduced(t, native, req)
				if got := collect(t, rg, req); got != want {
					t.Errorf("runs of %v, %+v:\nripgrep:\n%s\nnative:\n%s", sizes, req, got, want)
				}
				req.Limit = 3
				if got, want := collectTaking(t, rg, req), firstFiles(want, req.Limit); got != want {
					t.Errorf("runs of %v, %+v:\nripgrep:\n%s\nwant the first %d files:\n%s", sizes, req, got, req.Limit, want)
				}
				req.Limit = 0
				if stats.RipgrepFallbacks.Load() != before {
					t.Errorf("runs of %v, %+v: handed to the native backend", sizes, req)
				}
			}
		}
	}
}

// rgWrapper puts a script named rg first on PATH that logs its
// arguments, one a line, to the file it returns, then runs the real rg
// unless fail (a shell condition on "$@") holds.
func rgWrapper(t *testing.T, fail string) (log string) {
	t.Helper()
	real, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) not found; apt-get install ripgrep")
	}
	log = filepath.Join(t.TempDir(), "args")
	script := fmt.Sprintf("printf '%%s\\n' \"$@\" >> %q\n", log)
	if fail != "" {
		script += fail + "\n"
	}
	fakeProgram(t, "rg", script+fmt.Sprintf("exec %q \"$@\"", real))
	return log
}

// TestRipgrepStopsEarly checks that a limited search gives rg few more
// files than it needs, and still emits the first files of the full
// result.
func TestRipgrepStopsEarly(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%40, i)] = "needle\n"
	}
	writeFiles(t, root, files)
	log := rgWrapper(t, "")
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	rg.native.workers = 2
	req := GrepRequest{Pattern: "needle", Mode: ModeFiles, Limit: 10}
	got := collectTaking(t, rg, req)
	want := firstFiles(collectReduced(t, NewNative(root), req), 10)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Files rg was given, by path or in a directory given whole.
	given := 0
	for l := range strings.SplitSeq(string(data), "\n") {
		switch fi, err := os.Stat(filepath.Join(root, l)); {
		case err != nil || strings.HasPrefix(l, "-") || l == "" || l == ".":
		case fi.IsDir():
			entries, _ := os.ReadDir(filepath.Join(root, l))
			given += len(entries)
		default:
			given++
		}
	}
	// Runs of 64, 128 and 256 files at most are under way when the
	// first ends, and a run ends only between directories (of 15 files
	// here).
	if given == 0 || given > 64+128+256+3*15 {
		t.Errorf("rg was given %d files for a search that takes 10 of 600", given)
	}
}

// TestRipgrepHandsOverMidway makes rg fail on a later run of files, as
// when a file it was given is gone: the native backend answers from
// where rg's results end, and the result is whole, each file once.
func TestRipgrepHandsOverMidway(t *testing.T) {
	root := modesTree(t)
	rgWrapper(t, `for a; do case "$a" in pkg2/f0.go) printf 'pkg2/f0.go: No such file or directory (os error 2)\n' >&2; exit 2;; esac; done`)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	rg.batchFirst, rg.batchMax = 2, 2
	for _, mode := range []Mode{ModeContent, ModeFiles, ModeCount} {
		req := GrepRequest{Pattern: "needle", Mode: mode}
		before := stats.RipgrepFallbacks.Load()
		got := collect(t, rg, req)
		if want := collectReduced(t, NewNative(root), req); got != want {
			t.Errorf("%+v:\ngot\n%s\nwant\n%s", req, got, want)
		}
		if stats.RipgrepFallbacks.Load() == before {
			t.Errorf("%+v: rg failed and the backend did not hand over", req)
		}
	}
}

// TestRipgrepReportsInOrder gives the backend an rg that reports on the
// files it was given out of order: that is not rg's output, and the
// native backend answers.
func TestRipgrepReportsInOrder(t *testing.T) {
	root := t.TempDir()
	writeTestFiles(t, root, map[string]string{"a.txt": "needle a\n", "b.txt": "needle b\n"})
	fakeProgram(t, "rg", `printf './b.txt\0001:needle b\n./a.txt\0001:needle a\n'`)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	before := stats.RipgrepFallbacks.Load()
	got, err := grepResult(rg, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a.txt#1\n  1:needle a\nb.txt#1\n  1:needle b\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if stats.RipgrepFallbacks.Load() == before {
		t.Errorf("reports out of order were taken")
	}
}

// TestRipgrepCountIsTheFiles checks that under ModeCount the count comes
// from the file below the root, not from rg: an rg that names a file
// with a match, whatever it counted, gets the file's own count.
func TestRipgrepCountIsTheFiles(t *testing.T) {
	root := t.TempDir()
	writeTestFiles(t, root, map[string]string{"a.txt": "needle\nneedle\nno\n", "b.txt": "no\n", "c.txt": "needle\n"})
	fakeProgram(t, "rg", `printf 'a.txt\000b.txt\000c.txt\000'`)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := grepResult(rg, GrepRequest{Pattern: "needle", Mode: ModeCount})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a.txt#2\nc.txt#1\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRipgrepFilesChecked checks ModeFiles against an rg that lies about
// first matches: a forged line is searched again in Go, a binary file is
// dropped.
func TestRipgrepFilesChecked(t *testing.T) {
	root := t.TempDir()
	writeTestFiles(t, root, map[string]string{
		"a.txt":   "no\nneedle real\n",
		"bin.txt": "needle\n\x00\n",
		"c.txt":   "no\n",
		"d.txt":   "needle\n",
	})
	fakeProgram(t, "rg", `printf 'a.txt\0001:needle forged\nbin.txt\0001:needle\nc.txt\0001:needle\nd.txt\0001:needle\n'`)
	rg, err := NewRipgrep(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := grepResult(rg, GrepRequest{Pattern: "needle", Mode: ModeFiles})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a.txt#1\nd.txt#1\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRipgrepReduce checks what each mode keeps of a result.
func TestRipgrepReduce(t *testing.T) {
	full := FileResult{Path: "a", Count: 2, Lines: []Line{{1, "x", true}, {2, "y", false}, {3, "x", true}}}
	cases := []struct {
		mode Mode
		in   FileResult
		want FileResult
	}{
		{ModeContent, full, full},
		{ModeFiles, full, FileResult{Path: "a", Count: 1}},
		{ModeCount, full, FileResult{Path: "a", Count: 2}},
		{ModeFiles, FileResult{Path: "a"}, FileResult{Path: "a"}},
	}
	for _, c := range cases {
		if got := reduce(c.mode, c.in); got.Path != c.want.Path || got.Count != c.want.Count || !slices.Equal(got.Lines, c.want.Lines) {
			t.Errorf("reduce(%v, %+v) = %+v, want %+v", c.mode, c.in, got, c.want)
		}
	}
}

// TestBatchBuilder checks how the walk's files are cut into runs: every
// file once, in order; a directory given whole is never split and is
// given once; files of other directories, and paths too long for rg,
// one by one.
func TestBatchBuilder(t *testing.T) {
	long := strings.Repeat("l/", rgPathMax/2) + "f"
	shapes := map[string]dirShape{
		"":  {files: 2, whole: true},
		"a": {files: 5, whole: true},
		"b": {files: 4, whole: false},
		"c": {files: 9, whole: true}, // mostly left out by the walk
	}
	files := []string{"0", "1", "a/1", "a/2", "a/3", "a/4", "a/5", "b/1", "b/2", long, "c/1", "c/2", "d/1"}
	var got []*rgBatch
	bb := &batchBuilder{size: 2, first: 2, max: 8, growth: 2, perFile: new(atomic.Int64), shapes: shapes, cur: &rgBatch{}, send: func(b *rgBatch) bool {
		got = append(got, b)
		return true
	}}
	for _, f := range files {
		if !bb.file(f) {
			t.Fatalf("file(%q) stopped", f)
		}
	}
	bb.finish()
	var all []string
	var desc []string
	for _, b := range got {
		all = append(all, b.paths...)
		if b.inGo {
			desc = append(desc, fmt.Sprintf("go %d", len(b.paths)))
		} else {
			desc = append(desc, strings.Join(b.args, " "))
		}
	}
	if !slices.Equal(all, files) {
		t.Errorf("files: got %q, want %q", all, files)
	}
	want := []string{".", "a", "b/1 b/2", "go 1", "c/1 c/2 d/1"} // runs of 2, 4, 8 files
	if !slices.Equal(desc, want) {
		t.Errorf("runs: got %q, want %q", desc, want)
	}
}
