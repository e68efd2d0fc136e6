//go:build linux

package search_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentsh/agentsh/internal/testwait"
	"github.com/agentsh/agentsh/tools/search"
)

// swapTree is a search root in which a goroutine keeps exchanging a
// directory, flip/, with a symbolic link, other -> OUTSIDE, where OUTSIDE
// is a directory elsewhere holding a secret, under names of its own and
// under the names the files of flip/ have.
type swapTree struct {
	root, outside string
	secret        string // in every file of OUTSIDE, in no file of root
	secretName    string // a file name only OUTSIDE has
	flips         atomic.Int64
	stop          chan struct{}
	done          chan error
}

func newSwapTree(t *testing.T) *swapTree {
	t.Helper()
	var b [8]byte
	rand.Read(b[:])
	tag := hex.EncodeToString(b[:])
	st := &swapTree{
		root:       t.TempDir(),
		outside:    t.TempDir(),
		secret:     "SECRET-" + tag,
		secretName: "leaked-" + tag + ".txt",
	}
	write := func(dir, rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"keep.txt", "flip/inner.txt", "flip/sub/deep.txt"} {
		write(st.root, rel, "needle inside\n")
	}
	bad := "needle " + st.secret + "\n"
	for _, rel := range []string{"inner.txt", "sub/deep.txt", st.secretName, "sub/" + st.secretName} {
		write(st.outside, rel, bad)
	}
	if err := os.Symlink(st.outside, filepath.Join(st.root, "other")); err != nil {
		t.Fatal(err)
	}
	return st
}

