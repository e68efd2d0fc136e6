package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// benchLine is one result line of `go test -bench`: a benchmark's name
// without the -GOMAXPROCS suffix, its iterations, and each value by unit
// (ns/op, B/op, allocs/op and custom ones like ns/turn).
type benchLine struct {
	name    string
	iters   int64
	metrics map[string]float64
}

// parseBench reads `go test -bench` output. procs is the -test.cpu the
// benchmarks ran with: the testing package appends "-procs" to every name
// when it is not 1, and only that suffix is removed (a sub-benchmark may
// end in "-8" of its own). A FAIL or panic line is an error that quotes
// the output around it.
func parseBench(r io.Reader, procs int) ([]benchLine, error) {
	suffix := ""
	if procs != 1 {
		suffix = "-" + strconv.Itoa(procs)
	}
	var out []benchLine
	var seen []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		if len(seen) > 40 {
			seen = seen[1:]
		}
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic:") {
			return nil, fmt.Errorf("benchmark failed:\n%s", strings.Join(seen, "\n"))
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue // a header (goos:, pkg:), a log line, or a benchmark's name printed before its result
		}
		iters, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		b := benchLine{name: strings.TrimSuffix(f[0], suffix), iters: iters, metrics: map[string]float64{}}
		ok := true
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				ok = false
				break
			}
			b.metrics[f[i+1]] = v
		}
		if ok {
			out = append(out, b)
		}
	}
	return out, sc.Err()
}

// testBinary is a package's test binary built from one revision.
type testBinary struct {
	path string // "" when the package has no tests there, or does not exist
	dir  string // the package's directory: benchmarks run there
}

// buildTestBinary builds the test binary of pkg (module-relative,
// "script/lua") in the module at root. A package that does not exist at
// root gives a testBinary with no path, not an error.
func buildTestBinary(ctx context.Context, root, pkg, out string) (testBinary, error) {
	dir := root + "/" + pkg
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return testBinary{dir: dir}, nil
	}
	if _, err := runGo(ctx, root, "test", "-c", "-o", out, "./"+pkg); err != nil {
		return testBinary{}, err
	}
	if _, err := os.Stat(out); err != nil {
		return testBinary{dir: dir}, nil // no test files: go test -c writes nothing
	}
	return testBinary{path: out, dir: dir}, nil
}

// runBench runs one pass of the benchmarks matching pattern in tb.
func runBench(ctx context.Context, tb testBinary, pattern, benchtime string, procs int) ([]benchLine, error) {
	if tb.path == "" {
		return nil, nil
	}
	var b bytes.Buffer
	_, err := pipeline{{path: tb.path, dir: tb.dir, args: []string{
		"-test.run", "^$", "-test.bench", pattern, "-test.count", "1",
		"-test.benchtime", benchtime, "-test.cpu", strconv.Itoa(procs), "-test.benchmem"}}}.run(ctx, &b)
	lines, perr := parseBench(bytes.NewReader(b.Bytes()), procs)
	if err != nil {
		if perr != nil {
			return nil, perr
		}
		return nil, fmt.Errorf("%s -test.bench %s: %w\n%s", tb.path, pattern, err, cut(b.String(), 2000))
	}
	return lines, perr
}
