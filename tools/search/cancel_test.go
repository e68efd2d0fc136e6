package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsh/agentsh/internal/testwait"
)

// cancelGuard bounds how long a search may run on after its context is
// cancelled, on an idle machine (testwait.Bound scales it for the load).
// The promise is about 100 ms (see maxWork); the guard is generous
// because the race detector slows Go's regexp tenfold. Every search
// below would run for minutes without cancellation.
const cancelGuard = 2 * time.Second

// canceller cancels a search's context once, from whatever goroutine
// sees the search under way, and remembers when.
type canceller struct {
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	fired  chan struct{}
	at     time.Time
}

func newCanceller() *canceller {
	ctx, cancel := context.WithCancel(context.Background())
	return &canceller{ctx: ctx, cancel: cancel, fired: make(chan struct{})}
}

func (c *canceller) fire() {
	c.once.Do(func() {
		c.at = time.Now()
		c.cancel()
		close(c.fired)
	})
}

// expectPromptCancel runs search, which calls c.fire once it is under
// way, and checks that it returns context.Canceled within cancelGuard of
// that.
func expectPromptCancel(t *testing.T, c *canceller, search func(ctx context.Context) error) {
	t.Helper()
	defer c.cancel()
	done := make(chan error, 1)
	go func() { done <- search(c.ctx) }()
	select {
	case <-c.fired:
	case err := <-done:
		select {
		case <-c.fired: // both at once
			done <- err
		default:
			t.Fatalf("the search ended (%v) before it was cancelled", err)
		}
	case <-time.After(testwait.Step):
		t.Fatal("the search never got under way")
	}
	guard := testwait.Bound(cancelGuard)
	select {
	case err := <-done:
		d := time.Since(c.at)
		t.Logf("returned %v after cancellation", d.Round(time.Millisecond))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if d > guard {
			t.Errorf("returned %v after cancellation, want within %v", d, guard)
		}
	case <-time.After(guard):
		t.Fatalf("still searching %v after cancellation", guard)
	}
}

// lineFile is a virtual file of size bytes made of line repeated, which
// cancels c when it is first read at or past offset at: the search is
// then well under way. It counts the reads after that.
type lineFile struct {
	size  int64
	line  string
	c     *canceller
	at    int64
	after atomic.Int64
}

