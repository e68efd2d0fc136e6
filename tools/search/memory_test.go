package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// childEnv, set in the environment of this test binary, makes TestMain
// run one search as a child process (see runChild) instead of the tests.
const childEnv = "AGENTSH_SEARCH_TEST_CHILD"

// childJob is the search a child runs.
type childJob struct {
	Root    string
	Req     GrepRequest
	LimitAS uint64 // RLIMIT_AS for the child; 0: none
}

// childLine is a line of a child's result, its text by length.
type childLine struct {
	Number, Len int
	Match       bool
}

type childResult struct {
	Path  string
	Count int
	Lines []childLine
}

// runChild runs the job in childEnv and prints its results as JSON.
func runChild() int {
	var job childJob
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &job); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if job.LimitAS > 0 {
		lim := syscall.Rlimit{Cur: job.LimitAS, Max: job.LimitAS}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "child: setrlimit:", err)
			return 2
		}
	}
	var out []childResult
	err := NewNative(job.Root).Grep(context.Background(), job.Req, func(r FileResult) bool {
		cr := childResult{Path: r.Path, Count: r.Count}
		for _, l := range r.Lines {
			cr.Lines = append(cr.Lines, childLine{l.Number, len(l.Text), l.Match})
		}
		out = append(out, cr)
		return true
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	hwm, err := peakRSS()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	json.NewEncoder(os.Stdout).Encode(childReply{Results: out, PeakKiB: hwm})
	return 0
}

// childReply is what a child prints: its results and its peak RSS.
type childReply struct {
	Results []childResult
	PeakKiB int64
}

// peakRSS is this process's VmHWM in KiB. The child reads it itself: the
// rusage of a child started with vfork, as os/exec does, counts the
// parent's RSS at the start too.
func peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

// grepInChild runs job in a child process and returns its results and
// its peak RSS in KiB.
func grepInChild(t *testing.T, job childJob) ([]childResult, int64) {
	t.Helper()
	spec, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child search %+v: %v\n%s", job.Req, err, stderr.Bytes())
	}
	var reply childReply
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		t.Fatalf("child output %q: %v", stdout.Bytes(), err)
	}
	return reply.Results, reply.PeakKiB
}

// writeSparse writes head, a hole of size hole (NUL bytes that take no
// disk space) and tail to a new file, and skips the test where the file
// system does not make holes.
func writeSparse(t *testing.T, name string, head string, hole int64, tail string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(tail), int64(len(head))+hole); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks*512 > 64<<20 {
		t.Skipf("the file system of %s does not make sparse files", name)
	}
}

// sparseText returns the head and tail of a text file around a hole:
// the hole is one long line of NUL bytes (the file is not binary, as its
// first 8 KiB are text), between two lines holding "needle". With head
// lines of text, the hole is line head+1.
func sparseText() (head, tail string, headLines int) {
	var b strings.Builder
	b.WriteString("needle head\n")
	for b.Len() < 16<<10 {
		fmt.Fprintf(&b, "filler line %d\n", b.Len())
	}
	head = b.String()
	return head, "\nneedle tail\nend\n", strings.Count(head, "\n")
}

// TestGrepSparseFileMemory greps sparse text files of 1 GiB and 128 MiB,
// most of each one line, in a child process, and checks the child's peak
// RSS (reading a file whole cost its size: 5.27 GB for a 5 GiB file).
// The child's address space is limited to 2 GiB so that the old
// behaviour fails without harming the machine. Reading a hole costs the
// kernel about 1.6 s of CPU per GiB on this machine, and a streamed
// multiline search reads its file twice; offsets past 32 bits are checked
// without a disk, in TestGrepOffsetsPast4GiB.
func TestGrepSparseFileMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux: rusage, RLIMIT_AS and sparse files")
	}
	huge, mid := int64(1<<30), int64(128<<20)
	root := t.TempDir()
	head, tail, n := sparseText()
	for dir, size := range map[string]int64{"huge": huge, "mid": mid} {
		os.Mkdir(filepath.Join(root, dir), 0o755)
		writeSparse(t, filepath.Join(root, dir, "big.txt"), head, size, tail)
		os.WriteFile(filepath.Join(root, dir, "small.txt"), []byte("a needle\n"), 0o644)
	}

	// The race detector's shadow memory needs more address space than any
	// limit that would catch reading the file whole, and more RSS: with
	// it, this checks the results and a looser bound.
	limit, maxKiB := uint64(2<<30), int64(64<<10)
	if raceEnabled {
		limit, maxKiB = 0, 256<<10
	}
	cases := []struct {
		req  GrepRequest
		want string
	}{
		{GrepRequest{Pattern: "needle", Path: "huge", Before: 1, After: 1},
			fmt.Sprintf("huge/big.txt#2 1:11 2-14 %d-%d %d:11 %d-3 huge/small.txt#1 1:8", n+1, MaxLineBytes, n+2, n+3)},
		{GrepRequest{Pattern: `needle \w+`, Path: "mid"},
			fmt.Sprintf("mid/big.txt#2 1:11 %d:11", n+2)},
		{GrepRequest{Pattern: `needle tail\nend`, Path: "mid", Multiline: true},
			fmt.Sprintf("mid/big.txt#2 %d:11 %d:3", n+2, n+3)},
	}
	for _, c := range cases {
		got, rss := grepInChild(t, childJob{Root: root, Req: c.req, LimitAS: limit})
		t.Logf("%q in %s (Multiline %v): peak RSS %d KiB", c.req.Pattern, c.req.Path, c.req.Multiline, rss)
		if f := formatChild(got); f != c.want {
			t.Errorf("%q: got %s, want %s", c.req.Pattern, f, c.want)
		}
		if rss > maxKiB {
			t.Errorf("%q in %s: peak RSS %d KiB, want at most %d KiB", c.req.Pattern, c.req.Path, rss, maxKiB)
		}
	}
}