// start starts the goroutine that exchanges flip and other as fast as it
// can, until stopAndWait.
func (st *swapTree) start(t *testing.T) {
	t.Helper()
	dir, err := unix.Open(st.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.stop, st.done = make(chan struct{}), make(chan error, 1)
	go func() {
		defer unix.Close(dir)
		// The flipping thread runs at the lowest priority: it flips as
		// fast as it can whenever a core is free, but leaves the cores
		// to rg and fd when they need them, or the test would take
		// twice as long. It stays locked to this goroutine, so that it
		// ends with it.
		runtime.LockOSThread()
		unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
		for {
			select {
			case <-st.stop:
				st.done <- nil
				return
			default:
			}
			if err := unix.Renameat2(dir, "flip", dir, "other", unix.RENAME_EXCHANGE); err != nil {
				st.done <- err
				return
			}
			st.flips.Add(1)
		}
	}()
}

func (st *swapTree) stopAndWait(t *testing.T) {
	t.Helper()
	close(st.stop)
	if err := <-st.done; err != nil {
		t.Fatalf("renameat2(RENAME_EXCHANGE): %v", err)
	}
}

// leaks reports whether s holds anything only OUTSIDE has.
func (st *swapTree) leaks(s string) bool {
	return strings.Contains(s, st.secret) || strings.Contains(s, st.secretName) || strings.Contains(s, st.outside)
}

// raceCounts is what the searches of one backend, from one start path,
// saw.
type raceCounts struct {
	searches, errors, found, leaked int
	leak, failure                   string // the first of each
}

func (c *raceCounts) add(st *swapTree, out []string, err error) {
	c.searches++
	if err != nil {
		c.errors++
		if c.failure == "" {
			c.failure = err.Error()
		}
		out = append(out, err.Error())
	}
	for _, s := range out {
		if st.leaks(s) {
			if c.leaked == 0 {
				c.leak = s
			}
			c.leaked++
			return
		}
	}
	if len(out) > 0 && err == nil {
		c.found++
	}
}

// TestSymlinkSwapRace runs searches on every backend while flip/ and a
// symbolic link to a directory outside the root keep trading places:
// nothing from outside may ever show, neither a line nor a name.
func TestSymlinkSwapRace(t *testing.T) {
	// Searches per backend, half from the root, half with Path. A search
	// by rg or fd starts a process, which costs what a hundred native
	// searches cost: they get fewer rounds, each of which still races the
	// flips many times (the counts in the log).
	n, nProcess := 1000, 400
	if testing.Short() {
		n, nProcess = 200, 200
	}
	st := newSwapTree(t)
	type backend struct {
		name    string
		run     func(ctx context.Context, path string) ([]string, error)
		process bool // starts a process per search
	}
	grep := func(g search.Grepper) func(context.Context, string) ([]string, error) {
		return func(ctx context.Context, path string) ([]string, error) {
			var out []string
			err := g.Grep(ctx, search.GrepRequest{Pattern: "needle", Path: path}, func(r search.FileResult) bool {
				for _, l := range r.Lines {
					out = append(out, r.Path+":"+l.Text)
				}
				return true
			})
			return out, err
		}
	}
	glob := func(g search.Globber) func(context.Context, string) ([]string, error) {
		return func(ctx context.Context, path string) ([]string, error) {
			var out []string
			err := g.Glob(ctx, search.GlobRequest{Pattern: "**/*.txt", Path: path}, func(p string) bool {
				out = append(out, p)
				return true
			})
			return out, err
		}
	}
	backends := []backend{
		{"grep/native", grep(search.NewNative(st.root)), false},
		{"glob/native", glob(search.NewNative(st.root)), false},
	}
	if rg, err := search.NewRipgrep(st.root); err == nil {
		backends = append(backends, backend{"grep/ripgrep", grep(rg), true}, backend{"glob/ripgrep", glob(rg), true})
	} else {
		t.Log("ripgrep (rg) not found, its backend is not tried; apt-get install ripgrep")
	}
	if fd, err := search.NewFd(st.root); err == nil {
		backends = append(backends, backend{"glob/fd", glob(fd), true})
	} else {
		t.Log("fd not found (looked for fd and fdfind), its backend is not tried; apt-get install fd-find")
	}

	st.start(t)
	defer func() {
		if st.stop != nil {
			st.stopAndWait(t)
		}
	}()
	ctx := context.Background()
	starts := []string{"", "flip/sub"}
	results := make([][2]raceCounts, len(backends))
	var wg sync.WaitGroup
	const workers = 2 // per backend
	var mu sync.Mutex
	// sawInside reports whether backend i found the files inside from
	// every start.
	sawInside := func(i int) bool {
		mu.Lock()
		defer mu.Unlock()
		return results[i][0].found > 0 && results[i][1].found > 0
	}
	for i, b := range backends {
		for w := range workers {
			// All at once: most of the time goes to starting rg and fd,
			// and the searches race one another too.
			wg.Add(1)
			go func() {
				defer wg.Done()
				before := st.flips.Load()
				n := n
				if b.process {
					n = nProcess
				}
				// Past n rounds, a worker searches on until the links
				// flipped while it searched and every start found the
				// files inside at least once: on a busy machine the
				// flipping thread, at the lowest priority, can stand
				// still for many rounds in a row.
				raced := func() bool { return st.flips.Load() != before && sawInside(i) }
				deadline := time.Now().Add(testwait.Step)
				for k := w; k < n || !raced() && time.Now().Before(deadline); k += workers {
					j := k / workers % len(starts)
					out, err := b.run(ctx, starts[j])
					mu.Lock()
					results[i][j].add(st, out, err)
					mu.Unlock()
				}
				if st.flips.Load() == before {
					t.Errorf("%s: the links did not flip while it searched", b.name)
				}
			}()
		}
	}
	wg.Wait()
	st.stopAndWait(t)
	st.stop = nil
	t.Logf("%d flips", st.flips.Load())
	for i, b := range backends {
		for j, start := range starts {
			c := results[i][j]
			t.Logf("%s from %q: %d searches, %d found the files inside, %d failed (such as %q), %d leaked",
				b.name, start, c.searches, c.found, c.errors, c.failure, c.leaked)
			if c.leaked > 0 {
				t.Errorf("%s from %q: %d of %d searches showed what lies outside the root, such as %q", b.name, start, c.leaked, c.searches, c.leak)
			}
			if start == "" && c.errors > 0 {
				t.Errorf("%s: %d of %d searches from the root failed, such as with %q", b.name, c.errors, c.searches, c.failure)
			}
			if c.found == 0 {
				t.Errorf("%s from %q: no search found the files inside the root: the test tests nothing", b.name, start)
			}
		}
	}
}