func (f *lineFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.at {
		if f.c.ctx.Err() != nil {
			f.after.Add(1)
		}
		f.c.fire()
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	for i := 0; i < n; {
		k := copy(p[i:n], f.line[(off+int64(i))%int64(len(f.line)):])
		i += k
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// searchCancelled searches f with the native searcher, to be cancelled
// by f once under way.
func searchCancelled(t *testing.T, req GrepRequest, f *lineFile) {
	t.Helper()
	plan, err := newGrepPlan(req)
	if err != nil {
		t.Fatal(err)
	}
	expectPromptCancel(t, f.c, func(ctx context.Context) error {
		r := newNativeSearcher(ctx, plan).search("f", f)
		if r.Count != 0 {
			t.Errorf("a cancelled search has a result: %d lines", r.Count)
		}
		return ctx.Err()
	})
	// A read takes at most 1 MiB; between two checks a search reads a
	// buffer or two.
	if n := f.after.Load(); n > 4 {
		t.Errorf("%d reads after cancellation, want at most 4", n)
	}
}

// TestCancelHugeFile cancels searches of a virtual 1 TiB file of lines.
func TestCancelHugeFile(t *testing.T) {
	for _, p := range []string{"needle", `[A-Z][a-z]+Error\b`, `(?i)nEEdle`, `needle\d`} {
		t.Run(p, func(t *testing.T) {
			f := &lineFile{size: 1 << 40, line: "func return err nil if for range package import type\n", c: newCanceller(), at: 16 << 20}
			searchCancelled(t, GrepRequest{Pattern: p, Before: 1}, f)
		})
	}
}

// TestCancelHugeLine cancels searches of a virtual 1 TiB file of one
// line, which the search streams.
func TestCancelHugeLine(t *testing.T) {
	for _, p := range []string{"needle", `needle\d`, `\d{4}-\d{2}`, `x$`} {
		t.Run(p, func(t *testing.T) {
			f := &lineFile{size: 1 << 40, line: "one line without a newline ", c: newCanceller(), at: 16 << 20}
			searchCancelled(t, GrepRequest{Pattern: p}, f)
		})
	}
}

// TestCancelPathologicalPattern cancels a pattern whose compiled program
// has a thousand instructions, which Go's regexp runs at about 50 KB/s,
// over lines that fit a piece and over one line that does not.
func TestCancelPathologicalPattern(t *testing.T) {
	for name, line := range map[string]string{
		"lines": strings.Repeat("a", 999) + "\n",
		"line":  strings.Repeat("a", 1000),
	} {
		t.Run(name, func(t *testing.T) {
			f := &lineFile{size: 1 << 40, line: line, c: newCanceller(), at: 1}
			searchCancelled(t, GrepRequest{Pattern: `\w{1000}x`}, f)
		})
	}
}

// TestCancelMultiline cancels multiline searches: of a file larger than
// a piece, which is streamed, and of a file that fits one, over which a
// pattern that must look to the end of the file for each match runs
// once per match.
func TestCancelMultiline(t *testing.T) {
	t.Run("stream", func(t *testing.T) {
		f := &lineFile{size: 1 << 40, line: "aaaa\nbbbb\n", c: newCanceller(), at: 1 << 20}
		searchCancelled(t, GrepRequest{Pattern: `(?s)a.*z`, Multiline: true}, f)
	})
	t.Run("buffer", func(t *testing.T) {
		plan, err := newGrepPlan(GrepRequest{Pattern: `a|b(?s:.)*c`, Multiline: true})
		if err != nil {
			t.Fatal(err)
		}
		size := int64(plan.m.piece) // each match costs a pass to the end
		f := &lineFile{size: size, line: "ba", c: newCanceller(), at: size}
		searchCancelled(t, plan.req, f)
	})
}

// The tests below go through the public API and a real file system, and
// also ran, failing, on the search that read files whole and checked ctx
// only between files and directories. The first results come from small
// files that sort first, so that cancelling from emit finds a worker
// inside the large file.

// cancelTree writes 16 small files holding "needle" (a job of their
// own) before the files given, and returns its root.
func cancelTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for i := range jobSize {
		files[fmt.Sprintf("a%02d.txt", i)] = "needle\n"
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func grepCancelledOnFirstResult(t *testing.T, root string, req GrepRequest) {
	t.Helper()
	c := newCanceller()
	expectPromptCancel(t, c, func(ctx context.Context) error {
		return NewNative(root).Grep(ctx, req, func(FileResult) bool {
			c.fire()
			return true
		})
	})
}

// TestGrepCancelInsideLongLine cancels a grep while a worker is inside a
// 1 GiB line (a sparse file) that a pattern without a literal is
// matched against.
func TestGrepCancelInsideLongLine(t *testing.T) {
	root := cancelTree(t, map[string]string{})
	head, tail, _ := sparseText()
	os.Mkdir(filepath.Join(root, "z"), 0o755)
	writeSparse(t, filepath.Join(root, "z", "big.txt"), head, 1<<30, tail)
	grepCancelledOnFirstResult(t, root, GrepRequest{Pattern: `needle|\d{4}-\d{2}`})
}

// TestGrepCancelPathologicalPattern cancels a grep while a worker runs
// a pattern of a thousand instructions over a 4 MiB file.
func TestGrepCancelPathologicalPattern(t *testing.T) {
	root := cancelTree(t, map[string]string{
		"z/big.txt": strings.Repeat(strings.Repeat("a", 999)+"\n", 4<<10),
	})
	grepCancelledOnFirstResult(t, root, GrepRequest{Pattern: `needle|\w{1000}x`})
}

// TestGlobCancelLargeDirectory cancels a glob that has found its only
// match, the first entry of a directory of 30,000 files under a
// .gitignore of 4,000 patterns, which every entry is matched against.
func TestGlobCancelLargeDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	os.Mkdir(dir, 0o755)
	var ignore strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&ignore, "**/*.generated-%d\n", i)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(ignore.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "0.match"), nil, 0o644)
	seed := filepath.Join(root, "seed")
	os.WriteFile(seed, nil, 0o644)
	for i := range 30000 { // hard links: one system call each
		if err := os.Link(seed, filepath.Join(dir, fmt.Sprintf("f%05d.txt", i))); err != nil {
			t.Fatal(err)
		}
	}
	c := newCanceller()
	expectPromptCancel(t, c, func(ctx context.Context) error {
		return NewNative(root).Glob(ctx, GlobRequest{Pattern: "**/*.match"}, func(string) bool {
			c.fire()
			return true
		})
	})
}