func formatChild(rs []childResult) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s#%d", r.Path, r.Count))
		for _, l := range r.Lines {
			sep := "-"
			if l.Match {
				sep = ":"
			}
			parts = append(parts, fmt.Sprintf("%d%s%d", l.Number, sep, l.Len))
		}
	}
	return strings.Join(parts, " ")
}

// virtualFile is a file of size bytes, NUL bytes but for some texts at
// some offsets, read from memory.
type virtualFile struct {
	size  int64
	texts map[int64]string
}

func (f *virtualFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	clear(p[:n])
	for at, text := range f.texts {
		if at < off+int64(n) && at+int64(len(text)) > off {
			lo := max(at, off)
			copy(p[lo-off:n], text[lo-at:])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestGrepOffsetsPast4GiB searches a virtual file of 5 GiB whose matches
// lie past 4 GiB, with and without Multiline. A multiline match spans a
// line of 8 MiB, which the stream matches with the regexp (about 55 MB/s,
// a tenth of that with the race detector, which gets 1 MiB).
func TestGrepOffsetsPast4GiB(t *testing.T) {
	head, _, n := sparseText()
	const tail = "\nneedle tail\nend"
	size, midLine := int64(5<<30), int64(8<<20)
	if raceEnabled {
		size, midLine = 4<<30+256<<20, 1<<20
	}
	f := &virtualFile{size: size, texts: map[int64]string{
		0:                       head,
		4<<30 + 123456789:       "needle\xe9",
		size - midLine:          "\nneedle mid\n",
		size - int64(len(tail)): tail,
	}}
	nul := strings.Repeat("\x00", MaxLineBytes)
	cases := []struct {
		req  GrepRequest
		want string
	}{
		{GrepRequest{Pattern: "needle (mid|tail)", Before: 1, After: 1},
			fmt.Sprintf("f#2\n  %d-%q\n  %d:\"needle mid\"\n  %d-%q\n  %d:\"needle tail\"\n  %d-\"end\"\n", n+1, nul, n+2, n+3, nul, n+4, n+5)},
		{GrepRequest{Pattern: `needle\x{FFFD}`}, fmt.Sprintf("f#1\n  %d:%q\n", n+1, nul)},
		{GrepRequest{Pattern: `needle mid\n`, Multiline: true}, fmt.Sprintf("f#1\n  %d:\"needle mid\"\n", n+2)},
		{GrepRequest{Pattern: `(?s)mid.\x00+.needle`, Multiline: true}, fmt.Sprintf("f#3\n  %d:\"needle mid\"\n  %d:%q\n  %d:\"needle tail\"\n", n+2, n+3, nul, n+4)},
	}
	for _, c := range cases {
		plan, err := newGrepPlan(c.req)
		if err != nil {
			t.Fatal(err)
		}
		got := newNativeSearcher(context.Background(), plan).search("f", f)
		if g := quotedResult(got); g != c.want {
			short := strings.NewReplacer(fmt.Sprintf("%q", nul), "NULS")
			t.Errorf("%q (Multiline %v):\n got %s\nwant %s", c.req.Pattern, c.req.Multiline, short.Replace(g), short.Replace(c.want))
		}
	}
}

// TestGrepAllocationsDoNotGrowWithFiles searches, in this process, a
// sparse file of 128 MiB (one long line) and a file of 16 MiB of short
// lines: a search allocates a few buffers, not the files.
func TestGrepAllocationsDoNotGrowWithFiles(t *testing.T) {
	root := t.TempDir()
	head, tail, _ := sparseText()
	writeSparse(t, filepath.Join(root, "sparse.txt"), head, 128<<20, tail)
	var b bytes.Buffer
	for i := 0; b.Len() < 16<<20; i++ {
		fmt.Fprintf(&b, "line %d of text that rarely holds the word\n", i)
		if i%100000 == 0 {
			b.WriteString("needle lines\n")
		}
	}
	if err := os.WriteFile(filepath.Join(root, "lines.txt"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 16 << 20
	for _, req := range []GrepRequest{
		{Pattern: "needle", Before: 2, After: 2},
		{Pattern: `needle \w+`},
		{Pattern: `(?i)NEEDLE`},
		{Pattern: `needle tail\nend`, Multiline: true},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		lines := 0
		err := NewNative(root).Grep(context.Background(), req, func(r FileResult) bool {
			lines += len(r.Lines)
			return true
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if lines == 0 {
			t.Errorf("%q: no lines found", req.Pattern)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Errorf("%q (Multiline %v): allocated %d bytes, want at most %d", req.Pattern, req.Multiline, got, limit)
		}
	}
}
