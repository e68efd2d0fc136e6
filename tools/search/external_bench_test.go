package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The benchmarks of the external backends run over a real tree: the one
// named by AGENTSH_BENCH_ROOT, or $(go env GOROOT)/src. Larger trees for
// them are copies of GOROOT/src made with cp -al.
const benchRootEnv = "AGENTSH_BENCH_ROOT"

func externalBenchRoot(b *testing.B) string {
	b.Helper()
	if root := os.Getenv(benchRootEnv); root != "" {
		return root
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no tree to search: set %s or put go on PATH (%v)", benchRootEnv, err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// rgBenchCases are the requests the ripgrep benchmarks time: each mode of
// the grep tool, a limited files_with_matches, and a pattern found nowhere.
var rgBenchCases = []struct {
	name string
	req  GrepRequest
}{
	{"files-limit100", GrepRequest{Pattern: "func", Mode: ModeFiles, Limit: 100}},
	{"files", GrepRequest{Pattern: "func", Mode: ModeFiles}},
	{"count", GrepRequest{Pattern: "func", Mode: ModeCount}},
	{"content", GrepRequest{Pattern: "func"}},
	{"content-todo", GrepRequest{Pattern: "(?i)todo"}},
	{"content-none", GrepRequest{Pattern: "ZZZ_rare_QQQ"}},
}

// grepTaking greps as a caller that takes at most req.Limit files does,
// and returns the number of files and lines it took.
func grepTaking(g Grepper, req GrepRequest) (files, lines int, err error) {
	err = g.Grep(context.Background(), req, func(r FileResult) bool {
		files++
		lines += len(r.Lines)
		return req.Limit == 0 || files < req.Limit
	})
	return files, lines, err
}

// BenchmarkRipgrepModes times the ripgrep backend on each mode.
func BenchmarkRipgrepModes(b *testing.B) {
	root := externalBenchRoot(b)
	rg := requireRg(b)
	rg.root, rg.native = root, NewNative(root)
	for _, c := range rgBenchCases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			files := 0
			reportCPU(b, func() {
				for b.Loop() {
					n, _, err := grepTaking(rg, c.req)
					if err != nil {
						b.Fatal(err)
					}
					files = n
				}
			})
			b.ReportMetric(float64(files), "files")
		})
	}
}

// rssChildEnv, set in the environment of this test binary, makes it run
// one search (an rssJob) when it starts, print its peak RSS and exit.
const rssChildEnv = "AGENTSH_SEARCH_RSS_CHILD"

type rssJob struct {
	Backend, Root string
	Req           GrepRequest
}

func init() {
	spec := os.Getenv(rssChildEnv)
	if spec == "" {
		return
	}
	var job rssJob
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		fmt.Fprintln(os.Stderr, "rss child:", err)
		os.Exit(2)
	}
	var g Grepper = NewNative(job.Root)
	if job.Backend == "ripgrep" {
		rg, err := NewRipgrep(job.Root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rss child:", err)
			os.Exit(2)
		}
		g = rg
	}
	files, lines, err := grepTaking(g, job.Req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss child:", err)
		os.Exit(2)
	}
	kib, err := peakRSS()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss child:", err)
		os.Exit(2)
	}
	fmt.Printf("%d %d %d\n", kib, files, lines)
	os.Exit(0)
}

// BenchmarkRipgrepPeakRSS runs each search of the ripgrep backend in a
// child process that discards what it is emitted, and reports the
// child's peak RSS.
func BenchmarkRipgrepPeakRSS(b *testing.B) {
	root := externalBenchRoot(b)
	requireRg(b)
	for _, c := range []struct {
		name string
		req  GrepRequest
	}{
		{"content", GrepRequest{Pattern: "func"}},
		{"count", GrepRequest{Pattern: "func", Mode: ModeCount}},
		{"files", GrepRequest{Pattern: "func", Mode: ModeFiles}},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec, err := json.Marshal(rssJob{Backend: "ripgrep", Root: root, Req: c.req})
			if err != nil {
				b.Fatal(err)
			}
			var peak, lines float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), rssChildEnv+"="+string(spec))
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%v: %s", err, stderr.Bytes())
				}
				var kib, files, n int64
				if _, err := fmt.Sscan(string(out), &kib, &files, &n); err != nil {
					b.Fatalf("child printed %q: %v", out, err)
				}
				peak = max(peak, float64(kib)/1024)
				lines = float64(n)
			}
			b.ReportMetric(peak, "peak-MiB")
			b.ReportMetric(lines, "lines")
		})
	}
}

// BenchmarkFdGlob times the fd backend listing every Go file, as
// fdfind -t f -e go | LC_ALL=C sort does.
func BenchmarkFdGlob(b *testing.B) {
	root := externalBenchRoot(b)
	fd, err := NewFd(root)
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	n := 0
	reportCPU(b, func() {
		for b.Loop() {
			n = 0
			if err := fd.Glob(context.Background(), GlobRequest{Pattern: "**/*.go"}, func(string) bool { n++; return true }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(n), "files")
}
