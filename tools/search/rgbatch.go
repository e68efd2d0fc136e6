package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/agentsh/agentsh/tools/search/internal/stats"
)

// This file is the ripgrep backend's pipeline. The walk shared with the
// native backend decides which files a search sees, in byte-wise path
// order, with this package's ignore rules; its files go to rg in runs
// (batches), each to an rg of its own that searches them one after
// another (-j1) in the order given and prints its reports in that order.
// A few batches run at once, one rg each, and a batch's results are
// emitted once its rg has ended well and they have been checked, in
// batch order: so results stream in path order, a search under a limit
// ends when the caller stops taking, and memory holds the results of the
// batches in flight, not of the search.
//
// Measured over $(go env GOROOT)/src (11,478 files; 2 cores, warm cache)
// against rg walking and sorting itself (rg --sort path, single
// threaded) and rg in parallel with the results sorted in Go: rg --sort
// path orders a directory "x" as "x", not "x/", so its output would need
// a reordering window that is unbounded where a directory "x" sits next
// to "x.go"; and letting rg walk means applying its ignore rules, which
// differ from git's in corner cases, so a second walk had to prove them
// equal. Batches need neither, and the walk costs what rg's own walk
// does, on another core. See BenchmarkRipgrepModes for the figures.

// rgBatchFirst, rgBatchMax and rgBatchBytes size batches: the first
// holds rgBatchFirst files (or the request's Limit, if larger), each next
// one twice as many as the one before, up to rgBatchMax files or
// rgBatchBytes of paths. Small first batches give a limited search its
// first results soon; large ones later keep the cost of starting rg
// (about 3 ms of CPU) small next to the search: 3% of it over GOROOT/src.
const (
	rgBatchFirst = 64
	rgBatchMax   = 4096
	rgBatchBytes = 512 << 10
)

// rgPathMax is the length from which a path is searched in Go: rg opens
// files by path, and the kernel refuses paths of PATH_MAX bytes or more.
const rgPathMax = 4096

// rgBatch is a run of consecutive files of the walk.
type rgBatch struct {
	paths   []string
	inGo    bool          // searched in Go: paths too long for rg
	results []*FileResult // in path order, once done; Count 0: none
	err     error
	done    chan struct{}
}

// rgSearch is one Grep of the ripgrep backend.
type rgSearch struct {
	r        *Ripgrep
	top      *os.Root
	plan     *grepPlan
	superset bool
	args     []string // rg's arguments, up to and with "--"
}

func (s *rgSearch) run(parent context.Context, emit func(FileResult) bool) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	req := s.plan.req
	chk := newChecker(ctx, s.r, s.top, s.plan, s.superset)

	inFlight := max(s.r.native.workers, 2) + 1 // rg processes at once
	order := make(chan *rgBatch, inFlight-1)   // batches in path order
	var batches sync.WaitGroup
	var walkErr error
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		defer close(order)
		size := max(s.r.batchFirst, min(req.Limit, s.r.batchMax))
		cur := &rgBatch{}
		curBytes := 0
		send := func() bool {
			b := cur
			cur, curBytes = &rgBatch{}, 0
			if len(b.paths) == 0 {
				return true
			}
			b.done = make(chan struct{})
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			batches.Add(1)
			go func() {
				defer batches.Done()
				defer close(b.done)
				s.runBatch(ctx, chk, b)
			}()
			if !b.inGo {
				size = min(2*size, s.r.batchMax)
			}
			return true
		}
		src := newDiskSource(s.top, s.r.root)
		src.stopped = func() bool { return ctx.Err() != nil }
		w := &walker{
			src:      src,
			top:      s.top,
			hidden:   req.Hidden,
			noIgnore: req.NoIgnore,
			stopped:  src.stopped,
			file: func(_ *dirHandle, name, rel string) bool {
				if !s.plan.filter.keep(name, rel) {
					return true
				}
				if long := len(rel) >= rgPathMax; long != cur.inGo {
					if !send() {
						return false
					}
					cur.inGo = long
				}
				cur.paths = append(cur.paths, rel)
				curBytes += len(rel) + 1
				if len(cur.paths) >= size || curBytes >= rgBatchBytes {
					return send()
				}
				return true
			},
		}
		walkErr = w.walk(s.plan.start)
		send()
	}()

	last, emitted, stopped := "", false, false
	var failed error
	for b := range order {
		<-b.done
		if ctx.Err() != nil {
			break
		}
		if b.err != nil {
			failed = b.err
			break
		}
		for _, f := range b.results {
			if f.Count == 0 {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			last, emitted = f.Path, true
			if !emit(*f) {
				stopped = true
				break
			}
		}
		if stopped {
			break
		}
	}
	cancel()
	<-walked
	batches.Wait()
	chk.close()
	switch {
	case stopped:
		return nil
	case failed != nil && (errors.Is(failed, errRgOutput) || errors.Is(failed, errRgMissed)):
		// rg missed what the native walk can read, or printed what
		// cannot be read: the native backend answers from where rg's
		// results end.
		stats.RipgrepFallbacks.Add(1)
		return s.r.native.Grep(parent, req, reduced(req.Mode, func(f FileResult) bool {
			return (emitted && f.Path <= last) || emit(f)
		}))
	case failed != nil:
		return failed
	case walkErr != nil:
		return walkErr
	}
	return parent.Err()
}

// runBatch runs rg over a batch, or searches it in Go, and settles every
// file with a match on the checker.
func (s *rgSearch) runBatch(ctx context.Context, chk *checker, b *rgBatch) {
	var pending sync.WaitGroup
	settle := func(f *FileResult) {
		b.results = append(b.results, f)
		pending.Add(1)
		chk.add(f, &pending)
	}
	if b.inGo {
		for _, p := range b.paths {
			if ctx.Err() != nil {
				break
			}
			f := &FileResult{Path: p}
			chk.searchGo(f)
			b.results = append(b.results, f)
		}
		return
	}
	args := make([]string, 0, len(s.args)+len(b.paths))
	args = append(args, s.args...)
	for _, p := range b.paths {
		if p == "-" {
			p = "./-" // "-" alone is standard input
		}
		args = append(args, p)
	}
	next := 0 // rg reports on the files in the order given
	var unknown error
	err := s.r.runRg(ctx, args, s.plan.req.Mode == ModeCount, func(f *FileResult) {
		for next < len(b.paths) && b.paths[next] != f.Path {
			next++
		}
		if next == len(b.paths) {
			// A file it was not given, or out of order.
			unknown = fmt.Errorf("%w: a report on %q", errRgOutput, f.Path)
			return
		}
		next++
		settle(f)
	})
	pending.Wait()
	if err == nil {
		err = unknown
	}
	b.err = err
}
