package search

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// Native is the default backend: pure Go, no external programs. It walks
// the tree in byte-wise path order, reads and searches files on a bounded
// pool of goroutines (one per CPU, up to 16), and emits results in path
// order; when emit returns false it cancels the files still being read,
// so a limited search reads few files more than it needs (files go to the
// pool in runs of 16, at most three runs per worker ahead of emit; under
// a Limit, shorter runs: see jobSizer). It does what GrepRequest.Mode
// asks and no more: ModeFiles stops reading a file at its first matching
// line, and ModeCount counts lines without numbering them or making their
// text.
//
// Memory: a search holds what is in flight, never what it has emitted.
// That is, for each worker, the buffers it reuses from file to file: a
// window of 64 KiB (grown, once a line is longer, up to a MiB and 64
// KiB), 64 KiB to stream a longer line through and 64 KiB for its text,
// and 24 bytes for each matching line of the piece it is matching (a
// piece is at most a MiB); and the results of the files searched but not
// yet emitted, at most the runs queued ahead of emit (three per worker,
// of 16 files). A file's result
// is made whole before it is emitted: with ModeContent it holds every
// matching and context line of the file, each of at most MaxLineBytes
// bytes of text and 32 bytes more, so one file in which millions of lines
// match takes hundreds of MiB; ModeFiles and ModeCount results are a few
// bytes. Over the Go source tree and copies of it at 4 and 16 times its
// size, a content search for "func" (135,000 lines at 1×) whose caller
// discards what it is given peaks at 10, 12 and 14 MiB of RSS.
//
// When ctx is done, a search returns ctx.Err() promptly: the walk checks
// it for every directory entry and while it sorts a large directory, and
// a worker checks it between pieces of a file and, while Go's regexp
// matches a stream, every so many runes (see maxWork): a huge file, a
// huge line or a pathological pattern does not hold it up.
//
// A Native is safe for concurrent use.
type Native struct {
	root    string
	workers int // files searched at once
	ahead   int // jobs (runs of files) queued ahead of emit
}

var (
	_ Grepper = (*Native)(nil)
	_ Globber = (*Native)(nil)
)

// NewNative returns the native backend for the tree at root. The root is
// opened by each search, so it need not exist yet.
func NewNative(root string) *Native {
	w := min(max(runtime.GOMAXPROCS(0), 1), 16)
	return &Native{root: root, workers: w, ahead: 2 * w}
}

// grepPlan is what a grep request compiles to, shared by the backends.
type grepPlan struct {
	req    GrepRequest
	start  string
	m      *matcher
	filter fileFilter
}

func newGrepPlan(req GrepRequest) (*grepPlan, error) {
	p := &grepPlan{req: req}
	var err error
	if p.start, err = cleanPath(req.Path); err != nil {
		return nil, err
	}
	if p.m, err = compileMatcher(req); err != nil {
		return nil, err
	}
	if p.filter, err = newFileFilter(req.Type, req.Glob, req.Exclude); err != nil {
		return nil, err
	}
	if req.Mode < ModeContent || req.Mode > ModeCount {
		return nil, fmt.Errorf("search: unknown grep mode %d (want ModeContent, ModeFiles or ModeCount)", req.Mode)
	}
	if req.Before < 0 || req.After < 0 {
		return nil, fmt.Errorf("search: negative context (Before %d, After %d)", req.Before, req.After)
	}
	return p, nil
}

func openRoot(root string) (*os.Root, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("search: opening root: %w", err)
	}
	return r, nil
}

// fileRef is a file the walk found.
type fileRef struct {
	dir       *dirHandle // acquired for the job
	name, rel string
}

// grepJob is a run of consecutive files on their way through the pool:
// handing files over in runs keeps goroutine switches off the hot path.
type grepJob struct {
	files   []fileRef
	results []FileResult // one per file; Count 0: no match
	done    chan struct{}
}

// jobSize is the number of files in a job.
const jobSize = 16

// jobSizer sizes the jobs of a search under a Limit. The caller may stop
// at the first results, and each waits for its whole job, so a job holds
// about the files the caller still needs, split over the workers: the
// matching files it will take, at the rate of matching files among those
// emit has gone through (one in all of them while none has matched), so
// that the workers search about as many files at once as the caller
// needs. A search that finds little soon has full jobs again. Without a
// Limit every job holds jobSize files.
//
// Measured over the Go source tree (2 cores, medians of 9 runs), a
// ModeFiles search for "func" opened 12 files under Limit 1 where jobs of
// 16 opened 48, and 25 under Limit 10 where they opened 27 (the tree's
// first 20 files do not match, so jobs are full when matches begin); one
// that matches nothing costs the same CPU under Limit 1 as without. Jobs
// of at most Limit/workers files, whatever the rate, opened 9 and 17
// files but cost a search that matches little 8% more CPU.
type jobSizer struct {
	limit, workers int64
	// The files of the jobs emit has gone through, and those that
	// matched.
	passed, matched atomic.Int64
}

func newJobSizer(limit, workers int) *jobSizer {
	return &jobSizer{limit: int64(max(limit, 0)), workers: int64(workers)}
}

// next returns the size of the next job.
func (z *jobSizer) next() int {
	if z.limit == 0 {
		return jobSize
	}
	passed, matched := z.passed.Load(), z.matched.Load()
	need := max(z.limit-matched, 1)
	if need >= jobSize*z.workers {
		return jobSize
	}
	if passed > 0 {
		need = need * passed / max(matched, 1)
	}
	return int(min(max((need+z.workers-1)/z.workers, 1), jobSize))
}

// done records a job emit has gone through.
func (z *jobSizer) done(files, matched int) {
	z.passed.Add(int64(files))
	z.matched.Add(int64(matched))
}

// Grep implements Grepper.
func (n *Native) Grep(ctx context.Context, req GrepRequest, emit func(FileResult) bool) error {
	plan, err := newGrepPlan(req)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	top, err := openRoot(n.root)
	if err != nil {
		return err
	}
	defer top.Close()

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	order := make(chan *grepJob, n.ahead) // jobs in path order
	jobs := make(chan *grepJob, n.ahead+1)
	sizer := newJobSizer(req.Limit, n.workers)
	var walkErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		var cur *grepJob
		size := sizer.next() // of cur
		send := func() bool {
			j := cur
			cur = nil
			select {
			case order <- j:
			case <-ctx.Done():
				for _, f := range j.files {
					f.dir.release()
				}
				return false
			}
			jobs <- j // never blocks: jobs holds no more than order
			return true
		}
		stopped := func() bool { return ctx.Err() != nil }
		src := newDiskSource(top, n.root)
		src.stopped = stopped
		w := &walker{
			src:      src,
			top:      top,
			hidden:   req.Hidden,
			noIgnore: req.NoIgnore,
			stopped:  stopped,
			file: func(d *dirHandle, name, rel string) bool {
				if !plan.filter.keep(name, rel) {
					return true
				}
				if cur == nil {
					cur = &grepJob{files: make([]fileRef, 0, size), done: make(chan struct{})}
				}
				d.acquire()
				cur.files = append(cur.files, fileRef{dir: d, name: name, rel: rel})
				if len(cur.files) == size {
					if !send() {
						return false
					}
					size = sizer.next()
				}
				return true
			},
		}
		walkErr = w.walk(plan.start)
		if cur != nil {
			send()
		}
	}()
	for range n.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newNativeSearcher(ctx, plan)
			for j := range jobs {
				j.results = make([]FileResult, len(j.files))
				for i, f := range j.files {
					if ctx.Err() == nil {
						j.results[i] = s.searchFile(f)
					}
					f.dir.release()
				}
				close(j.done)
			}
		}()
	}

	stopped := false
loop:
	for j := range order {
		<-j.done
		if ctx.Err() != nil {
			break
		}
		matched := 0
		for _, r := range j.results {
			if r.Count == 0 {
				continue
			}
			if ctx.Err() != nil {
				break loop
			}
			if !emit(r) {
				stopped = true
				break loop
			}
			matched++
		}
		sizer.done(len(j.files), matched)
	}
	cancel()
	wg.Wait()
	switch {
	case stopped:
		return nil
	case walkErr != nil:
		return walkErr
	}
	return parent.Err()
}

// searchFile opens a file the walk found and searches it.
func (s *nativeSearcher) searchFile(f fileRef) FileResult {
	stats.FilesOpened.Add(1)
	file, err := f.dir.openFile(f.name)
	if err != nil {
		return FileResult{}
	}
	defer file.Close()
	return s.search(f.rel, file)
}

// Glob implements Globber.
func (n *Native) Glob(ctx context.Context, req GlobRequest, emit func(string) bool) error {
	top, start, pat, err := openGlob(ctx, n.root, req)
	if err != nil {
		return err
	}
	defer top.Close()
	src := newDiskSource(top, n.root)
	src.stopped = func() bool { return ctx.Err() != nil }
	return globWalk(ctx, src, top, req, start, pat, emit)
}

// openGlob checks a Glob request and opens the root: what every Globber
// here does first. The caller closes top.
func openGlob(ctx context.Context, root string, req GlobRequest) (top *os.Root, start string, pat *namePattern, err error) {
	if start, err = cleanPath(req.Path); err != nil {
		return nil, "", nil, err
	}
	if pat, err = newNamePattern(req.Pattern); err != nil {
		return nil, "", nil, err
	}
	if err = ctx.Err(); err != nil {
		return nil, "", nil, err
	}
	if top, err = openRoot(root); err != nil {
		return nil, "", nil, err
	}
	return top, start, pat, nil
}

// globWalk runs a Glob request over a walk source.
func globWalk(ctx context.Context, src walkSource, top *os.Root, req GlobRequest, start string, pat *namePattern, emit func(string) bool) error {
	prefix := 0 // length of start + "/"
	if start != "" {
		prefix = len(start) + 1
	}
	w := &walker{
		src:      src,
		top:      top,
		hidden:   req.Hidden,
		noIgnore: req.NoIgnore,
		stopped:  func() bool { return ctx.Err() != nil },
		skipDir: func(rel string) bool {
			return pat.skipDir(rel[prefix:])
		},
		file: func(_ *dirHandle, name, rel string) bool {
			sub := name // a start path naming a file: its base name
			if len(rel) >= prefix {
				sub = rel[prefix:]
			}
			if !pat.match(sub) {
				return true
			}
			if ctx.Err() != nil {
				return false
			}
			return emit(rel)
		},
	}
	if err := w.walk(start); err != nil {
		return err
	}
	return ctx.Err()
}
